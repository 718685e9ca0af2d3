/**
 * Rows of the SQLite `events` table as read back, and their checks: each row's hash is recomputed from
 * its stored content, and its link is compared with the hash of the row before it. Within a read the
 * row before is the previous row of the result; for the first row it is fetched by one indexed lookup
 * per read, and reads that skip rows (type-filtered subscriptions) carry it in the same statement by a
 * subquery. See libs/event-store/README.md, "Tamper evidence".
 */
import type Database from 'better-sqlite3';
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
export function hashOfRow(row: RowContent, prevHash: string, streamPrevHash: string): string {
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
  /** With {@link selectEvents}' `withLink`: hash of the row this one must link to, NULL when none. */
  link_hash?: unknown;
}

/** Which chain a read checks: the global log (readAll, subscriptions) or one stream (readStream). */
export type ChainLink = 'log' | 'stream';

const COLUMNS =
  'e.position, e.stream_id, e.revision, e.id, e.type, e.data, e.metadata, e.created_at, e.hash, e.prev_hash, e.stream_prev_hash';

const PREDECESSOR: Record<ChainLink, string> = {
  log: 'SELECT p.hash FROM events p WHERE p.position < e.position ORDER BY p.position DESC LIMIT 1',
  stream: 'SELECT p.hash FROM events p WHERE p.stream_id = e.stream_id AND p.revision < e.revision ORDER BY p.revision DESC LIMIT 1',
};

/**
 * `SELECT <every column> FROM events e <rest>`; with `withLink`, also the hash of the row each one must
 * link to in `withLink`'s order, as `link_hash` (for reads whose rows are not adjacent in that order).
 * @param rest the WHERE / ORDER BY / LIMIT clauses (columns qualified with `e.`)
 */
export function selectEvents(rest: string, withLink?: ChainLink): string {
  const link = withLink ? `, (${PREDECESSOR[withLink]}) AS link_hash` : '';
  return `SELECT ${COLUMNS}${link} FROM events e ${rest}`;
}

/** Statements fetching the hash of the row before a given one, in the log or in its stream. */
export interface PredecessorLookups {
  log: Database.Statement<[number | bigint], { hash: unknown }>;
  stream: Database.Statement<[string, number | bigint], { hash: unknown }>;
}

/** Prepares the {@link PredecessorLookups} of `db`. */
export function predecessorLookups(db: Database.Database): PredecessorLookups {
  return {
    log: db.prepare('SELECT hash FROM events WHERE position < ? ORDER BY position DESC LIMIT 1'),
    stream: db.prepare('SELECT hash FROM events WHERE stream_id = ? AND revision < ? ORDER BY revision DESC LIMIT 1'),
  };
}

/**
 * Checks rows read in one statement, in `link`'s order (`descending`: newest first), and returns them
 * as the port serves them, in the order read.
 * @throws EventIntegrityError as {@link checkedRow}, on the first bad row in chain order.
 */
export function checkedRun(
  rows: readonly EventRow[],
  link: ChainLink,
  path: ReadPath,
  lookups: PredecessorLookups,
  descending = false,
): StoredEvent[] {
  const out: StoredEvent[] = new Array(rows.length);
  const oldest = descending ? rows.length - 1 : 0;
  const first = rows[oldest];
  if (!first) return out;
  let previous: unknown =
    (link === 'log' ? lookups.log.get(first.position) : lookups.stream.get(first.stream_id, first.revision))?.hash ?? null;
  for (let k = 0; k < rows.length; k++) {
    const i = descending ? rows.length - 1 - k : k;
    const row = rows[i]!;
    out[i] = checkedRow(row, link, path, previous);
    previous = row.hash;
  }
  return out;
}

/** A stored hash (64 lowercase hex characters); anything else reads as missing. */
function asHash(value: unknown): string | undefined {
  return typeof value === 'string' && value.length === 64 ? value : undefined;
}

/**
 * Checks a row (hash, then link, then schema) and returns it as the port serves it. `linkHash` is the
 * hash of the row before it in `link`'s order (NULL when none; default: the row's `link_hash`).
 * @throws EventIntegrityError 'hash_mismatch' when a hash is missing or the content does not match it,
 *   'broken_link' when its link is not the hash of the row before it in `link`'s order (or the genesis
 *   hash when there is none), 'schema' as {@link decodeEvent}.
 */
export function checkedRow(row: EventRow, link: ChainLink, path: ReadPath, linkHash: unknown = row.link_hash ?? null): StoredEvent {
  const key = { id: row.id, streamId: row.stream_id, revision: BigInt(row.revision), position: BigInt(row.position) };
  const hash = asHash(row.hash);
  const prevHash = asHash(row.prev_hash);
  const streamPrevHash = asHash(row.stream_prev_hash);
  if (!hash || !prevHash || !streamPrevHash) throw integrityError(key, 'hash_mismatch', 'the row carries no valid hash');
  if (hashOfRow(row, prevHash, streamPrevHash) !== hash) throw integrityError(key, 'hash_mismatch', 'the stored content does not match its hash');
  const claimed = link === 'log' ? prevHash : streamPrevHash;
  const actual = linkHash === null ? GENESIS_HASH : asHash(linkHash);
  if (claimed !== actual) {
    const where = link === 'log' ? 'in the log' : 'in the stream';
    throw integrityError(
      key,
      'broken_link',
      `it links to ${claimed} but the event before it ${where} ` +
        (linkHash === null ? 'does not exist' : `has hash ${actual ?? '(invalid)'}`),
    );
  }
  return decodeEvent(
    { ...key, type: row.type, data: parseStoredJson(row.data, key), metadata: parseStoredJson(row.metadata, key) },
    path,
  );
}
