import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EventOf } from '@svc/domain';
import { EVENT_STORE, type EventStore, type StoredEvent, type Subscription } from '@svc/event-store';
import { INFRA_OPTIONS } from '../infrastructure/tokens';
import { isEventOf } from './stored-events';

type OutcomeEvent = EventOf<'AcceptanceRelayed'> | EventOf<'AcceptanceRelayFailed'>;
const OUTCOME_TYPES = ['AcceptanceRelayed', 'AcceptanceRelayFailed'] as const satisfies readonly OutcomeEvent['type'][];

/** A relay outcome as recorded in the log, with its global position. */
export type RelayOutcome = OutcomeEvent & { position: bigint };

interface Waiter {
  resolve: (outcome: RelayOutcome) => void;
  timer: NodeJS.Timeout;
}

/**
 * Lets a submit request wait for the relay processor's outcome (direct mode answers `confirmed` with the
 * transaction). Where the processors run in this process, the relay processor hands each outcome over as soon as
 * it is recorded; in an API replica beside a worker (`RUN_PROJECTIONS=false`), a live subscription to the log's
 * outcome events feeds the waiters instead.
 */
@Injectable()
export class RelayOutcomes implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RelayOutcomes');
  private readonly waiters = new Map<string, Waiter>();
  private subscription: Subscription | undefined;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(INFRA_OPTIONS) private readonly options: { runProjections: boolean },
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.options.runProjections) return;
    const head = await this.store.headPosition();
    this.subscription = this.store.subscribeToAll(async (event) => this.fromLog(event), {
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
   * outcome can slip past. Resolves with the outcome, or null after `timeoutMs` milliseconds.
   */
  expect(acceptanceId: string, timeoutMs: number): Promise<RelayOutcome | null> {
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

  /** Hands over an outcome just recorded (by the relay processor of this process). */
  recorded(outcome: RelayOutcome): void {
    const waiter = this.waiters.get(outcome.data.acceptanceId);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.waiters.delete(outcome.data.acceptanceId);
    waiter.resolve(outcome);
  }

  private fromLog(event: StoredEvent): void {
    if (isEventOf<OutcomeEvent>(event, OUTCOME_TYPES)) this.recorded({ ...event, position: event.position });
  }
}
