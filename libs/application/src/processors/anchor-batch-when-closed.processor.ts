import { Inject, Injectable, Logger } from '@nestjs/common';
import type { KeyPairSigner } from '@solana/kit';
import { acceptanceDecider, batchDecider, type BatchAnchoredData, type BatchState, type EventOf } from '@svc/domain';
import { batchFeeShare, buildBatchAnchorTransaction, landingAgainstWindow, validityWindowOf } from '@svc/evidence';
import { LEDGER, toSignature, type Ledger } from '@svc/ledger';
import { reactionContext, type CommandContext } from '../infrastructure/command-context';
import { NetworkService } from '../infrastructure/network.service';
import { RELAYER } from '../infrastructure/tokens';
import { Decisions } from '../shared/decisions.service';
import type { StoredDomainEvent } from '../shared/stored-events';
import { faultPoint } from './fault-points';
import type { Processor } from './processor';
import { sendRecordedTransaction } from './send-recorded-transaction';

type Closed = EventOf<'BatchClosed'>;

/**
 * Anchors a closed batch and records every acceptance of it (docs/architecture.md "Batches"). The batch's signed
 * anchor transaction was recorded with its leaves (`BatchClosed`) before this runs; this processor sends it (a
 * blockhash that expired unlanded gets a re-signed transaction, `BatchResigned`), records `BatchAnchored`, then on
 * each acceptance's stream `AcceptanceRelayed` with the transaction, slot, its leaf's place and its fee share (the
 * fee divided by the size, the remainder one lamport each to the first leaves; docs/protocol.md §7.7). Each step is a
 * no-op when done, so a crash anywhere is resumed from the log; a refused anchor (an unfunded relayer…) is retried with backoff: the acceptances were answered 200 and must be
 * anchored. An acceptance whose message's validity window the anchor landed outside of (the anchor was held up, by an
 * outage or a long stop, past `expires-at` and the verifier's 120 s tolerance) is recorded as failed
 * (`AcceptanceRelayFailed`) instead: its receipt could never verify, and its signer can accept again.
 */
@Injectable()
export class AnchorBatchWhenClosed implements Processor<Closed> {
  readonly name = 'anchor-batch';
  readonly eventTypes = ['BatchClosed'] as const satisfies readonly Closed['type'][];
  readonly concurrency = 8;
  private readonly logger = new Logger('AnchorBatchWhenClosed');

  constructor(
    private readonly decisions: Decisions,
    private readonly network: NetworkService,
    @Inject(RELAYER) private readonly relayer: KeyPairSigner,
    @Inject(LEDGER) private readonly ledger: Ledger,
  ) {}

  key(event: StoredDomainEvent<Closed>): string {
    return event.streamId;
  }

  async handle(event: StoredDomainEvent<Closed>): Promise<void> {
    const ctx = reactionContext(event, 'service:batcher');
    const { state } = await this.decisions.load(event.streamId, batchDecider);
    const anchored = state.anchored ?? (await this.anchor(event, state, ctx));
    if (anchored) await this.recordAcceptances(event.data, anchored, ctx);
  }

  /** Sends the transaction in force until it lands; records `BatchAnchored`. Null when another run recorded it first. */
  private async anchor(event: StoredDomainEvent<Closed>, state: BatchState, ctx: CommandContext): Promise<BatchAnchoredData | null> {
    const closed = event.data;
    let transaction = state.transaction!;
    for (;;) {
      const sent = await sendRecordedTransaction(this.ledger, transaction, { before: () => faultPoint('batch:before-send'), after: () => faultPoint('batch:after-send') });
      if (sent === 'landed') break;
      if (sent !== 'expired') {
        this.logger.error(`the anchor of batch ${closed.sequence} of lane ${closed.lane} was refused, retrying: ${sent.reason}`);
        throw new Error(`anchor refused: ${sent.reason}`);
      }
      const lifetime = await this.network.latestBlockhash();
      const tx = await buildBatchAnchorTransaction({ operator: this.relayer, lane: closed.lane, sequence: closed.sequence, size: closed.leaves.length, root: closed.root, lifetime });
      const resigned = { transactionSignature: tx.signature, transactionWire: Buffer.from(tx.wire).toString('base64'), lastValidBlockHeight: lifetime.lastValidBlockHeight.toString() };
      const decided = await this.decisions.handle(event.streamId, batchDecider, { kind: 'ResignBatch', resigned: { ...resigned, replaces: transaction.transactionSignature } }, ctx);
      if (decided.events.length === 0) return decided.state.anchored;
      transaction = resigned;
    }
    const landed = await this.ledger.getTransaction(toSignature(transaction.transactionSignature));
    if (!landed) throw new Error(`the ledger confirmed the batch anchor ${transaction.transactionSignature} but cannot return it yet`);
    if (landed.err !== null) throw new Error(`the batch anchor ${transaction.transactionSignature} failed on the ledger: ${JSON.stringify(landed.err)}`);
    const anchored: BatchAnchoredData = { transactionSignature: transaction.transactionSignature, slot: Number(landed.slot), blockTime: landed.blockTime, feeLamports: Number(landed.fee) };
    const decided = await this.decisions.handle(event.streamId, batchDecider, { kind: 'RecordBatchAnchored', anchored }, ctx);
    return decided.state.anchored;
  }

  /** Records the anchoring on every acceptance of the batch (each a no-op when already recorded). */
  private async recordAcceptances(closed: Closed['data'], anchored: BatchAnchoredData, ctx: CommandContext): Promise<void> {
    const size = closed.leaves.length;
    const landed = await this.ledger.getTransaction(toSignature(anchored.transactionSignature));
    const commitment = landed?.confirmationStatus === 'finalized' ? 'finalized' : 'confirmed';
    await Promise.all(
      closed.leaves.map((leaf, leafIndex) => {
        const window = validityWindowOf(leaf.message);
        const landing = landingAgainstWindow(window, anchored.blockTime);
        if (landing === 'before' || landing === 'after') {
          const at = new Date((anchored.blockTime ?? 0) * 1000).toISOString();
          const reason = `the batch anchor landed at ${at}, outside the message's validity window (${window.issuedAt} .. ${window.expiresAt}, give or take 120 s), so its receipt could not verify; accept again with a new challenge`;
          return this.decisions.handle(
            leaf.acceptanceStream,
            acceptanceDecider,
            { kind: 'RecordRelayFailed', failed: { acceptanceId: leaf.acceptanceId, transactionSignature: anchored.transactionSignature, reason, logs: [] }, batch: { lane: closed.lane, sequence: closed.sequence } },
            ctx,
          );
        }
        return this.decisions.handle(
          leaf.acceptanceStream,
          acceptanceDecider,
          {
            kind: 'RecordRelayed',
            relayed: {
              acceptanceId: leaf.acceptanceId,
              transactionSignature: anchored.transactionSignature,
              slot: anchored.slot,
              blockTime: anchored.blockTime,
              feeLamports: batchFeeShare(anchored.feeLamports, size, leafIndex),
              commitment,
              batch: { lane: closed.lane, sequence: closed.sequence, size, root: closed.root, leafIndex },
            },
          },
          ctx,
        );
      }),
    );
  }
}
