/**
 * How the projection runner applies delivered events (internal to the library): in batches, each inside
 * one read-store transaction when the store has them, with the checkpoint saved last in the same batch;
 * a failing batch is rolled back, logged and retried with backoff, never skipped.
 */
import { timeSlices, type StoredEvent } from '@svc/event-store';
import type { ProjectionRunnerLogger, ProjectionRunnerOptions } from './projection';
import { interruptibleSleep, yieldToEventLoop } from './projection-polling';
import type { ProjectionState } from './projection-state';
import type { ReadStore } from './read-store.port';

/** Failed attempts on one batch after which the projection is reported as faulted (retries go on). */
const FAULT_AFTER_ATTEMPTS = 3;
const MAX_RETRY_DELAY_MS = 30_000;

/** A handler rejection, with the event it rejected on. */
class HandlerError extends Error {
  constructor(
    readonly event: StoredEvent,
    readonly original: unknown,
  ) {
    super(original instanceof Error ? original.message : String(original));
  }
}

/** The message of an error, or the value as text. */
export function errMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class BatchApplier {
  constructor(
    private readonly readStore: ReadStore,
    private readonly opts: Required<Pick<ProjectionRunnerOptions, 'batchSize' | 'retryDelayMs'>>,
    private readonly logger?: ProjectionRunnerLogger,
  ) {}

  /** Applies the buffered events of `s` on the next turn of the event loop (once per turn). */
  scheduleDrain(s: ProjectionState, generation: number): void {
    if (s.drainScheduled) return;
    s.drainScheduled = true;
    setImmediate(() => {
      s.drainScheduled = false;
      void this.drain(s, generation);
    });
  }

  /** Applies the buffered events (after any batch in progress). Never rejects. */
  drain(s: ProjectionState, generation: number): Promise<void> {
    s.applying = s.applying.then(async () => {
      while (s.buffer.length > 0 && generation === s.generation) {
        const batch = s.buffer.splice(0, this.opts.batchSize);
        if (!(await this.applyWithRetry(s, generation, batch))) return;
        if (s.buffer.length > 0) await yieldToEventLoop();
      }
    });
    return s.applying;
  }

  /** @returns false when the projection stopped before the batch could be applied. */
  private async applyWithRetry(s: ProjectionState, generation: number, batch: StoredEvent[]): Promise<boolean> {
    const last = batch[batch.length - 1]!.position;
    for (let attempt = 1; ; attempt++) {
      if (generation !== s.generation) return false;
      try {
        await this.applyBatch(s, batch, last);
        if (s.handlerFault) this.logger?.warn(`projection ${s.key} applied the event it failed on, after ${attempt} attempts`);
        s.handlerFault = undefined;
        s.markApplied(last);
        return true;
      } catch (err) {
        const event = err instanceof HandlerError ? err.event : batch[0]!;
        const delay = Math.min(MAX_RETRY_DELAY_MS, this.opts.retryDelayMs * 2 ** Math.min(attempt - 1, 20));
        const cause = err instanceof HandlerError ? err.original : err;
        this.logger?.error(
          `projection ${s.key} failed on event ${event.type} at position ${String(event.position)} ` +
            `(stream ${event.streamId}): ${errMessage(cause)}; attempt ${attempt}, the batch is retried in ${delay} ms`,
          cause,
        );
        if (attempt >= FAULT_AFTER_ATTEMPTS) {
          s.handlerFault = { projection: s.key, streamId: event.streamId, position: String(event.position), reason: `handler failed: ${errMessage(cause)}` };
        }
        if (s.halting || generation !== s.generation) return false;
        await interruptibleSleep(delay, s.wake.promise);
      }
    }
  }

  /** One batch: every event, then the checkpoint; inside one transaction when the store has them. */
  private async applyBatch(s: ProjectionState, batch: StoredEvent[], last: bigint): Promise<void> {
    const run = async (store: ReadStore) => {
      const scoped = s.storeFor(store);
      const slice = timeSlices(); // at most SLICE_MS of handlers before HTTP requests get a turn
      for (const event of batch) {
        await slice();
        try {
          await s.projection.handle(event, scoped);
        } catch (err) {
          throw new HandlerError(event, err);
        }
      }
      await store.saveCheckpoint(s.key, last);
    };
    if (this.readStore.transaction) await this.readStore.transaction(run);
    else await run(this.readStore);
  }

}
