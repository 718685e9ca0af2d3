/**
 * Helpers of the SQLite collections (internal to the adapter): table, column and index names, the
 * unique-violation check, and the in-memory sort used when a query cannot run entirely in SQL.
 */
import type { Doc, Sort } from '../read-store.port';

/** Whether a better-sqlite3 error is a UNIQUE or PRIMARY KEY violation. */
export function isUniqueViolation(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Quotes an identifier (collection names never hold a double quote: see the port's naming rule). */
export function quoteIdent(name: string): string {
  return `"${name}"`;
}

/** Table of a collection: `rm_<name>`, apart from the store's own tables. */
export function tableName(collection: string): string {
  return quoteIdent(`rm_${collection}`);
}

/** Name of the unique `_id` index of a collection whose table was created without its primary key (sqlite-collection.ts `drop`). */
export function keyIndexName(collection: string): string {
  return quoteIdent(`key_${collection}`);
}

/** Name of the SQL index of `fields` in `collection`. */
export function indexName(collection: string, fields: readonly string[]): string {
  return quoteIdent(`ix_${collection}__${fields.join('__')}`);
}

type SortValue = unknown;

function rank(value: SortValue): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number') return 1;
  if (typeof value === 'string') return 2;
  if (value instanceof Date) return 6;
  if (Array.isArray(value)) return 4;
  if (typeof value === 'boolean') return 5;
  return 3;
}

/** MongoDB's cross-type sort order for the scalar cases the port supports. */
function compareValues(a: SortValue, b: SortValue): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return 0;
}

/** The value at a dotted path of a document (no traversal of arrays), or undefined. */
export function valueAt(doc: Record<string, unknown>, path: string): unknown {
  let node: unknown = doc;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** Sorts documents in place by `sort` with MongoDB's order (used when SQL cannot sort). */
export function sortDocs<T extends Doc>(docs: T[], sort: Sort): T[] {
  const keys = Object.keys(sort);
  return docs.sort((a, b) => {
    for (const key of keys) {
      const c = compareValues(valueAt(a, key), valueAt(b, key));
      if (c !== 0) return sort[key] === -1 ? -c : c;
    }
    return 0;
  });
}
