import { Inject, Injectable, Logger } from '@nestjs/common';
import { DomainError, streams, type AcceptanceSubmittedData } from '@svc/domain';
import { base58ToBytes, encodeAcceptanceTransaction, type SyncSigner } from '@svc/evidence';
import { LEDGER, TransactionFailedError, type Ledger } from '@svc/ledger';
import { newEvent, type CommandContext } from '../infrastructure/command-context';
import { NetworkService } from '../infrastructure/network.service';
import { RELAYER_SIGNER } from '../infrastructure/tokens';
import { EventLog } from '../shared/event-log.service';

/** Outcome of a relay that landed. */
export interface RelayOutcome {
  transactionSignature: string;
  slot: number;
  blockTime: number | null;
  feeLamports: number;
  position: bigint;
}

/** A signed acceptance transaction, ready to send. */
export interface SignedRelay {
  transactionSignature: string;
  transactionWire: string;
  lastValidBlockHeight: string;
}

const isExpiredBlockhash = (err: unknown) => err instanceof TransactionFailedError && /blockhash/i.test(err.message);

/**
 * Relays acceptances to the ledger (ARCHITECTURE §6): the transaction is built and signed, its signature
 * recorded in an event, and only then sent. The outcome is recorded by another event, so a crash at any
 * point is resumed from the log (see RelayAcceptanceProcessManager), never lost or doubled.
 */
@Injectable()
export class AcceptanceRelay {
  private readonly logger = new Logger('AcceptanceRelay');

  constructor(
    private readonly log: EventLog,
    private readonly network: NetworkService,
    @Inject(LEDGER) private readonly ledger: Ledger,
    @Inject(RELAYER_SIGNER) private readonly relayer: SyncSigner,
  ) {}

  get feePayer(): string {
    return this.relayer.address;
  }

  /** Builds and signs the acceptance transaction (Ed25519 precompile + memo) with a recent blockhash. */
  async sign(input: { signer: string; signature: string; message: string; acceptanceId: string; versionAddress: string }): Promise<SignedRelay> {
    const lifetime = await this.network.latestBlockhash();
    const tx = encodeAcceptanceTransaction({
      feePayer: this.relayer,
      signer: input.signer,
      signature: base58ToBytes(input.signature),
      message: input.message,
      acceptanceId: input.acceptanceId,
      versionAddress: input.versionAddress,
      lifetime,
    });
    return {
      transactionSignature: tx.signature,
      transactionWire: Buffer.from(tx.wire).toString('base64'),
      lastValidBlockHeight: lifetime.lastValidBlockHeight.toString(),
    };
  }

  /**
   * Sends the recorded transaction and records the outcome on the acceptance's stream at `revision`.
   * When the blockhash expired before it landed, signs anew once (recorded as `AcceptanceResigned`).
   * @throws DomainError relay_failed (502) when the ledger refuses the transaction (recorded as `AcceptanceRelayFailed`).
   */
  async relay(data: AcceptanceSubmittedData, signed: SignedRelay, revision: bigint, ctx: CommandContext): Promise<RelayOutcome> {
    const streamId = streams.acceptance(data.versionAddress, data.signer);
    let current = signed;
    let rev = revision;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.ledger.sendTransaction(Buffer.from(current.transactionWire, 'base64'), { commitment: 'confirmed' });
        break;
      } catch (err) {
        if (/already been processed|AlreadyProcessed/i.test((err as Error).message)) break;
        if (isExpiredBlockhash(err) && attempt === 0) {
          this.network.invalidateBlockhash();
          const fresh = await this.sign(data);
          const appended = await this.log.append(
            streamId,
            [newEvent('AcceptanceResigned', { acceptanceId: data.acceptanceId, ...fresh, replaces: current.transactionSignature }, ctx)],
            rev,
          );
          rev = appended.nextExpectedRevision;
          current = fresh;
          continue;
        }
        const reason = err instanceof TransactionFailedError ? err.message : `ledger unreachable: ${(err as Error).message}`;
        const logs = err instanceof TransactionFailedError ? err.logs.slice(0, 50) : [];
        const failed = await this.log.tryAppend(
          streamId,
          [newEvent('AcceptanceRelayFailed', { acceptanceId: data.acceptanceId, transactionSignature: current.transactionSignature, reason, logs }, ctx)],
          rev,
        );
        // Read-your-writes: once the caller sees relay_failed, a new challenge for the signer must be allowed.
        if (failed) await this.log.settled(failed.position);
        this.logger.warn(`relay of ${data.acceptanceId} failed: ${reason}`);
        throw new DomainError('relay_failed', `the ledger refused the acceptance: ${reason}`);
      }
    }
    return this.recordLanded(data.acceptanceId, streamId, current.transactionSignature, rev, ctx);
  }

  /** Reads the landed transaction and appends `AcceptanceRelayed`. */
  async recordLanded(acceptanceId: string, streamId: string, transactionSignature: string, revision: bigint, ctx: CommandContext): Promise<RelayOutcome> {
    const landed = await this.ledger.getTransaction(transactionSignature);
    if (!landed) throw new DomainError('relay_inconsistent', 'the ledger confirmed the transaction but cannot return it');
    if (landed.err !== null) throw new DomainError('relay_failed', `the acceptance transaction failed on the ledger: ${JSON.stringify(landed.err)}`);
    const outcome = {
      transactionSignature,
      slot: Number(landed.slot),
      blockTime: landed.blockTime,
      feeLamports: Number(landed.fee),
    };
    const appended = await this.log.tryAppend(
      streamId,
      [newEvent('AcceptanceRelayed', { acceptanceId, ...outcome, commitment: landed.confirmationStatus === 'finalized' ? 'finalized' : 'confirmed' }, ctx)],
      revision,
    );
    if (!appended) {
      // Recorded concurrently (the process manager resumed it): the log already holds the outcome.
      return { ...outcome, position: -1n };
    }
    return { ...outcome, position: appended.position };
  }
}
