/**
 * Rows of the SQLite `events` table as read back, and their checks: each row's hash is recomputed from
 * its stored content, and its link is compared with the hash of the row before it (carried in the same
 * query by a subquery on the primary key or on the (stream_id, revision) index, so a read costs no
 * extra statement per row or per page). See libs/event-store/README.md, "Tamper evidence".
 */
import { decodeEvent, integrityError, parseStoredJson, type ReadPath } from './event-decoding';
import { GENESIS_HASH, sqliteRowHash } from './event-hash';
import type { StoredEvent } from './event-store.port';

/** The stored columns a row's hash covers (besides its links). */
export interface RowContent {
  position: number | bigint;
  stream_id: string;
  revision: number | bigint;
  id: string;
  type: string;
  data: string;
  metadata: string;
  created_at: string;
}

/** The hash of a row with the given links ({@link sqliteRowHash} over its columns). */
export function hashOfRow(row: RowContent, prevHash: Buffer, streamPrevHash: Buffer): Buffer {
  return sqliteRowHash({
    position: BigInt(row.position),
    streamId: row.stream_id,
    revision: BigInt(row.revision),
    id: row.id,
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    createdAt: row.created_at,
    prevHash,
    streamPrevHash,
  });
}

/** A row as selected by {@link selectEvents}. */
export interface EventRow extends RowContent {
  hash: unknown;
  prev_hash: unknown;
  stream_prev_hash: unknown;
  /** Hash of the row this one must link to (previous in the log or in the stream), NULL when none. */
  link_hash: unknown;
}

/** Which chain a read checks: the global log (readAll, subscriptions) or one stream (readStream). */
export type ChainLink = 'log' | 'stream';

const LINK_SUBQUERY: Record<ChainLink, string> = {
  log: '(SELECT p.hash FROM events p WHERE p.position < e.position ORDER BY p.position DESC LIMIT 1)',
  stream:
    '(SELECT p.hash FROM events p WHERE p.stream_id = e.stream_id AND p.revision < e.revision ORDER BY p.revision DESC LIMIT 1)',
};

/**
 * `SELECT <every column>, <link hash> AS link_hash FROM events e <rest>`: the row columns plus the hash
 * of the row it must link to for `link`.
 * @param rest the WHERE / ORDER BY / LIMIT clauses (columns qualified with `e.`)
 */
export function selectEvents(link: ChainLink, rest: string): string {
  return (
    'SELECT e.position, e.stream_id, e.revision, e.id, e.type, e.data, e.metadata, e.created_at, ' +
    `e.hash, e.prev_hash, e.stream_prev_hash, ${LINK_SUBQUERY[link]} AS link_hash FROM events e ${rest}`
  );
}

function asHash(value: unknown): Buffer | undefined {
  return Buffer.isBuffer(value) && value.length === 32 ? value : undefined;
}

/**
 * Checks a row (hash, then link, then schema) and returns it as the port serves it.
 * @throws EventIntegrityError 'hash_mismatch' when a hash is missing or the content does not match it,
 *   'broken_link' when its link is not the hash of the row before it in `link`'s order (or the genesis
 *   hash when there is none), 'schema' as {@link decodeEvent}.
 */
export function checkedRow(row: EventRow, link: ChainLink, path: ReadPath): StoredEvent {
  const key = { id: row.id, streamId: row.stream_id, revision: BigInt(row.revision), position: BigInt(row.position) };
  const hash = asHash(row.hash);
  const prevHash = asHash(row.prev_hash);
  const streamPrevHash = asHash(row.stream_prev_hash);
  if (!hash || !prevHash || !streamPrevHash) throw integrityError(key, 'hash_mismatch', 'the row carries no valid hash');
  if (!hashOfRow(row, prevHash, streamPrevHash).equals(hash)) throw integrityError(key, 'hash_mismatch', 'the stored content does not match its hash');
  const claimed = link === 'log' ? prevHash : streamPrevHash;
  const actual = row.link_hash === null ? GENESIS_HASH : asHash(row.link_hash);
  if (!actual || !claimed.equals(actual)) {
    const where = link === 'log' ? 'in the log' : 'in the stream';
    throw integrityError(
      key,
      'broken_link',
      `it links to ${claimed.toString('hex')} but the event before it ${where} ` +
        (row.link_hash === null ? 'does not exist' : `has hash ${actual ? actual.toString('hex') : '(invalid)'}`),
    );
  }
  return decodeEvent(
    { ...key, type: row.type, data: parseStoredJson(row.data, key), metadata: parseStoredJson(row.metadata, key) },
    path,
  );
}
