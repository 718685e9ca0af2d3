import type { DomainEvent, DomainEventType } from '@svc/domain';
import type { StoredDomainEvent } from '../shared/stored-events';

/**
 * A reaction to events of the log (docs/architecture.md "Processors"): one file per reaction, named
 * "<Do>When<Event>". It runs from a checkpointed subscription (catch-up, then live), at least once per event:
 * `handle` must be idempotent on the event (deciders make the recorded steps no-ops when already done).
 */
export interface Processor<E extends DomainEvent = DomainEvent> {
  /** Stable name; the checkpoint is stored under `processor.<name>`. */
  readonly name: string;
  readonly eventTypes: readonly E['type'][];
  /**
   * Events handled at once (a window over the log; the checkpoint never passes an unfinished event). Events
   * with the same {@link key} are handled one after the other.
   */
  readonly concurrency: number;
  /** Orders events that must not run concurrently (e.g. the stream they concern). */
  key(event: StoredDomainEvent<E>): string;
  /**
   * Reacts to one event. Domain outcomes (a refused transaction) are recorded as events, not thrown; a
   * rejection means "try again later" (ledger unreachable…) and is retried with backoff, never skipped.
   */
  handle(event: StoredDomainEvent<E>): Promise<void>;
  /** Called first when the runner stops: end long waits so that handlers in hand return promptly. */
  stop?(): void;
}

/** Event type names of a processor, for the subscription filter. */
export function processorTypes(processor: Processor<DomainEvent>): readonly DomainEventType[] {
  return processor.eventTypes;
}
