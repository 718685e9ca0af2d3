/**
 * The one catch-up subscription loop of the library, used by both adapters: read the log in pages
 * after the checkpoint, deliver each event to the handler (serially, retrying a rejected event with
 * backoff, never skipping it), and once caught up wait for a wake-up (the adapter's signal that new
 * events may exist) or the poll interval, whichever comes first.
 *
 * A page read that raises EventIntegrityError stops the subscription for good: the bad event is never
 * delivered and never skipped (libs/event-store/README.md, "Tamper evidence").
 */
import {
  EventIntegrityError,
  type EventHandler,
  type EventStoreLogger,
  type StoredEvent,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionRetryOptions,
} from './event-store.port';
import { CheckpointTracker, WakeableSleep, backoffDelay, deliverWithRetry, type DeliveryContext } from './subscription-support';
import { nextTurn, timeSlices } from './time-slices';


/** Where a subscription reads from. */
export interface CatchUpSource {
  /**
   * Reads at most `max` events strictly after position `after`, in log order, checked and upcast.
   * When `head` is given, the reader honours `types` (returns only those types); otherwise it may
   * ignore them and the loop skips the other types itself.
   * @throws EventIntegrityError on a bad stored event (the subscription then stops for good).
   */
  readPage(after: bigint, max: number, types?: readonly string[]): Promise<StoredEvent[]>;
  /**
   * Position of the last event of the log. Given by sources that filter by type: read before a filtered
   * page, it lets the checkpoint pass the positions of the skipped events once the page is short.
   */
  head?: () => Promise<bigint>;
  /** True once the source is closed: the loop then ends. */
  isClosed?: () => boolean;
}

/** Tuning of a {@link CatchUpSubscription}. */
export interface CatchUpConfig {
  /** Events read per page. */
  pageSize: number;
  /** Longest wait between two reads once caught up, in milliseconds (the poll). */
  idleMs: number;
  /** Backoff when the handler rejects or a read fails for another reason than integrity. */
  retry: Required<SubscriptionRetryOptions>;
  logger?: EventStoreLogger;
  /** Called once the loop has ended (the adapter forgets the subscription). */
  onStopped?: (sub: CatchUpSubscription) => void;
}

/** A running catch-up subscription (see the file comment). Start it with {@link CatchUpSubscription.start}. */
export class CatchUpSubscription implements Subscription {
  private readonly tracker: CheckpointTracker;
  private readonly liveSleep = new WakeableSleep();
  private readonly backoffSleep = new WakeableSleep();
  private readonly types?: ReadonlySet<string>;
  private readonly typeList?: readonly string[];
  private readonly onFailure?: (err: EventIntegrityError) => void;
  private stopped = false;
  private loop: Promise<void> = Promise.resolve();
  private failed: EventIntegrityError | undefined;

  constructor(
    private readonly source: CatchUpSource,
    private readonly handler: EventHandler,
    options: SubscribeOptions,
    private readonly config: CatchUpConfig,
  ) {
    this.tracker = new CheckpointTracker(options.after ?? -1n);
    if (options.eventTypes) {
      this.types = new Set(options.eventTypes);
      this.typeList = [...options.eventTypes];
    }
    this.onFailure = options.onFailure;
  }

  /** The integrity error the subscription stopped on, if any. */
  get failure(): EventIntegrityError | undefined {
    return this.failed;
  }

  /** Starts the loop (once). */
  start(): void {
    this.loop = this.run();
  }

  /** New events may exist: read now instead of at the end of the poll interval. */
  wake(): void {
    this.liveSleep.wake();
  }

  /** Stops delivery; resolves once the handler is no longer running. Idempotent. */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.liveSleep.wake();
      this.backoffSleep.wake();
    }
    await this.loop;
  }

  /** Resolves once every event up to `position` is handled (see the port). */
  caughtUpTo(position: bigint): Promise<void> {
    return this.tracker.waitFor(position);
  }

  private async run(): Promise<void> {
    const ctx: DeliveryContext = {
      handler: this.handler,
      retry: this.config.retry,
      logger: this.config.logger,
      sleep: this.backoffSleep,
      isStopped: () => this.stopped,
    };
    let readFailures = 0;
    try {
      while (!this.stopped && !this.source.isClosed?.()) {
        // Forget wake-ups that arrived before this read: the read sees their events.
        this.liveSleep.clearPending();
        let page: StoredEvent[];
        let scannedUpTo = -1n;
        try {
          const head = this.typeList ? this.source.head : undefined;
          if (head && this.typeList) {
            const last = await head();
            page = last > this.tracker.current ? await this.source.readPage(this.tracker.current, this.config.pageSize, this.typeList) : [];
            if (page.length < this.config.pageSize) scannedUpTo = last;
          } else {
            page = await this.source.readPage(this.tracker.current, this.config.pageSize, this.typeList);
          }
          readFailures = 0;
        } catch (err) {
          if (err instanceof EventIntegrityError) {
            // The good events read with the bad one are handled first; the subscription then stops on the bad one.
            if (err.checkedBefore && !(await this.deliverPage(err.checkedBefore, ctx))) return;
            this.fail(err);
            return;
          }
          if (this.stopped || this.source.isClosed?.()) return;
          readFailures++;
          const delay = backoffDelay(readFailures, this.config.retry);
          this.config.logger?.('error', 'subscription read failed; retrying', {
            after: this.tracker.current.toString(),
            attempt: readFailures,
            retryInMs: delay,
            err,
          });
          await this.backoffSleep.sleep(delay);
          continue;
        }
        if (!(await this.deliverPage(page, ctx))) return;
        if (scannedUpTo > this.tracker.current) this.tracker.advance(scannedUpTo);
        if (page.length < this.config.pageSize) await this.liveSleep.sleep(this.config.idleMs);
        // Catching up: let the rest of the process (HTTP requests, other subscriptions) run between full pages.
        else await nextTurn();
      }
    } finally {
      this.tracker.stop();
      this.config.onStopped?.(this);
    }
  }

  /** Delivers a page in order. @returns false when the subscription stopped before the end of the page. */
  private async deliverPage(page: readonly StoredEvent[], ctx: DeliveryContext): Promise<boolean> {
    // Within a page too: at least every SLICE_MS (time-slices.ts), HTTP requests and other subscriptions get a turn.
    const slice = timeSlices();
    for (const event of page) {
      await slice();
      if (this.stopped) return false;
      if (event.position <= this.tracker.current) continue;
      if (this.types && !this.types.has(event.type)) {
        this.tracker.advance(event.position);
        continue;
      }
      if (!(await deliverWithRetry(event, ctx))) return false;
      this.tracker.advance(event.position);
    }
    return true;
  }

  private fail(err: EventIntegrityError): void {
    this.failed = err;
    this.config.logger?.('error', `subscription stopped for good: ${err.message}`, {
      streamId: err.streamId,
      position: err.position.toString(),
      revision: err.revision.toString(),
      eventId: err.eventId,
      reason: err.reason,
      after: this.tracker.current.toString(),
    });
    this.tracker.fail(err);
    try {
      this.onFailure?.(err);
    } catch (callbackErr) {
      this.config.logger?.('warn', 'onFailure callback threw', { err: callbackErr });
    }
  }
}

/** The running subscriptions of one store, woken together and stopped together. */
export class SubscriptionGroup {
  private readonly running = new Set<CatchUpSubscription>();
  private wakeScheduled = false;

  /** Starts a subscription on `source`; it leaves the group when it ends. */
  start(
    source: CatchUpSource,
    handler: EventHandler,
    options: SubscribeOptions,
    config: Omit<CatchUpConfig, 'onStopped'>,
  ): CatchUpSubscription {
    const sub = new CatchUpSubscription(source, handler, options, { ...config, onStopped: (s) => this.running.delete(s) });
    this.running.add(sub);
    sub.start();
    return sub;
  }

  /**
   * Wakes every subscription once per event-loop turn: appends made in the same turn (concurrent
   * commands) are then read by one query per subscription instead of one each.
   */
  wakeSoon(): void {
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      for (const s of this.running) s.wake();
    });
  }

  /** Stops every subscription; resolves once no handler runs any more. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.running].map((s) => s.stop()));
  }
}
