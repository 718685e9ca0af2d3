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
  resolve: (outcome: RelayOutcome | null) => void;
  timer: NodeJS.Timeout;
}

/** One registered wait: its outcome, and how to drop it. */
export interface OutcomeWait {
  /** The outcome, or null when none was recorded within the wait's time. */
  outcome: Promise<RelayOutcome | null>;
  /** Drops this wait (its submission was refused); other waits for the same acceptance go on. */
  cancel(): void;
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
  /** Waits by acceptance ID: two submissions of one signed challenge may wait at once, until one is refused. */
  private readonly waiters = new Map<string, Set<Waiter>>();
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
    for (const waits of this.waiters.values()) for (const waiter of waits) clearTimeout(waiter.timer);
    this.waiters.clear();
  }

  /**
   * Registers a wait for the outcome of `acceptanceId`; call it before appending the submission so that no
   * outcome can slip past. Its outcome resolves with the recorded outcome, or null after `timeoutMs` milliseconds.
   */
  expect(acceptanceId: string, timeoutMs: number): OutcomeWait {
    let waiter!: Waiter;
    const outcome = new Promise<RelayOutcome | null>((resolve) => {
      waiter = { resolve, timer: setTimeout(() => this.settle(acceptanceId, waiter, null), timeoutMs) };
    });
    const waits = this.waiters.get(acceptanceId) ?? new Set<Waiter>();
    waits.add(waiter);
    this.waiters.set(acceptanceId, waits);
    return { outcome, cancel: () => this.settle(acceptanceId, waiter, null) };
  }

  /** Hands over an outcome just recorded (by the relay processor of this process) to every wait for it. */
  recorded(outcome: RelayOutcome): void {
    const waits = this.waiters.get(outcome.data.acceptanceId);
    if (!waits) return;
    for (const waiter of [...waits]) this.settle(outcome.data.acceptanceId, waiter, outcome);
  }

  private settle(acceptanceId: string, waiter: Waiter, outcome: RelayOutcome | null): void {
    const waits = this.waiters.get(acceptanceId);
    if (!waits?.delete(waiter)) return;
    if (waits.size === 0) this.waiters.delete(acceptanceId);
    clearTimeout(waiter.timer);
    waiter.resolve(outcome);
  }

  private fromLog(event: StoredEvent): void {
    if (isEventOf<OutcomeEvent>(event, OUTCOME_TYPES)) this.recorded({ ...event, position: event.position });
  }
}
