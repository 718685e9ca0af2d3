/**
 * Stream `shard-<address>`: a capacity shard of an organization, created on the ledger by its wallet and synced into
 * the service (spec §4.10 shards; docs/protocol.md "Shard record"). A later fee sponsorship pays fees back from it.
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { Address, EventOf, ShardSyncedData } from '../events';
import { requireRole, type LedgerTransactionFacts, type OrganizationFacts } from './ledger-facts';
import { MANAGERS } from './organization.decider';

export type ShardEvent = EventOf<'ShardSynced'>;
export type ShardState = ShardSyncedData | null;

export interface SyncShardCommand {
  kind: 'SyncShard';
  shard: Address;
  wallet: Address;
  organization: OrganizationFacts | null;
  /** The organization's authority: the only key that may create its shards. */
  authority: Address;
  /** The service's relayer: a shard must name it as operator and nonce authority. */
  operator: Address;
  /** The creation transaction; null when the stream exists already (not read). */
  creation: LedgerTransactionFacts | null;
  /** The nonce authority the creation transaction gives the shard account, or null. */
  nonceAuthority: Address | null;
  balanceLamports: number;
  rentExemptLamports: number;
}

export const shardDecider: Decider<SyncShardCommand, ShardEvent, ShardState> = {
  eventTypes: ['ShardSynced'],
  initialState: null,
  evolve(_state, event) {
    return event.data;
  },
  /**
   * A sync of a known shard of the same organization decides nothing.
   * @throws DomainError not_found (404: the wallet is not a member; no transaction for the address; a shard of another
   *   organization), forbidden (403: neither owner nor admin), chain_state (409: the address is not a shard of this
   *   organization created by its authority, or it is not a nonce account operated by this service's relayer).
   */
  decide(command, state) {
    requireRole(command.organization, command.wallet, MANAGERS);
    const org = command.organization!;
    if (state) {
      if (state.organizationId !== org.organizationId) throw new DomainError('not_found', 'shard not found');
      return [];
    }
    const tx = command.creation;
    if (!tx) throw new DomainError('not_found', `no transaction on the ledger for ${command.shard}`);
    const record = tx.record;
    if (!tx.succeeded || record?.kind !== 'shard' || tx.objectSigner !== command.shard) {
      throw new DomainError('chain_state', `${command.shard} was not created as a shard on the ledger`);
    }
    if (record.organization !== org.address) throw new DomainError('chain_state', 'the shard belongs to another organization');
    if (tx.actor !== command.authority) throw new DomainError('chain_state', "the shard was not created by the organization's authority");
    if (record.operator !== command.operator || command.nonceAuthority !== command.operator) {
      throw new DomainError('chain_state', `the shard must be a nonce account operated by this service's relayer ${command.operator}`);
    }
    return [
      {
        type: 'ShardSynced',
        data: {
          organizationId: org.organizationId,
          organization: org.address,
          shard: command.shard,
          operator: record.operator,
          creationSignature: tx.signature,
          slot: tx.slot,
          blockTime: tx.blockTime,
          balanceLamports: command.balanceLamports,
          rentExemptLamports: command.rentExemptLamports,
          syncedBy: command.wallet,
        },
      },
    ];
  },
};
