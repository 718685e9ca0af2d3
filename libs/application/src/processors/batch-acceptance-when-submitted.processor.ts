import { Inject, Injectable, Logger } from '@nestjs/common';
import type { KeyPairSigner } from '@solana/kit';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { acceptanceDecider, batchDecider, streams, type BatchClosedData, type BatchLeafData, type EventOf } from '@svc/domain';
import { batchTree, buildBatchAnchorTransaction } from '@svc/evidence';
import { EVENT_STORE, type EventStore } from '@svc/event-store';
import { LEDGER, type Ledger } from '@svc/ledger';
import { CLOCK, type Clock } from '../infrastructure/clock';
import { reactionContext, type CommandContext } from '../infrastructure/command-context';
import { NetworkService } from '../infrastructure/network.service';
import { RELAYER } from '../infrastructure/tokens';
import { Decisions } from '../shared/decisions.service';
import type { StoredDomainEvent } from '../shared/stored-events';
import { faultPoint } from './fault-points';
import { sendRecordedTransaction } from './send-recorded-transaction';
import type { Processor } from './processor';

type Submitted = EventOf<'AcceptanceSubmitted'>;

/** Longest wait for the ledger to take a batch's anchor at a graceful stop, in ms (else it is sent at the next start). */
const SEND_AT_STOP_MS = 5_000;

/** Most acceptances one batch anchors (spec §8). */
export const BATCH_MAX_LEAVES = 1024;

/**
 * The lane of an acceptance: the first byte of its ID (hex) modulo the number of lanes. IDs are SHA-256 outputs, so
 * the lanes share the load evenly, and an acceptance always lands in the same lane, also when it is handled again.
 */
export function laneOf(acceptanceId: string, lanes: number): number {
  return parseInt(acceptanceId.slice(0, 2), 16) % lanes;
}

interface OpenBatch {
  leaves: BatchLeafData[];
  ids: Set<string>;
  timer: NodeJS.Timeout | null;
  /** The context of its first acceptance's event, for a closing that no event starts (a graceful stop). */
  ctx: CommandContext | null;
  /** Settles once the batch is recorded (`BatchClosed`), or rejects when closing failed (the events are retried). */
  closed: Promise<void>;
  settle: (error?: unknown) => void;
}

interface Lane {
  /** The sequence the next batch of the lane takes: 1 + the last recorded one. */
  next: number;
  open: OpenBatch | null;
  /** The lane's closing in progress: batches of a lane close one after the other, in sequence. */
  closing: Promise<void>;
}

/**
 * Forms Merkle batches of `MERKLE_BATCHED` acceptances (docs/architecture.md "Batches"). Each acceptance joins the
 * open batch of its lane ({@link laneOf}); a batch closes `BATCH_WINDOW_MS` after its first acceptance (10 s) or at
 * 1,024, whichever comes first. Closing batch n of a lane, in this order:
 * 1. every leaf is placed in batch n on its own stream (`AcceptanceBatched`; an acceptance already placed elsewhere,
 *    or anchored meanwhile, is left out);
 * 2. the tree is built over the placed leaves, the anchor transaction signed, and `BatchClosed` recorded on
 *    `batch-<lane>-<n>` with the leaves, the root and the signed transaction — nothing has been sent yet;
 * 3. the acceptances' events are done: `AnchorBatchWhenClosed` sends the transaction.
 * A handler returns only when its acceptance's batch is recorded, so the checkpoint never passes an acceptance
 * whose batch is not. A graceful stop closes the open batches at once and sends their transactions itself before the
 * process ends (their acceptances were answered `pending_batch`, and a stop longer than their validity window would
 * otherwise leave them unanchorable); `AnchorBatchWhenClosed` records the outcome at the next start. After a crash
 * the unrecorded acceptances come back: those placed in batch n (step 1 done, step 2 not) re-form batch n, the
 * lane's next sequence being read from the store; those in a recorded batch are skipped.
 */
@Injectable()
export class BatchAcceptanceWhenSubmitted implements Processor<Submitted> {
  readonly name = 'batch-acceptances';
  readonly eventTypes = ['AcceptanceSubmitted'] as const satisfies readonly Submitted['type'][];
  /** Enough events in hand for several lanes' full batches at once. */
  readonly concurrency = 4 * BATCH_MAX_LEAVES;
  private readonly logger = new Logger('BatchAcceptanceWhenSubmitted');
  private readonly lanes = new Map<number, Promise<Lane>>();
  private stopped = false;

  constructor(
    private readonly decisions: Decisions,
    private readonly network: NetworkService,
    @Inject(RELAYER) private readonly relayer: KeyPairSigner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(LEDGER) private readonly ledger: Ledger,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  key(event: StoredDomainEvent<Submitted>): string {
    return event.streamId;
  }

  async handle(event: StoredDomainEvent<Submitted>): Promise<void> {
    const submitted = event.data;
    if (submitted.evidenceMode !== 'MERKLE_BATCHED') return;
    const { state } = await this.decisions.load(event.streamId, acceptanceDecider, { cached: true });
    if (state.status !== 'submitted' || state.submitted?.acceptanceId !== submitted.acceptanceId) return; // anchored, or superseded
    const laneNumber = laneOf(submitted.acceptanceId, this.config.batchLanes);
    const lane = await this.lane(laneNumber);
    if (state.batched !== null && state.batched.sequence < lane.next) return; // its batch is recorded
    const batch = this.openBatch(lane);
    if (!batch.ids.has(submitted.acceptanceId)) {
      batch.ids.add(submitted.acceptanceId);
      const { acceptanceId, message, signature, signer, versionAddress } = submitted;
      batch.leaves.push({ acceptanceId, acceptanceStream: event.streamId, message, signature, signer, versionAddress });
      batch.ctx ??= reactionContext(event, 'service:batcher');
      // During a graceful stop (an event already in hand when it began) the batch closes at once, as the others did.
      if (this.stopped) this.close(laneNumber, lane, batch, batch.ctx, { send: true });
      else if (batch.leaves.length >= BATCH_MAX_LEAVES) this.close(laneNumber, lane, batch, reactionContext(event, 'service:batcher'));
      else batch.timer ??= setTimeout(() => this.close(laneNumber, lane, batch, reactionContext(event, 'service:batcher')), this.config.batchWindowMs);
    }
    await batch.closed;
  }

  /**
   * Closes every open batch now and sends its transaction (see the class comment); the runner then waits for the
   * handlers, which return once their batch is recorded. Acceptances that arrive after this are not batched here.
   */
  stop(): void {
    this.stopped = true;
    for (const [laneNumber, lane] of this.lanes) {
      lane
        .then((l) => {
          const batch = l.open;
          if (batch?.ctx) this.close(laneNumber, l, batch, batch.ctx, { send: true });
        })
        .catch(() => undefined); // a lane that never opened has no batch
    }
  }

  private openBatch(lane: Lane): OpenBatch {
    if (lane.open) return lane.open;
    let settle!: (error?: unknown) => void;
    const closed = new Promise<void>((resolve, reject) => {
      settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    closed.catch(() => undefined);
    const batch: OpenBatch = { leaves: [], ids: new Set(), timer: null, ctx: null, closed, settle };
    lane.open = batch;
    return batch;
  }

  /** Takes the batch out of the lane and closes it after the lane's earlier batches. */
  private close(laneNumber: number, lane: Lane, batch: OpenBatch, ctx: CommandContext, options: { send?: boolean } = {}): void {
    if (lane.open !== batch) return;
    if (batch.timer) clearTimeout(batch.timer);
    lane.open = null;
    // The batch takes its number when it closes: batches of a lane are recorded one after the other, without gaps.
    lane.closing = lane.closing.then(async () => {
      const sequence = lane.next;
      try {
        const recorded = await this.record(laneNumber, sequence, batch.leaves, ctx);
        if (recorded) lane.next = sequence + 1;
        // Also a batch that closed by itself just before the stop: the anchor processor is stopping too.
        if (recorded && (options.send || this.stopped)) await this.sendBeforeStop(recorded);
        batch.settle();
      } catch (err) {
        this.logger.warn(`batch ${sequence} of lane ${laneNumber} not closed, its acceptances are retried: ${(err as Error).message}`);
        batch.settle(err);
      }
    });
  }

  /**
   * Steps 1 and 2 of the closing: places the leaves, then records the batch with its signed anchor transaction.
   * @returns the recorded batch, or null when no leaf could be placed.
   */
  private async record(laneNumber: number, sequence: number, candidates: readonly BatchLeafData[], ctx: CommandContext): Promise<BatchClosedData | null> {
    const placed = await Promise.all(
      candidates.map(async (leaf) => {
        const batched = { acceptanceId: leaf.acceptanceId, lane: laneNumber, sequence };
        const decided = await this.decisions.handle(leaf.acceptanceStream, acceptanceDecider, { kind: 'PlaceInBatch', batched, recordedUpTo: sequence - 1 }, ctx);
        const b = decided.state.batched;
        const inThisBatch = decided.state.status === 'submitted' && decided.state.submitted?.acceptanceId === leaf.acceptanceId && b?.lane === laneNumber && b.sequence === sequence;
        return inThisBatch ? leaf : null;
      }),
    );
    const leaves = placed.filter((l): l is BatchLeafData => l !== null);
    if (leaves.length === 0) return null;
    faultPoint('batch:before-close');
    const { root } = batchTree(leaves);
    const lifetime = await this.network.latestBlockhash();
    const tx = await buildBatchAnchorTransaction({ operator: this.relayer, lane: laneNumber, sequence: sequence, size: leaves.length, root, lifetime });
    const closed: BatchClosedData = {
      lane: laneNumber,
      sequence: sequence,
      root,
      leaves,
      feePayer: this.relayer.address,
      transactionSignature: tx.signature,
      transactionWire: Buffer.from(tx.wire).toString('base64'),
      lastValidBlockHeight: lifetime.lastValidBlockHeight.toString(),
      closedAt: this.clock.now().toISOString(),
    };
    await this.decisions.handle(streams.batch(laneNumber, sequence), batchDecider, { kind: 'CloseBatch', closed }, ctx, { expectNew: true });
    return closed;
  }

  /** Sends a batch closed by a graceful stop; a failure is only logged (the next start sends it again, as after a crash). */
  private async sendBeforeStop(closed: BatchClosedData): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    // Bounded, so that a slow or absent ledger does not outlast the grace an orchestrator gives a stop.
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${SEND_AT_STOP_MS} ms`)), SEND_AT_STOP_MS);
    });
    try {
      const outcome = await Promise.race([sendRecordedTransaction(this.ledger, closed), bound]);
      this.logger.log(`batch ${closed.sequence} of lane ${closed.lane} closed at stop (${closed.leaves.length} acceptances), its anchor sent: ${typeof outcome === 'string' ? outcome : outcome.reason}`);
    } catch (err) {
      this.logger.warn(`batch ${closed.sequence} of lane ${closed.lane} closed at stop, its anchor not sent (sent at the next start): ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The lane's state, its next sequence read from the store the first time (the first batch number not recorded). */
  private lane(laneNumber: number): Promise<Lane> {
    let lane = this.lanes.get(laneNumber);
    if (!lane) {
      lane = this.firstFreeSequence(laneNumber).then((next) => ({ next, open: null, closing: Promise.resolve() }));
      lane.catch(() => this.lanes.delete(laneNumber));
      this.lanes.set(laneNumber, lane);
    }
    return lane;
  }

  /** Smallest n ≥ 1 such that `batch-<lane>-<n>` does not exist (batches of a lane are numbered without gaps). */
  private async firstFreeSequence(laneNumber: number): Promise<number> {
    const exists = async (n: number) => (await this.store.streamRevision(streams.batch(laneNumber, n))) !== null;
    let high = 1;
    while (await exists(high)) high *= 2;
    let low = Math.floor(high / 2); // exists (or 0)
    while (high - low > 1) {
      const mid = Math.floor((low + high) / 2);
      if (await exists(mid)) low = mid;
      else high = mid;
    }
    return high;
  }
}
