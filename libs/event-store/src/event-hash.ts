/**
 * The hash chain that makes the log tamper-evident (libs/event-store/README.md, "Tamper evidence").
 *
 * An event's hash is SHA-256 over the UTF-8 bytes of the JSON text of an array of strings: a domain tag
 * naming the encoding, then the event's fields in a fixed order, then the hashes of the events it links
 * to (lowercase hex). JSON string escaping makes the encoding unambiguous (no field can run into the next)
 * and easy to recompute in any language. Numbers (position, revision) are written as decimal strings.
 */
import { hash } from 'node:crypto';

/** Hash an event links to when it has no predecessor: 32 zero bytes, as lowercase hex. */
export const GENESIS_HASH = '0'.repeat(64);

/** Domain tag of a SQLite row's hash (global and per-stream links). */
export const SQLITE_ROW_HASH_TAG = 'svc-event-store/sqlite-row/1';
/** Domain tag of an EventStoreDB event's hash (per-stream link only). */
export const STREAM_EVENT_HASH_TAG = 'svc-event-store/stream-event/1';

/** The fields both encodings cover. */
export interface EventContentFields {
  streamId: string;
  revision: bigint;
  id: string;
  type: string;
  /** JSON text of the event data (SQLite: as stored; EventStoreDB: RFC 8785 canonical JSON). */
  data: string;
  /** JSON text of the metadata (SQLite: as stored; EventStoreDB: canonical, reserved keys removed). */
  metadata: string;
}

/** The stored fields of a SQLite row. */
export interface SqliteRowFields extends EventContentFields {
  position: bigint;
  createdAt: string;
  /** Hash of the previous row of the log (by position), or {@link GENESIS_HASH}. */
  prevHash: string;
  /** Hash of the previous row of the same stream (by revision), or {@link GENESIS_HASH}. */
  streamPrevHash: string;
}

/**
 * SHA-256 of a SQLite row: `["svc-event-store/sqlite-row/1", position, streamId, revision, id, type,
 * data, metadata, createdAt, prevHash, streamPrevHash]` as JSON text, UTF-8.
 * @returns the SHA-256, lowercase hex.
 */
export function sqliteRowHash(row: SqliteRowFields): string {
  return hashFields([
    SQLITE_ROW_HASH_TAG,
    row.position.toString(),
    row.streamId,
    row.revision.toString(),
    row.id,
    row.type,
    row.data,
    row.metadata,
    row.createdAt,
    row.prevHash,
    row.streamPrevHash,
  ]);
}

/** The fields of an event in a stream, for backends that assign the global position themselves. */
export interface StreamEventFields extends EventContentFields {
  /** Hash of the previous event of the stream, or {@link GENESIS_HASH}. */
  streamPrevHash: string;
}

/**
 * SHA-256 of a stream event: `["svc-event-store/stream-event/1", streamId, revision, id, type, data,
 * metadata, streamPrevHash]` as JSON text, UTF-8.
 * @returns the SHA-256, lowercase hex.
 */
export function streamEventHash(event: StreamEventFields): string {
  return hashFields([
    STREAM_EVENT_HASH_TAG,
    event.streamId,
    event.revision.toString(),
    event.id,
    event.type,
    event.data,
    event.metadata,
    event.streamPrevHash,
  ]);
}

function hashFields(fields: readonly string[]): string {
  // One-shot hashing (Node >= 20.12): about a third cheaper than createHash() per event.
  return hash('sha256', JSON.stringify(fields), 'hex');
}
