/**
 * The read store port: document collections queried by the API, written only by projections.
 *
 * The query and update language is the subset of MongoDB's that both adapters (SQLite embedded,
 * `mongodb` in production) run with MongoDB's semantics (the SQLite adapter compiles filters to SQL
 * and checks what SQL cannot answer with `sift`, a MongoDB-compatible matcher):
 * - filters: equality on fields (dotted paths allowed), `$lt $lte $gt $gte $ne $in $exists`, `$or`;
 * - updates: `$set $unset $inc $push $addToSet`, and upsert;
 * - options: sort (1 / -1 on one or more fields), limit, skip.
 * Anything outside the subset is a programming error and is not guaranteed to behave alike.
 *
 * Shared rules both adapters enforce or guarantee:
 * - document values are JSON values and `Date`s; a `bigint` anywhere in a document, an update or a
 *   filter is rejected with a `TypeError` (store positions and amounts as decimal strings);
 *   `undefined` values are dropped (not stored as `null`);
 * - field names must not start with `$` nor contain `.` (dots are path separators in filters/updates);
 * - `_id` is always a string; an upsert whose filter has no `_id` equality gets a generated one;
 * - a filter `{ f: null }` matches documents where `f` is null or missing (MongoDB semantics),
 *   `{ f: { $ne: v } }` matches documents where no element of the array `f` equals `v`;
 * - the order of `find` without `sort` is unspecified; sort on fields holding one scalar type
 *   (`null` vs missing, and mixed types, may order differently across adapters);
 * - collection names match `/^[A-Za-z0-9][A-Za-z0-9_.-]*$/` (at most 120 characters);
 *   `checkpoints` is reserved for the checkpoint store;
 * - a unique index violation rejects with `DuplicateKeyError`;
 * - an indexed field holds a string, a number, a boolean or null, or is missing (never an array, a
 *   sub-document or a Date): the SQLite adapter refuses other values there with a TypeError, and
 *   answers every condition on indexed fields from its indexes. Queries on hot paths filter and sort
 *   on indexed fields only;
 * - in a unique index, documents missing the field (or holding null) never collide in the SQLite
 *   adapter (MongoDB lets only one such document in unless the index is sparse): do not rely on either.
 */

export type Doc = Record<string, unknown> & { _id: string };
export type Filter = Record<string, unknown>;
export type Update = {
  $set?: Record<string, unknown>;
  $unset?: Record<string, unknown>;
  $inc?: Record<string, number>;
  $push?: Record<string, unknown>;
  $addToSet?: Record<string, unknown>;
};
export type Sort = Record<string, 1 | -1>;

export interface FindOptions {
  /** Sort keys in priority order (object insertion order): 1 ascending, -1 descending. */
  sort?: Sort;
  /** Maximum number of documents, a non-negative integer; 0 or absent means no limit. */
  limit?: number;
  /** Number of matching documents to skip (after sorting), a non-negative integer. */
  skip?: number;
}

export interface IndexSpec {
  /** Field names (dotted paths allowed) with direction, in priority order; one field or several (compound). */
  fields: Record<string, 1 | -1>;
  unique?: boolean;
  /** Index only documents that have the fields (sparse). */
  sparse?: boolean;
}

export interface UpdateResult {
  /** Documents that matched the filter (0 when the upsert inserted one). */
  matched: number;
  /**
   * Documents written. MongoDB does not count an update that changed nothing; the SQLite adapter does
   * not either, except on its single-statement path (`{_id}` filter, top-level `$set`), which counts
   * every matched document. Do not build logic on the difference.
   */
  modified: number;
  /** Whether the upsert inserted a new document. */
  upserted: boolean;
}

export interface Collection<T extends Doc = Doc> {
  readonly name: string;
  /** Matching documents (copies: mutating them does not touch the store). */
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  /** The first matching document, or null. */
  findOne(filter: Filter): Promise<T | null>;
  count(filter: Filter): Promise<number>;
  /** @throws DuplicateKeyError when `_id` or a unique index value is taken. */
  insertOne(doc: T): Promise<void>;
  /**
   * Updates the first matching document; with `upsert`, when nothing matches, inserts a document
   * built as MongoDB does: the filter's equality conditions (top level and inside `$and`; dotted
   * paths become nested fields), then the update applied to it.
   * The update must contain only operators (`$set` ...), never a plain replacement document.
   * @throws DuplicateKeyError when the write violates a unique index.
   */
  updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult>;
  /** Updates every matching document (no upsert). */
  updateMany(filter: Filter, update: Update): Promise<UpdateResult>;
  /** Replaces the document with the same `_id`, or inserts it. */
  replaceOne(doc: T): Promise<void>;
  /** @returns the number of documents removed. */
  deleteMany(filter: Filter): Promise<number>;
  /**
   * Creates the index if absent (idempotent). Compound when `fields` has several keys.
   * @throws DuplicateKeyError when a unique index cannot be built over the existing documents.
   */
  ensureIndex(index: IndexSpec): Promise<void>;
  /**
   * `ensureIndex` for each index, in one pass where the store can (the embedded store reads the documents once
   * for all of them); a projection's indexes are ensured this way.
   * @throws DuplicateKeyError when a unique index cannot be built over the existing documents.
   */
  ensureIndexes(indexes: readonly IndexSpec[]): Promise<void>;
  /**
   * Optional: readies an empty collection for a bulk load that `ensureIndexes(indexes)` will follow, without
   * building the indexes (the embedded store gives it the columns its indexes read, filled by the load's writes).
   * Does nothing to a collection that holds documents. @throws TypeError on a field path `ensureIndex` refuses.
   */
  prepareIndexes?(indexes: readonly IndexSpec[]): Promise<void>;
  /**
   * Removes every document and every secondary index, as MongoDB's `drop` does (used when a
   * projection is rebuilt); call `ensureIndex` again before reusing the collection.
   */
  drop(): Promise<void>;
}

/** A projection's stored checkpoint: the global log position of the last event it applied. */
export interface Checkpoint {
  projection: string;
  position: bigint;
  updatedAt: string;
}

export interface ReadStore {
  /**
   * A handle on a collection, created on first use (synchronous, cheap after the first call).
   * @throws TypeError when the name is invalid or reserved (see the rules above).
   */
  collection<T extends Doc = Doc>(name: string): Collection<T>;
  /** The stored checkpoint of a projection (checkpoint key, e.g. `acceptances.v1`), or null. */
  getCheckpoint(projection: string): Promise<bigint | null>;
  /** Stores the checkpoint after the projection's handlers succeeded (lossless bigint). */
  saveCheckpoint(projection: string, position: bigint): Promise<void>;
  deleteCheckpoint(projection: string): Promise<void>;
  /** Every stored checkpoint, sorted by key (status pages, the CLI). */
  listCheckpoints(): Promise<Checkpoint[]>;
  /**
   * Deletes a collection with its documents and indexes, and releases its space for later writes (the read model
   * of a retired projection version). Nothing happens when it does not exist; a later `collection(name)` starts it
   * empty again.
   * @throws TypeError when the name is invalid or reserved.
   */
  removeCollection(name: string): Promise<void>;
  /**
   * Optional (SQLite): runs `work` in one transaction, committed when it resolves, rolled back when it rejects
   * (the rejection is rethrown). The writes of the transaction are those made through the store `work` receives;
   * writes through this store meanwhile wait until it ends (so a rollback never takes them along), and so would a
   * `transaction` call on this store from inside `work`: nest through the received store (it joins). Transactions
   * run one at a time. Adapters without it (MongoDB) write as they go: callers fall back to plain sequential writes,
   * which idempotent projections absorb.
   */
  transaction?<R>(work: (store: ReadStore) => Promise<R>): Promise<R>;
  /** Whether the backing store answers (readiness); never throws. */
  ping(): Promise<boolean>;
  /** Flushes and releases the store; later calls reject. */
  close(): Promise<void>;
}

/** A write broke a unique index (including `_id`). */
export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';
  constructor(
    readonly collection: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`duplicate key in collection ${collection}: ${detail}`, options);
  }
}

/** Injection token of the read store port. */
export const READ_STORE = Symbol('READ_STORE');
