/**
 * Typed projections: a handler map keyed by domain event type, each handler receiving the stored event
 * with its data typed by that type, and the one mapper through which stored events reach the handlers.
 */
import { EVENT_TYPES, type DataOf, type DomainEventType } from '@svc/domain';
import type { StoredEvent } from '@svc/event-store';
import type { IndexSpec, Projection, ReadStore } from '@svc/read-store';

/** A stored event of domain type `T` (a union over `T`), its `data` typed by the type. */
export type StoredDomainEvent<T extends DomainEventType = DomainEventType> = { [K in T]: StoredEvent<K, DataOf<K>> }[T];

/** One handler per handled event type. */
export type ProjectionHandlers = {
  [T in DomainEventType]?: (event: StoredDomainEvent<T>, store: ReadStore) => Promise<void>;
};

const KNOWN_TYPES: ReadonlySet<string> = new Set<string>(EVENT_TYPES);

/**
 * Whether a stored event is a domain event. The event store checks every event against the JSON Schema
 * of its type and version on read (upcasting older versions), so an event of a known type has that
 * type's data shape: this is the single place where that guarantee becomes a static type.
 */
function isDomainEvent(event: StoredEvent<string, unknown>): event is StoredDomainEvent {
  return KNOWN_TYPES.has(event.type);
}

/** The typed view of a stored event, or undefined for a type the domain does not know. */
export function toDomainEvent(event: StoredEvent<string, unknown>): StoredDomainEvent | undefined {
  return isDomainEvent(event) ? event : undefined;
}

function dispatch<T extends DomainEventType>(handlers: ProjectionHandlers, type: T, event: StoredDomainEvent<T>, store: ReadStore): Promise<void> {
  const handler = handlers[type];
  return handler ? handler(event, store) : Promise.resolve();
}

export interface ProjectionDefinition {
  name: string;
  version: number;
  /** Collections written, with their indexes (see `Projection.indexes`). */
  indexes: Record<string, IndexSpec[]>;
  /** Collections of earlier versions, removed once this version is complete (see `Projection.retiredCollections`). */
  retiredCollections?: readonly string[];
  handlers: ProjectionHandlers;
}

/**
 * Builds the runner's `Projection` from a typed handler map: `eventTypes` are the map's keys, and
 * `handle` maps the stored event through {@link toDomainEvent} and calls the handler of its type.
 */
export function defineProjection(definition: ProjectionDefinition): Projection {
  const { handlers } = definition;
  return {
    name: definition.name,
    version: definition.version,
    indexes: definition.indexes,
    retiredCollections: definition.retiredCollections,
    eventTypes: EVENT_TYPES.filter((type) => handlers[type] !== undefined),
    handle(stored: StoredEvent, store: ReadStore): Promise<void> {
      const event = toDomainEvent(stored);
      return event ? dispatch(handlers, event.type, event, store) : Promise.resolve();
    },
  };
}
