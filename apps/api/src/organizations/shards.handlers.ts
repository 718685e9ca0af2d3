import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { KeyPairSigner } from '@solana/kit';
import { DomainError, MANAGERS, organizationDecider, requireRole, shardDecider, streams } from '@svc/domain';
import { nonceAuthorityInitialized, parseEvidenceTransaction, SHARD_ACCOUNT_SPACE } from '@svc/evidence';
import { LEDGER, toAddress, toSignature, type Ledger } from '@svc/ledger';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type ShardDoc } from '@svc/projections';
import { type CommandContext, Decisions, EventLog, LedgerHistory, OrganizationFactsReader, RELAYER } from '@svc/application';

/** Reads a capacity shard of an organization from the ledger and records it (docs/protocol.md "Shard record"). */
export class SyncShard extends Command<ShardDoc> {
  constructor(
    readonly organizationId: string,
    readonly shard: string,
    readonly wallet: string,
    readonly ctx: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(SyncShard)
export class SyncShardHandler implements ICommandHandler<SyncShard, ShardDoc> {
  constructor(
    private readonly decisions: Decisions,
    private readonly log: EventLog,
    private readonly facts: OrganizationFactsReader,
    private readonly history: LedgerHistory,
    @Inject(LEDGER) private readonly ledger: Ledger,
    @Inject(RELAYER) private readonly relayer: KeyPairSigner,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /**
   * The shard's oldest transaction is its creation (docs/protocol.md §7.2, §7.5); the decider checks the record, its
   * co-signers, the nonce authority and the operator. A known shard is answered again without reading the ledger.
   * @throws DomainError not_found (404: unknown organization, not a member, no transaction for the address, another
   *   organization's shard), forbidden (403: not owner or admin), chain_state (409: not a shard of this organization
   *   created by its authority with this service's relayer as nonce authority and operator).
   */
  async execute({ organizationId, shard, wallet, ctx }: SyncShard): Promise<ShardDoc> {
    const organization = (await this.decisions.load(streams.organization(await this.facts.organizationAddress(organizationId)), organizationDecider)).state;
    requireRole(organization, wallet, MANAGERS);
    const decided = await this.decisions.handle(
      streams.shard(shard),
      shardDecider,
      async (state) => {
        const base = { kind: 'SyncShard' as const, shard, wallet, organization, authority: organization!.authority, operator: this.relayer.address };
        if (state) return { ...base, creation: null, nonceAuthority: null, balanceLamports: 0, rentExemptLamports: 0 };
        const creation = await this.creation(shard);
        if (!creation) return { ...base, creation: null, nonceAuthority: null, balanceLamports: 0, rentExemptLamports: 0 };
        const [balance, rent] = await Promise.all([this.ledger.getBalance(toAddress(shard)), this.ledger.getMinimumBalanceForRentExemption(SHARD_ACCOUNT_SPACE)]);
        return { ...base, ...creation, balanceLamports: Number(balance), rentExemptLamports: Number(rent) };
      },
      ctx,
    );
    // Nothing appended: known already, perhaps synced by a concurrent request a moment ago.
    await this.log.settledAfter(decided.appended);
    const doc = await this.readStore.collection<ShardDoc>(COLLECTIONS.shards).findOne({ _id: shard });
    if (!doc) throw new DomainError('chain_state', 'the shard is being recorded; retry');
    return doc;
  }

  /** The creation transaction's facts and the nonce authority it gives the shard; null when the address has no history. */
  private async creation(shard: string) {
    let record;
    try {
      record = await this.history.creationOf(shard);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'not_found') return null;
      throw err;
    }
    const tx = await this.ledger.getTransaction(toSignature(record.signature));
    const nonceAuthority = tx ? nonceAuthorityInitialized(parseEvidenceTransaction(tx.wire), shard) : null;
    return { creation: LedgerHistory.factsOf(record), nonceAuthority };
  }
}
