import { Logger } from '@nestjs/common';
import type { ReadStore } from '@svc/read-store';

/** Collection of the shared rate counters in the read store (one document per window, bucket and client). */
export const RATE_COUNTERS_COLLECTION = 'rate_limits';

/** How long a counter is kept after its window ends, milliseconds (a late reconciliation still finds it). */
const KEEP_AFTER_WINDOW_MS = 60_000;

/** What a counter answers for one request (the shape `@fastify/rate-limit` expects from its store). */
export interface RateCount {
  /** Requests counted in the current window for this key, this one included. */
  current: number;
  /** Milliseconds until the window ends. */
  ttl: number;
}

interface RateCounterDoc {
  _id: string;
  /** Start of the fixed window, Unix milliseconds. */
  window: number;
  /** End of the window, Unix milliseconds (windows differ in length between counters sharing the collection). */
  ends?: number;
  count: number;
  [key: string]: unknown;
}

/** One key (bucket and client address) in the current window, as this replica sees it. */
interface Entry {
  window: number;
  /** End of the window, Unix milliseconds. */
  ends: number;
  /** The shared total read back at the last reconciliation (every replica's flushed requests). */
  shared: number;
  /** Requests counted here and being written to the shared store right now. */
  inflight: number;
  /** Requests counted here and not yet written. */
  pending: number;
}

/** Options of {@link SharedRateCounters}. */
export interface SharedRateCountersOptions {
  /** How often the local counts are written to the shared store and read back, milliseconds (default 500). */
  syncIntervalMs?: number;
  /** Milliseconds since the epoch (tests move it); default `Date.now`. */
  now?: () => number;
}

/**
 * Fixed-window request counters shared by every API replica through the read store (docs/api.md "Errors and
 * limits"), answered from memory on the hot path.
 *
 * Each replica counts locally and reconciles with the shared store (one `$inc` and one read per key, in one
 * read-store transaction) every `syncIntervalMs`, and also as soon as it holds `slack(max)` unreconciled
 * requests of one key: those requests wait for the reconciliation instead of being answered from memory.
 * A replica therefore never admits more than `slack` requests of a key that the others cannot see, and over
 * one window N replicas admit at most `max + (N - 1) × slack` requests of a key (`slack` is a tenth of the
 * limit, at least 1). One replica alone admits exactly `max`.
 *
 * A store error leaves the counts pending (retried at the next interval) and is logged; requests keep being
 * answered from the local counts meanwhile.
 */
export class SharedRateCounters {
  private readonly logger = new Logger('RateLimits');
  private readonly entries = new Map<string, Entry>();
  private readonly syncIntervalMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<boolean> | undefined;
  private lastCleanup = 0;
  private indexed: Promise<void> | undefined;

  constructor(
    private readonly store: ReadStore,
    options: SharedRateCountersOptions = {},
  ) {
    this.syncIntervalMs = options.syncIntervalMs ?? 500;
    this.now = options.now ?? Date.now;
  }

  /** Requests a key may hold unreconciled before it waits for the shared store: a tenth of the limit, at least 1. */
  static slack(max: number): number {
    return Math.max(1, Math.floor(max / 10));
  }

  /** Starts the periodic reconciliation (the timer does not keep the process alive). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sync(), this.syncIntervalMs);
    this.timer.unref();
  }

  /** Stops the timer (at shutdown: the counts of the current window not yet written are dropped). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Counts one request of `key` in the current window of `windowMs` and reports the window's count: from memory
   * (synchronously, before this returns) unless the key holds `slack(max)` unreconciled requests, in which case
   * `done` is called once the shared store has been read back.
   */
  incr(key: string, windowMs: number, max: number, done: (err: Error | null, count: RateCount) => void, force = false): void {
    const now = this.now();
    const window = Math.floor(now / windowMs) * windowMs;
    let entry = this.entries.get(key);
    if (!entry || entry.window !== window) {
      entry = { window, ends: window + windowMs, shared: 0, inflight: 0, pending: 0 };
      this.entries.set(key, entry);
    }
    if (!force && entry.pending + entry.inflight >= SharedRateCounters.slack(max)) {
      // When the store cannot be reached, the request is answered from the local counts rather than held.
      void this.sync().then((reconciled) => this.incr(key, windowMs, max, done, !reconciled));
      return;
    }
    entry.pending++;
    done(null, { current: entry.shared + entry.inflight + entry.pending, ttl: window + windowMs - now });
  }

  /**
   * The current window's count of `key` as this replica sees it, without counting a request (0 when the key has none
   * in this window); for the rate headers of answers given before the limiter ran.
   */
  peek(key: string, windowMs: number): RateCount {
    const now = this.now();
    const window = Math.floor(now / windowMs) * windowMs;
    const entry = this.entries.get(key);
    const current = entry && entry.window === window ? entry.shared + entry.inflight + entry.pending : 0;
    return { current, ttl: window + windowMs - now };
  }

  /**
   * Writes every pending count and reads the shared totals back (one run at a time; a call during a run waits
   * for it). Resolves false when the store could not be reached (the counts stay pending); never rejects.
   */
  sync(): Promise<boolean> {
    this.running ??= this.reconcile().finally(() => (this.running = undefined));
    return this.running;
  }

  private async reconcile(): Promise<boolean> {
    const now = this.now();
    const batch: { key: string; entry: Entry; delta: number }[] = [];
    for (const [key, entry] of this.entries) {
      if (entry.pending > 0) {
        batch.push({ key, entry, delta: entry.pending });
        entry.inflight += entry.pending;
        entry.pending = 0;
      } else if (entry.inflight === 0 && entry.ends + KEEP_AFTER_WINDOW_MS < now) {
        // Only once its window is over: a key dropped mid-window would start again from zero.
        this.entries.delete(key);
      }
    }
    if (batch.length === 0) return true;
    // Counters incremented so far: without a transaction (MongoDB) they stay written when a later one fails.
    let applied = 0;
    // Writes through the store it is given: inside a transaction, that transaction's store.
    const write = async (store: ReadStore) => {
      applied = 0;
      const collection = store.collection<RateCounterDoc>(RATE_COUNTERS_COLLECTION);
      this.indexed ??= Promise.all([collection.ensureIndex({ fields: { ends: 1 } }), collection.ensureIndex({ fields: { window: 1 } })]).then(() => undefined);
      await this.indexed;
      const totals: number[] = [];
      for (const { key, entry, delta } of batch) {
        const _id = `${entry.window}|${key}`;
        await collection.updateOne({ _id }, { $inc: { count: delta }, $set: { window: entry.window, ends: entry.ends } }, { upsert: true });
        applied++;
        totals.push((await collection.findOne({ _id }))?.count ?? delta);
      }
      if (now - this.lastCleanup > 60_000) {
        this.lastCleanup = now;
        await collection.deleteMany({ ends: { $lt: now - KEEP_AFTER_WINDOW_MS } });
        // Counters written before windows carried their end: every window is far shorter than a day.
        await collection.deleteMany({ window: { $lt: now - 86_400_000 } });
      }
      return totals;
    };
    try {
      const totals = this.store.transaction ? await this.store.transaction(write) : await write(this.store);
      batch.forEach(({ entry, delta }, i) => {
        entry.inflight -= delta;
        entry.shared = Math.max(entry.shared, totals[i] - entry.inflight);
      });
      return true;
    } catch (err) {
      this.indexed = undefined;
      // A failed transaction wrote nothing; otherwise the counters incremented before the failure keep their deltas.
      const written = this.store.transaction ? 0 : applied;
      batch.forEach(({ entry, delta }, i) => {
        entry.inflight -= delta;
        if (i < written) entry.shared += delta;
        else entry.pending += delta;
      });
      this.logger.warn(`shared rate counters not reconciled: ${(err as Error).message}`);
      return false;
    }
  }
}
