/**
 * Type-filtered reads of the SQLite log (subscriptions with `eventTypes`), served by the `(type, position)` index
 * (libs/event-store/README.md, "Type-filtered reads").
 *
 * A single `WHERE position > ? AND type IN (…) ORDER BY position LIMIT ?` either scans every row after the
 * position until it has enough matches (without the index: a subscription to rare types read the whole log for
 * each page, 8.7 GB at 1,000,000 acceptances, on the event loop) or, with it, reads every matching row after
 * the position and sorts them (slower than the scan for common types). So a page is read in two steps:
 * 1. the positions of the page: for each type, its first `max` positions after `after` from the index alone
 *    (no row is read), merged, the first `max` kept;
 * 2. the rows at those positions, by one range scan of the log between the first and the last when the page is
 *    dense (at most {@link DENSE_SPAN} rows per match in between), else one primary-key lookup each.
 * Both steps run synchronously on one connection, so no append can fall between them.
 */
import type Database from 'better-sqlite3';
import type { ReadPath } from './event-decoding';
import { EventIntegrityError, type StoredEvent } from './event-store.port';
import { checkedRow, checkSuccessorLink, selectEvents, type EventRow } from './sqlite-rows';

/** A page is read by one range scan when its span holds at most this many rows per matching row. */
export const DENSE_SPAN = 4;

/** Reads pages of events of given types; statements are prepared once per connection (and per type list). */
export class TypedReads {
  private readonly positionsOf: Database.Statement<[string, number | bigint, number], number>;
  private readonly rowAt: Database.Statement<[number], EventRow>;
  private readonly ranges = new Map<number, Database.Statement<unknown[], EventRow>>();

  constructor(private readonly db: Database.Database) {
    this.positionsOf = db.prepare<[string, number | bigint, number], number>('SELECT position FROM events WHERE type = ? AND position > ? ORDER BY position ASC LIMIT ?').pluck();
    this.rowAt = db.prepare<[number], EventRow>(selectEvents('WHERE e.position = ?', 'log'));
  }

  /**
   * Events of `types` after position `after`, at most `max`, in log order, each checked as {@link checkedRow}
   * (hash, link to the row before it in the log and from the row after it, schema).
   * @throws EventIntegrityError on the first bad row, with the rows of the page before it as `checkedBefore`.
   */
  read(types: readonly string[], after: number | bigint, max: number, path: ReadPath): StoredEvent[] {
    const distinct = [...new Set(types)];
    let positions: number[] = [];
    for (const type of distinct) {
      const found = this.positionsOf.all(type, after, max);
      for (const p of found) positions.push(p);
    }
    if (positions.length === 0) return [];
    if (distinct.length > 1) positions.sort((a, b) => a - b);
    if (positions.length > max) positions = positions.slice(0, max);
    const last = positions[positions.length - 1]!;
    const rows = last - Number(after) <= DENSE_SPAN * positions.length
      ? this.range(distinct.length).all(after, last, ...distinct)
      : positions.map((p) => this.rowAt.get(p)!);
    const out: StoredEvent[] = [];
    let lastHash: unknown = null;
    for (const row of rows) {
      try {
        out.push(checkedRow(row, 'log', path));
        checkSuccessorLink(row);
        lastHash = row.hash;
      } catch (err) {
        if (err instanceof EventIntegrityError && out.length > 0) {
          // Not good: the row itself when only its successor's link failed; its predecessor in the log when that one
          // was read here and this row's hash or link failed (only this row's link vouched for it, as in checkedRun).
          let good = out.length;
          if (out.at(-1)!.position === BigInt(row.position)) good--;
          else if (err.reason !== 'schema' && lastHash !== null && row.link_hash === lastHash) good--;
          err.checkedBefore = out.slice(0, good);
        }
        throw err;
      }
    }
    return out;
  }

  /** The range scan for a list of `n` types (rowid range only: `NOT INDEXED` keeps the planner off the type index). */
  private range(n: number): Database.Statement<unknown[], EventRow> {
    let stmt = this.ranges.get(n);
    if (!stmt) {
      const list = Array.from({ length: n }, () => '?').join(', ');
      stmt = this.db.prepare<unknown[], EventRow>(selectEvents(`NOT INDEXED WHERE e.position > ? AND e.position <= ? AND e.type IN (${list}) ORDER BY e.position ASC`, 'log'));
      this.ranges.set(n, stmt);
    }
    return stmt;
  }
}
