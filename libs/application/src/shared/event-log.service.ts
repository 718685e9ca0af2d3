import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_STORE, WrongExpectedRevisionError, type AppendResult, type EventStore, type ExpectedRevision, type NewEvent, type StoredEvent } from '@svc/event-store';
import { ProjectionLagError, type ProjectionRunner } from '@svc/read-store';
import type { DomainEvent } from '@svc/domain';
import { PROJECTION_RUNNER } from '../infrastructure/tokens';

/** A stream loaded for a decision: its events and the revision to append at. */
export interface LoadedStream {
  events: (DomainEvent & { metadata: StoredEvent['metadata'] })[];
  /** `'no_stream'` when the stream does not exist, else the revision of its last event. */
  revision: ExpectedRevision;
}

/**
 * Appends and loads streams for command handlers, and lets a handler wait until the projections have
 * applied what it wrote (read-your-writes for the caller, without sleeping).
 */
@Injectable()
export class EventLog {
  private readonly logger = new Logger('EventLog');

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(PROJECTION_RUNNER) private readonly projections: ProjectionRunner,
  ) {}

  async load(streamId: string): Promise<LoadedStream> {
    const events = await this.store.readStream(streamId);
    return {
      events: events as unknown as LoadedStream['events'],
      revision: events.length === 0 ? 'no_stream' : events[events.length - 1].revision,
    };
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.store.append(streamId, events, expected);
  }

  /**
   * Appends, returning null instead of throwing when the expected revision does not hold
   * (the caller turns that into its own conflict error).
   */
  async tryAppend(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult | null> {
    try {
      return await this.store.append(streamId, events, expected);
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError) return null;
      throw err;
    }
  }

  /**
   * Resolves once every projection has applied the log up to `position`. The write itself is already durable,
   * so a projection that lags beyond the runner's bound is logged rather than turned into an error for a caller
   * whose command succeeded.
   */
  async settled(position: bigint): Promise<void> {
    if (position < 0n) return;
    try {
      await this.projections.waitFor(position);
    } catch (err) {
      if (!(err instanceof ProjectionLagError)) throw err;
      this.logger.warn(`read models lag behind position ${position}: ${err.message}`);
    }
  }
}
