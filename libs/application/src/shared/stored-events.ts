import { EVENT_TYPES, type DomainEvent, type DomainEventType } from '@svc/domain';
import type { StoredEvent } from '@svc/event-store';

/** A stored event of the service's own union, typed by its `type`. */
export type StoredDomainEvent<E extends DomainEvent = DomainEvent> = StoredEvent & E;

const KNOWN: ReadonlySet<string> = new Set<string>(EVENT_TYPES);

/**
 * The one mapper from the store's records to the domain union. The event store validated `data` against the
 * JSON Schema of its type on read (event-schemas/), so a known `type` guarantees the shape of `data`.
 */
export function isDomainEvent(event: StoredEvent): event is StoredDomainEvent {
  return KNOWN.has(event.type);
}

/** Narrows a stored event to some event types (e.g. those a decider's stream or a processor handles). */
export function isEventOf<E extends DomainEvent>(event: StoredEvent, types: readonly E['type'][]): event is StoredDomainEvent<E> {
  return (types as readonly string[]).includes(event.type);
}

/** Type names as plain strings, for subscription filters. */
export function typeNames(types: readonly DomainEventType[]): readonly string[] {
  return types;
}
