/**
 * Pieces shared by the adapters' catch-up subscriptions: checkpoint tracking with `caughtUpTo`
 * waiters, an interruptible sleep, and serial delivery with retry and backoff.
 * Internal to the event-store library (not exported from the index).
 */
import {
  SubscriptionStoppedError,
  type EventIntegrityError,
  type EventHandler,
  type EventStoreLogger,
  type StoredEvent,
  type SubscriptionRetryOptions,
} from './event-store.port';

export const DEFAULT_RETRY: Required<SubscriptionRetryOptions> = { initialDelayMs: 100, maxDelayMs: 30_000 };

/** Delay before retry number `attempt` (1-based), in milliseconds: exponential, capped. */
export function backoffDelay(attempt: number, retry: Required<SubscriptionRetryOptions>): number {
  const exp = Math.min(attempt - 1, 30);
  return Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** exp);
}

/** Last handled position plus the `caughtUpTo` promises waiting for it. */
export class CheckpointTracker {
  private waiters: Array<{ position: bigint; resolve: () => void; reject: (err: Error) => void }> = [];
  private stopped = false;
  private failure: EventIntegrityError | undefined;

  /** @param position the last position already handled (`-1n` for none). */
  constructor(private position: bigint) {}

  get current(): bigint {
    return this.position;
  }

  /** Records that everything up to `position` is handled and resolves the waiters it satisfies. */
  advance(position: bigint): void {
    if (position <= this.position) return;
    this.position = position;
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (w.position <= position) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  /**
   * Resolves once `advance` has reached `position`; rejects with the failure once {@link fail} ran,
   * else with SubscriptionStoppedError on stop.
   */
  waitFor(position: bigint): Promise<void> {
    if (position <= this.position) return Promise.resolve();
    if (this.failure) return Promise.reject(this.failure);
    if (this.stopped) return Promise.reject(new SubscriptionStoppedError(position));
    return new Promise((resolve, reject) => this.waiters.push({ position, resolve, reject }));
  }

  /** Rejects every pending waiter, and every later one, with `err` (the subscription failed for good). */
  fail(err: EventIntegrityError): void {
    this.failure = err;
    this.stop();
  }

  /** Rejects every pending waiter (the subscription stopped). */
  stop(): void {
    this.stopped = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(this.failure ?? new SubscriptionStoppedError(w.position));
  }
}

/** A sleep that `wake()` ends early (used for polling, backoff and stop). */
export class WakeableSleep {
  private timer: NodeJS.Timeout | undefined;
  private resolveSleep: (() => void) | undefined;
  /** Set by `wake()` while not sleeping, so that the next `sleep` returns at once (no lost signal). */
  private pending = false;

  sleep(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this.resolveSleep = resolve;
      this.timer = setTimeout(() => this.finish(), ms);
    });
  }

  /** Ends the current sleep, or makes the next one return immediately. */
  wake(): void {
    if (this.resolveSleep) this.finish();
    else this.pending = true;
  }

  /** Forgets a pending wake-up (call before re-reading the source). */
  clearPending(): void {
    this.pending = false;
  }

  private finish(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const resolve = this.resolveSleep;
    this.resolveSleep = undefined;
    resolve?.();
  }
}

export interface DeliveryContext {
  handler: EventHandler;
  retry: Required<SubscriptionRetryOptions>;
  logger?: EventStoreLogger;
  sleep: WakeableSleep;
  isStopped: () => boolean;
}

/**
 * Calls the handler for one event until it resolves, sleeping with backoff between failures.
 * @returns true once handled, false if the subscription stopped first (the event is then not handled).
 */
export async function deliverWithRetry(event: StoredEvent, ctx: DeliveryContext): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    if (ctx.isStopped()) return false;
    try {
      await ctx.handler(event);
      if (attempt > 1) {
        ctx.logger?.('info', 'event handler succeeded after retries', {
          eventId: event.id,
          type: event.type,
          position: event.position.toString(),
          attempts: attempt,
        });
      }
      return true;
    } catch (err) {
      // Stopping: the handler's refusal is the stop itself (a runner refuses events once stopped), not a fault.
      if (ctx.isStopped()) return false;
      const delayMs = backoffDelay(attempt, ctx.retry);
      ctx.logger?.(attempt >= 5 ? 'error' : 'warn', 'event handler failed; retrying the same event', {
        eventId: event.id,
        type: event.type,
        streamId: event.streamId,
        position: event.position.toString(),
        attempt,
        retryInMs: delayMs,
        err,
      });
      await ctx.sleep.sleep(delayMs);
    }
  }
}

/** Fills in defaults of the retry options. */
export function resolveRetry(retry: SubscriptionRetryOptions | undefined): Required<SubscriptionRetryOptions> {
  return {
    initialDelayMs: retry?.initialDelayMs ?? DEFAULT_RETRY.initialDelayMs,
    maxDelayMs: retry?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
  };
}
