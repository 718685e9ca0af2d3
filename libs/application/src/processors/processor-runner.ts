import { Logger } from '@nestjs/common';
import type { DomainEvent } from '@svc/domain';
import type { EventIntegrityError, EventStore, StoredEvent, Subscription } from '@svc/event-store';
import type { ReadStore } from '@svc/read-store';
import { isEventOf } from '../shared/stored-events';
import type { Processor } from './processor';

/** Tuning of {@link ProcessorRunner}. */
export interface ProcessorRunnerOptions {
  /** Delay before retrying a rejected `handle`, doubling up to `maxRetryDelayMs`; default 200 ms. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Save the checkpoint at most this often, in milliseconds; default 200. */
  checkpointDelayMs?: number;
}

/** A processor that stopped on a stored event it cannot read (tampered or invalid). */
export interface ProcessorFault {
  processor: string;
  streamId: string;
  position: string;
  reason: string;
}

/** Checkpoint key of a processor in the read store. */
export const processorCheckpointKey = (name: string) => `processor.${name}`;

/**
 * Runs one processor from the event log: a subscription from its stored checkpoint delivers the processor's
 * event types in log order; up to `concurrency` events are handled at once (same key: one after the other);
 * the checkpoint is the position below which every delivered event is handled, so a crash replays only
 * unfinished or unsaved work. A stored event that fails its hash or schema stops the processor loudly.
 */
export class ProcessorRunner<E extends DomainEvent> {
  private readonly logger: Logger;
  private subscription: Subscription | undefined;
  private readonly inFlight = new Map<bigint, Promise<void>>();
  private readonly tails = new Map<string, Promise<void>>();
  private delivered = -1n;
  private saved = -1n;
  private saveTimer: NodeJS.Timeout | undefined;
  private saving: Promise<void> = Promise.resolve();
  private slotFreed: (() => void) | undefined;
  private stopped = false;
  /** Lowest position of an event whose handler gave up because the runner stopped: the checkpoint stays below it. */
  private unfinished: bigint | undefined;
  private fault: ProcessorFault | undefined;

  constructor(
    private readonly processor: Processor<E>,
    private readonly store: EventStore,
    private readonly checkpoints: ReadStore,
    private readonly options: ProcessorRunnerOptions = {},
  ) {
    this.logger = new Logger(`Processor ${processor.name}`);
  }

  get name(): string {
    return this.processor.name;
  }

  /** Set once the processor stopped on an unreadable stored event. */
  get failure(): ProcessorFault | undefined {
    return this.fault;
  }

  async start(): Promise<void> {
    const checkpoint = await this.checkpoints.getCheckpoint(processorCheckpointKey(this.processor.name));
    this.delivered = this.saved = checkpoint ?? -1n;
    this.subscription = this.store.subscribeToAll((event) => this.deliver(event), {
      after: checkpoint ?? undefined,
      eventTypes: this.processor.eventTypes,
      onFailure: (err: EventIntegrityError) => this.onFailure(err),
    });
  }

  /** Stops delivery, waits for the events in hand, and saves the checkpoint. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.processor.stop?.();
    this.slotFreed?.();
    await this.subscription?.stop();
    await Promise.allSettled([...this.inFlight.values()]);
    clearTimeout(this.saveTimer);
    await this.saveCheckpoint();
  }

  /** Resolves once every event up to `position` is delivered and handled. */
  async caughtUpTo(position: bigint): Promise<void> {
    await this.subscription?.caughtUpTo(position);
    await Promise.all([...this.inFlight.entries()].filter(([p]) => p <= position).map(([, done]) => done));
  }

  private async deliver(event: StoredEvent): Promise<void> {
    while (this.inFlight.size >= this.processor.concurrency && !this.stopped) {
      await new Promise<void>((resolve) => (this.slotFreed = resolve));
    }
    if (this.stopped) throw new Error('processor stopped');
    this.delivered = event.position;
    if (!isEventOf<E>(event, this.processor.eventTypes)) {
      this.scheduleSave();
      return;
    }
    const key = this.processor.key(event);
    const previous = this.tails.get(key) ?? Promise.resolve();
    const done = previous.then(() => this.runWithRetry(event)).finally(() => {
      this.inFlight.delete(event.position);
      if (this.tails.get(key) === done) this.tails.delete(key);
      const wake = this.slotFreed;
      this.slotFreed = undefined;
      wake?.();
      this.scheduleSave();
    });
    this.tails.set(key, done);
    this.inFlight.set(event.position, done);
  }

  private async runWithRetry(event: Parameters<Processor<E>['handle']>[0]): Promise<void> {
    let delay = this.options.retryDelayMs ?? 200;
    const maxDelay = this.options.maxRetryDelayMs ?? 30_000;
    for (;;) {
      try {
        await this.processor.handle(event);
        return;
      } catch (err) {
        if (this.stopped) {
          // Not handled: a restart must deliver it again.
          if (this.unfinished === undefined || event.position < this.unfinished) this.unfinished = event.position;
          return;
        }
        this.logger.warn(`event ${event.type} at position ${event.position} (stream ${event.streamId}): ${(err as Error).message}; retrying in ${delay} ms`);
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(maxDelay, delay * 2);
      }
    }
  }

  /** The position below which every delivered event is handled. */
  private safePosition(): bigint {
    let lowest: bigint | undefined;
    for (const position of this.inFlight.keys()) if (lowest === undefined || position < lowest) lowest = position;
    if (this.unfinished !== undefined && (lowest === undefined || this.unfinished < lowest)) lowest = this.unfinished;
    return lowest === undefined ? this.delivered : lowest - 1n;
  }

  private scheduleSave(): void {
    if (this.saveTimer || this.stopped) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.saveCheckpoint();
    }, this.options.checkpointDelayMs ?? 200);
  }

  private saveCheckpoint(): Promise<void> {
    this.saving = this.saving.then(async () => {
      const position = this.safePosition();
      if (position <= this.saved) return;
      try {
        await this.checkpoints.saveCheckpoint(processorCheckpointKey(this.processor.name), position);
        this.saved = position;
      } catch (err) {
        this.logger.warn(`checkpoint not saved: ${(err as Error).message}`);
      }
    });
    return this.saving;
  }

  private onFailure(err: EventIntegrityError): void {
    this.fault = { processor: this.processor.name, streamId: err.streamId, position: String(err.position), reason: err.reason };
    this.logger.error(`stopped: stored event at position ${err.position} of stream ${err.streamId} is unreadable (${err.reason}): ${err.message}`);
  }
}
