import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, WrongExpectedRevisionError, type AppendResult, type EventStore, type ExpectedRevision, type NewEvent, type StoredEvent } from '@svc/event-store';
import type { ProjectionRunner } from '@svc/read-store';
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

  /** Resolves once every projection has applied the log up to `position`. */
  settled(position: bigint): Promise<void> {
    return this.projections.waitFor(position);
  }
}
