import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EventOf } from '@svc/domain';
import { EVENT_STORE, type EventStore, type StoredEvent, type Subscription } from '@svc/event-store';
import { isEventOf, type StoredDomainEvent } from '@svc/application';

type Outcome = EventOf<'AcceptanceRelayed'> | EventOf<'AcceptanceRelayFailed'>;
const OUTCOME_TYPES = ['AcceptanceRelayed', 'AcceptanceRelayFailed'] as const satisfies readonly Outcome['type'][];

interface Waiter {
  resolve: (event: StoredDomainEvent<Outcome>) => void;
  timer: NodeJS.Timeout;
}

/**
 * Lets a submit request wait for the relay processor's outcome (direct mode answers `confirmed` with the
 * transaction). A live subscription to the log's outcome events from this process's start feeds the waiters, so
 * it works whether the processor runs in this process or in a worker.
 */
@Injectable()
export class RelayOutcomes implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RelayOutcomes');
  private readonly waiters = new Map<string, Waiter>();
  private subscription: Subscription | undefined;

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async onModuleInit(): Promise<void> {
    const head = await this.store.headPosition();
    this.subscription = this.store.subscribeToAll(async (event) => this.deliver(event), {
      after: head,
      eventTypes: OUTCOME_TYPES,
      onFailure: (err) => this.logger.error(`stopped on an unreadable stored event: ${err.message}`),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
    for (const waiter of this.waiters.values()) clearTimeout(waiter.timer);
    this.waiters.clear();
  }

  /**
   * Registers a wait for the outcome of `acceptanceId`; call it before appending the submission so that no
   * outcome can slip past. Resolves with the outcome event, or null after `timeoutMs`.
   */
  expect(acceptanceId: string, timeoutMs: number): Promise<StoredDomainEvent<Outcome> | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(acceptanceId);
        resolve(null);
      }, timeoutMs);
      this.waiters.set(acceptanceId, { resolve, timer });
    });
  }

  /** Drops a wait registered by {@link expect} (the submission was refused). */
  cancel(acceptanceId: string): void {
    const waiter = this.waiters.get(acceptanceId);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.waiters.delete(acceptanceId);
  }

  private deliver(event: StoredEvent): void {
    if (!isEventOf<Outcome>(event, OUTCOME_TYPES)) return;
    const waiter = this.waiters.get(event.data.acceptanceId);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.waiters.delete(event.data.acceptanceId);
    waiter.resolve(event);
  }
}
