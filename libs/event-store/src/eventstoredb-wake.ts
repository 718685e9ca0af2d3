/**
 * Wake-up source of the EventStoreDB adapter's subscriptions: one live subscription to `$all` (from the
 * end, system events excluded) whose only job is to say "something was appended", so that subscriptions
 * of every process read their next page at once. Events are read, checked and delivered through the
 * page reader, never from this stream. When the live subscription drops it is reopened with backoff;
 * meanwhile the subscriptions' poll still finds new events.
 */
import { END, excludeSystemEvents, type AllStreamSubscription, type EventStoreDBClient } from '@eventstore/db-client';
import type { EventStoreLogger, SubscriptionRetryOptions } from './event-store.port';
import { WakeableSleep, backoffDelay } from './subscription-support';

/** Calls `onAppend` for every event appended to `$all` while running (see the file comment). */
export class EsdbLiveWake {
  private running = false;
  private current: AllStreamSubscription | undefined;
  private readonly backoffSleep = new WakeableSleep();
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly onAppend: () => void,
    private readonly retry: Required<SubscriptionRetryOptions>,
    private readonly logger?: EventStoreLogger,
  ) {}

  /** Opens the live subscription (no-op when running). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Closes it; resolves once the loop has ended. Idempotent. */
  async stop(): Promise<void> {
    if (this.running) {
      this.running = false;
      this.backoffSleep.wake();
      await this.closeCurrent();
    }
    await this.loop;
  }

  private async closeCurrent(): Promise<void> {
    const sub = this.current;
    this.current = undefined;
    if (!sub || sub.destroyed) return;
    await sub.unsubscribe().catch(() => undefined);
    // Ends a pending `for await` (the client does not end the readable on cancel).
    sub.destroy();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      const sub = this.client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
      this.current = sub;
      try {
        for await (const _ of sub) {
          failures = 0;
          this.onAppend();
        }
        if (this.running) throw new Error('live subscription ended by the server');
      } catch (err) {
        if (!this.running) break;
        failures++;
        const delay = backoffDelay(failures, this.retry);
        this.logger?.(failures >= 5 ? 'error' : 'warn', 'live subscription to $all dropped; reopening (polling meanwhile)', {
          attempt: failures,
          retryInMs: delay,
          err,
        });
        await this.closeCurrent();
        await this.backoffSleep.sleep(delay);
      }
    }
    await this.closeCurrent();
  }
}
