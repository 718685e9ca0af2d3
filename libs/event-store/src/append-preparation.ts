/** Validation and serialization of an append's events, before any write (shared by the SQLite store's paths). */
import { randomUUID } from 'node:crypto';
import type { EventSchemaRegistry } from './event-schema-registry';
import { EventSchemaError, type NewEvent } from './event-store.port';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An event checked and serialized for its row. */
export interface PreparedEvent {
  id: string;
  type: string;
  data: string;
  metadata: string;
  /** Whether the caller gave the id (only those can make an append idempotent). */
  callerId: boolean;
}

/**
 * Checks every event against its JSON Schema and serializes it; an event without an id gets a random UUID.
 * @throws EventSchemaError when an event, its metadata, or its id (which must be a UUID) is invalid.
 * @throws Error when `streamId` is empty or there is no event.
 */
export function prepareAppend(streamId: string, events: readonly NewEvent[], schemas: EventSchemaRegistry): PreparedEvent[] {
  if (typeof streamId !== 'string' || streamId.length === 0) throw new Error('streamId must be a non-empty string');
  if (events.length === 0) throw new Error(`append to ${streamId}: no events`);
  const prepared: PreparedEvent[] = new Array(events.length);
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    schemas.validateEvent(e);
    if (e.id !== undefined && !UUID.test(e.id)) throw new EventSchemaError(e.type, `id must be a UUID, got ${JSON.stringify(e.id)}`);
    prepared[i] = { id: e.id ?? randomUUID(), type: e.type, data: JSON.stringify(e.data), metadata: JSON.stringify(e.metadata), callerId: e.id !== undefined };
  }
  return prepared;
}
