/**
 * The read path shared by both adapters: once a stored event passed its hash checks, its metadata and
 * data are checked against the JSON Schema of the version it was written with, then upcast to the
 * current shape (and checked against that version's schema). Any failure is an EventIntegrityError
 * with reason 'schema': a bad stored event is never served.
 */
import type { EventSchemaRegistry } from './event-schema-registry';
import {
  EventIntegrityError,
  type EventIntegrityReason,
  type EventMetadata,
  type EventUpcaster,
  type StoredEvent,
} from './event-store.port';

/** A stored event whose data and metadata are parsed but not yet checked. */
export interface RawEvent {
  id: string;
  type: string;
  streamId: string;
  revision: bigint;
  /** Global position, `-1n` when the backend did not report it. */
  position: bigint;
  data: unknown;
  metadata: unknown;
}

/** What the read path needs: the schemas and, optionally, the upcaster of the event types. */
export interface ReadPath {
  schemas: EventSchemaRegistry;
  /** Brings older schema versions to the current shape; without it events are served as stored. */
  upcast?: EventUpcaster;
}

/** Builds the EventIntegrityError of `event` (fields as stored). */
export function integrityError(
  event: { id: string; streamId: string; revision: bigint; position: bigint },
  reason: EventIntegrityReason,
  detail: string,
): EventIntegrityError {
  return new EventIntegrityError(event.streamId, event.position, event.revision, event.id, reason, detail);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a stored event against its schema version, upcasts it, and returns it as the port serves it
 * (`metadata.schemaVersion` is then the version of the returned data).
 * @throws EventIntegrityError (reason 'schema') when the metadata or data do not satisfy their schema,
 *   when no upcast path exists, or when the upcast data do not satisfy the newer schema.
 */
export function decodeEvent(raw: RawEvent, path: ReadPath): StoredEvent {
  let data: Record<string, unknown>;
  let metadata: EventMetadata;
  try {
    const stored: unknown = raw.metadata;
    path.schemas.validateMetadata(raw.type, stored);
    path.schemas.validate(raw.type, stored.schemaVersion, raw.data);
    if (!isRecord(raw.data)) throw new Error('data must be a JSON object');
    data = raw.data;
    metadata = stored;
  } catch (err) {
    throw integrityError(raw, 'schema', err instanceof Error ? err.message : String(err));
  }
  return upcastStored({ id: raw.id, type: raw.type, data, metadata, streamId: raw.streamId, revision: raw.revision, position: raw.position }, path);
}

/**
 * Brings an event checked against its stored schema version to the current shape with `path.upcast` (itself when
 * there is none, or when it is current already); the upcast data are checked against the newer schema.
 * @throws EventIntegrityError (reason 'schema') when no upcast path exists or the upcast data do not satisfy it.
 */
export function upcastStored(event: StoredEvent, path: ReadPath): StoredEvent {
  if (!path.upcast) return event;
  try {
    const up = path.upcast(event.type, event.metadata.schemaVersion, event.data, event.metadata);
    if (up.schemaVersion === event.metadata.schemaVersion && up.data === event.data) return event;
    if (up.schemaVersion !== event.metadata.schemaVersion) path.schemas.validate(event.type, up.schemaVersion, up.data);
    const metadata = up.schemaVersion === event.metadata.schemaVersion ? event.metadata : { ...event.metadata, schemaVersion: up.schemaVersion };
    return { ...event, data: up.data, metadata };
  } catch (err) {
    throw integrityError(event, 'schema', err instanceof Error ? err.message : String(err));
  }
}

/**
 * Parses stored JSON text.
 * @throws EventIntegrityError (reason 'schema') when it is not valid JSON.
 */
export function parseStoredJson(text: string, event: { id: string; streamId: string; revision: bigint; position: bigint }): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw integrityError(event, 'schema', `stored JSON is not valid: ${(err as Error).message}`);
  }
}
