/**
 * Rows of the SQLite `events` table as read back, and their checks: each row's hash is recomputed from
 * its stored content, and its link is compared with the hash of the row before it. Within a read the
 * row before is the previous row of the result; for the first row it is fetched by one indexed lookup
 * per read, and reads that skip rows (type-filtered subscriptions) carry it in the same statement by a
 * subquery. Every row is also checked against the row after it in the log, which must link to it: a row edited
 * with its own hash recomputed, or the row after a removed one, is refused by whoever reads it, not only by a
 * reader of the next row. See libs/event-store/README.md, "Tamper evidence".
 */
import type Database from 'better-sqlite3';
import { decodeEvent, integrityError, parseStoredJson, type ReadPath } from './event-decoding';
import { GENESIS_HASH, sqliteRowHash } from './event-hash';
import { EventIntegrityError, MAX_INTEGRITY_FAULTS, type StoredEvent } from './event-store.port';

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
  /**
   * The `prev_hash` of the next row of the log (`''` when that row has none), NULL when this row is the head; absent
   * when the statement did not select it (forward reads of the log, which look it up for their last row only).
   */
  next_link?: unknown;
}

/** Which chain a read checks: the global log (readAll, subscriptions) or one stream (readStream). */
export type ChainLink = 'log' | 'stream';

const COLUMNS =
  'e.position, e.stream_id, e.revision, e.id, e.type, e.data, e.metadata, e.created_at, e.hash, e.prev_hash, e.stream_prev_hash';

/** The link the next row of the log claims (a primary-key seek per row). */
const SUCCESSOR_LINK = "(SELECT IFNULL(n.prev_hash, '') FROM events n WHERE n.position > e.position ORDER BY n.position ASC LIMIT 1) AS next_link";

const PREDECESSOR: Record<ChainLink, string> = {
  log: 'SELECT p.hash FROM events p WHERE p.position < e.position ORDER BY p.position DESC LIMIT 1',
  stream: 'SELECT p.hash FROM events p WHERE p.stream_id = e.stream_id AND p.revision < e.revision ORDER BY p.revision DESC LIMIT 1',
};

/**
 * `SELECT <every column> FROM events e <rest>`, with the link the next row of the log claims (`next_link`); with
 * `withLink`, also the hash of the row each one must link to in `withLink`'s order, as `link_hash` (for reads
 * whose rows are not adjacent in that order).
 * @param rest the WHERE / ORDER BY / LIMIT clauses (columns qualified with `e.`)
 */
export function selectEvents(rest: string, withLink?: ChainLink): string {
  const link = withLink ? `, (${PREDECESSOR[withLink]}) AS link_hash` : '';
  return `SELECT ${COLUMNS}, ${SUCCESSOR_LINK}${link} FROM events e ${rest}`;
}

/** `SELECT <every column> FROM events e <rest>`, nothing more: for reads that check adjacent rows of the log only. */
export function selectChainColumns(rest: string): string {
  return `SELECT ${COLUMNS} FROM events e ${rest}`;
}

/** Statements fetching the hash of the row before a given one, in the log or in its stream. */
export interface PredecessorLookups {
  log: Database.Statement<[number | bigint], { hash: unknown }>;
  stream: Database.Statement<[string, number | bigint], { hash: unknown }>;
  /** The link the next row of the log after a position claims (`link`: `''` when it has none). */
  next: Database.Statement<[number | bigint], { link: unknown }>;
}

/** Prepares the {@link PredecessorLookups} of `db`. */
export function predecessorLookups(db: Database.Database): PredecessorLookups {
  return {
    log: db.prepare('SELECT hash FROM events WHERE position < ? ORDER BY position DESC LIMIT 1'),
    stream: db.prepare('SELECT hash FROM events WHERE stream_id = ? AND revision < ? ORDER BY revision DESC LIMIT 1'),
    next: db.prepare("SELECT IFNULL(prev_hash, '') AS link FROM events WHERE position > ? ORDER BY position ASC LIMIT 1"),
  };
}

/**
 * Checks rows read in one statement, in `link`'s order (`descending`: newest first), and returns them
 * as the port serves them, in the order read.
 * @throws EventIntegrityError as {@link checkedRow}, on the first bad row in chain order; in ascending order its
 *   `checkedBefore` holds the rows of the read that precede it, checked (a subscription applies them first).
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
  let k = 0;
  try {
    for (; k < rows.length; k++) {
      const i = descending ? rows.length - 1 - k : k;
      const row = rows[i]!;
      out[i] = checkedRow(row, link, path, previous);
      previous = row.hash;
    }
    // Then the link from the next row of the log: within a forward read of the log the next row is the next one
    // read, already checked above, so only the last row needs it.
    for (k = link === 'log' && !descending ? rows.length - 1 : 0; k < rows.length; k++) {
      const row = rows[descending ? rows.length - 1 - k : k]!;
      if (row.next_link === undefined) row.next_link = lookups.next.get(row.position)?.link ?? null;
      checkSuccessorLink(row);
    }
  } catch (err) {
    // A row k that fails its hash or its link also puts row k - 1 in doubt: k - 1 may be the edited one, its hash
    // recomputed, and only k's link vouched for it (a link is worth nothing once k's own hash fails: it may have been
    // rewritten to match). Only a schema fault, in a row whose hash and link hold, leaves k - 1 good.
    const good = err instanceof EventIntegrityError && err.reason !== 'schema' && k < rows.length && out[k] === undefined ? k - 1 : k;
    if (!descending && good > 0 && err instanceof EventIntegrityError) err.checkedBefore = out.slice(0, good);
    throw err;
  }
  return out;
}

/**
 * Checks that the next row of the log links to `row` (which passed {@link checkedRow}): a row edited with its own
 * hash recomputed, or a row after it removed or replaced, shows there. The newest row of the log has no such check
 * (README "Limits").
 * @throws EventIntegrityError 'broken_link' at `row`.
 */
export function checkSuccessorLink(row: EventRow): void {
  const next = row.next_link;
  if (next === null || next === undefined || next === row.hash) return;
  throw integrityError(
    { id: row.id, streamId: row.stream_id, revision: BigInt(row.revision), position: BigInt(row.position) },
    'broken_link',
    `the event after it in the log links to ${asHash(next) ?? '(no valid hash)'}, not to this event's hash ${String(row.hash)}: ` +
      'this event was changed with its hash recomputed, or the event after it was removed, inserted or replaced',
  );
}

/**
 * Checks adjacent rows of the log, in position order, by hash and link only ({@link checkRowChain}), page after page.
 * A row counts as good once the row after it links to it (or it is the last row checked, {@link finish}): a row
 * edited with its own hash recomputed shows only in the next row's link, so the row before a broken link is never
 * counted. A bad row does not end the check: the next row is checked against the bad row's stored hash, so every
 * edit, removal or insertion further on is found as well, each where it is.
 */
export class LogChainCheck {
  /** Rows found good. */
  checked = 0;
  /** Position of the last row found good (`-1n`: none). */
  through = -1n;
  /** The bad rows found so far, in log order. */
  readonly faults: EventIntegrityError[] = [];
  private pending: bigint | null = null;

  /** @param previous the hash of the row before the first one fed (null: the first is the first of the log). */
  constructor(private previous: unknown) {}

  /**
   * Checks the next rows, up to the row that makes {@link MAX_INTEGRITY_FAULTS} faults (as many as readiness lists; a
   * log that bad needs restoring, not a longer list). @returns whether to go on.
   */
  feed(rows: readonly EventRow[]): boolean {
    for (const row of rows) {
      try {
        checkRowChain(row, 'log', this.previous);
        this.confirmPending();
        this.pending = BigInt(row.position);
      } catch (err) {
        if (!(err instanceof EventIntegrityError)) throw err;
        // A row failing its hash or its link puts the row before it in doubt too: only this row's link vouched for
        // it, and that link is worth nothing now (checkedRun).
        this.pending = null;
        this.faults.push(err);
        if (this.faults.length >= MAX_INTEGRITY_FAULTS) return false;
      }
      this.previous = row.hash;
    }
    return true;
  }

  /** The last row fed was the last to check: nothing after it vouches for it (README "Limits"). */
  finish(): void {
    this.confirmPending();
  }

  private confirmPending(): void {
    if (this.pending === null) return;
    this.checked++;
    this.through = this.pending;
    this.pending = null;
  }
}

/**
 * Checks the chain of the log of `db` from its first row up to position `upTo`, a page of `pageSize` rows at a time
 * ({@link LogChainCheck}), yielding the check after each page so that the caller paces it (a worker thread sleeps, the
 * event loop takes a turn) and reports progress and faults as they are found.
 * @returns the bad rows found (none: every row up to `upTo` is good), at most {@link MAX_INTEGRITY_FAULTS}; the check
 *   stops at the last of those.
 */
export function* checkLogChain(db: Database.Database, upTo: bigint, pageSize: number): Generator<LogChainCheck, EventIntegrityError[]> {
  const page = db.prepare<[bigint, bigint, number], EventRow>(selectChainColumns('WHERE e.position > ? AND e.position <= ? ORDER BY e.position ASC LIMIT ?'));
  const chain = new LogChainCheck(null);
  let after = -1n;
  for (;;) {
    const rows = page.all(after, upTo, pageSize);
    if (rows.length === 0) break;
    if (!chain.feed(rows)) {
      yield chain; // how far it got, with its last fault
      return chain.faults;
    }
    after = BigInt(rows[rows.length - 1]!.position);
    yield chain;
  }
  chain.finish();
  yield chain;
  return chain.faults;
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
  const key = checkRowChain(row, link, linkHash);
  return decodeEvent(
    { ...key, type: row.type, data: parseStoredJson(row.data, key), metadata: parseStoredJson(row.metadata, key) },
    path,
  );
}

/**
 * The chain part of {@link checkedRow}: the row's hash, then its link, without decoding it (a check of the whole log
 * that serves nothing).
 * @returns the row's key fields.
 * @throws EventIntegrityError 'hash_mismatch' or 'broken_link' as {@link checkedRow}.
 */
export function checkRowChain(row: EventRow, link: ChainLink, linkHash: unknown): { id: string; streamId: string; revision: bigint; position: bigint } {
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
        (linkHash === null ? 'does not exist' : `has hash ${actual ?? '(invalid)'}`) +
        ': this event was changed or inserted, an event before it removed, or the event before it changed with its hash recomputed',
    );
  }
  return key;
}
