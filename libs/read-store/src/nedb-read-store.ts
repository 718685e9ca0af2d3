import * as path from 'node:path';
import Datastore from '@seald-io/nedb';
import {
  DuplicateKeyError,
  type Checkpoint,
  type Collection,
  type Doc,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type ReadStore,
  type Update,
  type UpdateResult,
} from './read-store.port';
import {
  CHECKPOINTS_COLLECTION,
  assertCollectionName,
  assertFindOptions,
  assertNoBigInt,
  assertOperatorUpdate,
  cloneChecked,
  isOperatorObject,
  parsePosition,
  upsertSeed,
  type CheckpointDoc,
} from './read-store.support';

/**
 * NeDB's own update machinery (`model.modify`), used to build an upserted document exactly as
 * NeDB would update an existing one. Internal module of @seald-io/nedb 4.x (no `exports` map).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nedbModel = require('@seald-io/nedb/lib/model.js') as {
  modify(doc: Record<string, unknown>, update: Record<string, unknown>): Record<string, unknown>;
};

/** Optional log sink (the store never writes to the console). */
export interface NedbReadStoreLogger {
  warn(message: string, details?: Record<string, unknown>): void;
}

export interface NedbReadStoreOptions {
  /** Data directory; datastore files go to `<dataDir>/read/<collection>.db` (created if absent). */
  dataDir: string;
  /**
   * Period of the background compaction, in milliseconds; default 60 000, minimum 1 000;
   * 0 disables it. Only datastores written since their last compaction are rewritten.
   * Every datastore is also compacted on load and on `close()`.
   */
  autocompactionIntervalMs?: number;
  /** Receives background compaction failures. */
  logger?: NedbReadStoreLogger;
}

const DEFAULT_AUTOCOMPACTION_MS = 60_000;

/** NeDB 4 keeps its indexes in `datastore.indexes`, keyed by the sorted field names joined by commas. */
interface NedbIndex {
  unique: boolean;
  sparse: boolean;
  /** Documents under one key: the tree node's own array (read its length only). */
  getMatching(value: unknown): readonly unknown[];
}
type NedbIndexes = Record<string, NedbIndex | undefined>;

function nedbIndexes(ds: Datastore<Record<string, unknown>>): NedbIndexes {
  return (ds as unknown as { indexes: NedbIndexes }).indexes;
}

/** Values NeDB looks up in an index for an equality condition. */
function isIndexable(value: unknown): boolean {
  const t = typeof value;
  return t === 'string' || t === 'number' || t === 'boolean' || value instanceof Date;
}

/**
 * NeDB answers an equality query from the index of the *last* indexed field in the query's key
 * order, however unselective. When several indexed fields have equalities, moves the one with the
 * fewest matching documents (an O(log n) tree lookup each) last. Returns the query itself when
 * nothing needs to move (the common case: zero or one indexed equality).
 */
function orderForNedb(query: Record<string, unknown>, indexes: NedbIndexes): Record<string, unknown> {
  let indexed = 0;
  let lastIndexed: string | undefined;
  for (const key in query) {
    if (indexes[key] && isIndexable(query[key])) {
      indexed++;
      lastIndexed = key;
    }
  }
  if (indexed < 2) return query;
  let best: string | undefined;
  let bestSize = Infinity;
  for (const key in query) {
    const index = indexes[key];
    if (!index || !isIndexable(query[key])) continue;
    const size = index.getMatching(query[key]).length;
    if (size <= bestSize) {
      best = key;
      bestSize = size;
    }
  }
  if (best === undefined || best === lastIndexed) return query;
  const { [best]: value, ...rest } = query;
  return { ...rest, [best]: value };
}

interface NedbError extends Error {
  errorType?: string;
  key?: unknown;
}

/** One NeDB datastore plus its load gate and dirty flag. */
class DatastoreHandle {
  readonly ds: Datastore<Record<string, unknown>>;
  /** True once loaded and while the store is open: the hot path checks only this flag. */
  ready = false;
  /** Settles when the current (re)load finished; rejects when it failed. */
  loaded: Promise<void>;
  /** Written since the last compaction. */
  dirty = false;

  constructor(
    readonly name: string,
    readonly filename: string,
    private readonly isClosed: () => boolean,
  ) {
    // autoload with an `onload` callback: without one, NeDB rethrows a load failure as an
    // unhandled rejection. The failure reaches every operation through `whenReady` instead.
    this.ds = new Datastore<Record<string, unknown>>({ filename, autoload: true, onload: () => undefined });
    this.loaded = (this.ds.autoloadPromise ?? this.ds.loadDatabaseAsync()).then(() => {
      if (!this.isClosed()) this.ready = true;
    });
    // The failure is reported to every operation through `whenReady`; never unhandled.
    this.loaded.catch(() => undefined);
  }

  /** The datastore once loaded. @throws when the store is closed or the load failed. */
  async whenReady(): Promise<Datastore<Record<string, unknown>>> {
    if (this.isClosed()) throw new Error(`read store closed (collection ${this.name})`);
    await this.loaded;
    if (this.isClosed()) throw new Error(`read store closed (collection ${this.name})`);
    return this.ds;
  }
}

/** Rethrows NeDB's unique violation as the port's DuplicateKeyError. */
function mapError(err: unknown, collection: string): unknown {
  const e = err as NedbError;
  if (e && e.errorType === 'uniqueViolated') {
    return new DuplicateKeyError(collection, `key ${JSON.stringify(e.key) ?? String(e.key)}`, { cause: err });
  }
  return err;
}

/** `{ f: null }` with MongoDB's meaning: f is null (or an array holding null), or f is missing. */
function eqNull(key: string): Record<string, unknown> {
  return { $or: [{ [key]: null }, { [key]: { $exists: false } }] };
}

function eq(key: string, value: unknown): Record<string, unknown> {
  return value === null ? eqNull(key) : { [key]: value };
}

function needsTranslation(filter: Filter): boolean {
  for (const key in filter) {
    const value = filter[key];
    if (key.charCodeAt(0) === 36 /* '$' */) {
      if ((key === '$or' || key === '$and') && Array.isArray(value)) {
        for (const clause of value) if (needsTranslation(clause as Filter)) return true;
      }
      continue;
    }
    if (value === null || typeof value === 'bigint') return true;
    if (isOperatorObject(value)) {
      for (const op in value) {
        const operand = value[op];
        if (op === '$ne' || op === '$eq' || (op === '$exists' && operand)) return true;
        if (op === '$in' && Array.isArray(operand) && operand.includes(null)) return true;
        if (typeof operand === 'bigint') return true;
      }
    }
  }
  return false;
}

/**
 * Rewrites the few conditions where NeDB's matcher differs from MongoDB's, so that both adapters
 * answer alike: `null` equality (matches missing fields), `$ne` on arrays (no element equals),
 * `$exists: true` on an empty array, `$in` holding null, `$eq`. Other conditions stay at the
 * top level so NeDB can still pick an index. Returns the filter itself when nothing changes.
 */
function toNedbFilter(filter: Filter): Record<string, unknown> {
  if (!needsTranslation(filter)) return filter;
  const out: Record<string, unknown> = {};
  const and: unknown[] = [];
  for (const key of Object.keys(filter)) {
    const value = filter[key];
    if (key === '$or' || key === '$and') {
      if (!Array.isArray(value)) throw new TypeError(`${key} needs an array`);
      const clauses = value.map((clause) => toNedbFilter(clause as Filter));
      if (key === '$and') and.push(...clauses);
      else out[key] = clauses;
      continue;
    }
    if (key.charCodeAt(0) === 36) {
      out[key] = value;
      continue;
    }
    if (typeof value === 'bigint') throw new TypeError(`filter on ${key}: bigint values are not storable`);
    if (value === null) {
      and.push(eqNull(key));
      continue;
    }
    if (!isOperatorObject(value)) {
      out[key] = value;
      continue;
    }
    const kept: Record<string, unknown> = {};
    let keptAny = false;
    for (const op of Object.keys(value)) {
      const operand = value[op];
      if (typeof operand === 'bigint') throw new TypeError(`filter on ${key}: bigint values are not storable`);
      if (op === '$eq') and.push(eq(key, operand));
      else if (op === '$ne') and.push({ $not: eq(key, operand) });
      else if (op === '$exists' && operand) and.push({ $not: { [key]: { $exists: false } } });
      else if (op === '$in' && Array.isArray(operand) && operand.includes(null)) {
        and.push({ $or: [{ [key]: { $in: operand.filter((v) => v !== null) } }, eqNull(key)] });
      } else {
        kept[op] = operand;
        keptAny = true;
      }
    }
    if (keptAny) out[key] = kept;
  }
  if (and.length > 0) out['$and'] = and;
  return out;
}

/** Copies the object operands of an update so that the stored document never shares them with the caller. */
function prepareUpdate(update: Update, collection: string): Record<string, unknown> {
  assertOperatorUpdate(update, collection);
  const out: Record<string, unknown> = {};
  for (const op of Object.keys(update)) {
    const operand = (update as Record<string, Record<string, unknown>>)[op]!;
    if (op === '$unset' || op === '$inc') {
      out[op] = operand;
      continue;
    }
    const copied: Record<string, unknown> = {};
    for (const field of Object.keys(operand)) {
      const v = operand[field];
      copied[field] = v !== null && typeof v === 'object' ? cloneChecked(v, collection) : v;
    }
    out[op] = copied;
  }
  return out;
}

class NedbCollection<T extends Doc> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly h: DatastoreHandle,
  ) {}

  private ds(): Datastore<Record<string, unknown>> | Promise<Datastore<Record<string, unknown>>> {
    return this.h.ready ? this.h.ds : this.h.whenReady();
  }

  /** The filter in NeDB's terms, its keys ordered so that NeDB picks the best index. */
  private query(ds: Datastore<Record<string, unknown>>, filter: Filter): Record<string, unknown> {
    return orderForNedb(toNedbFilter(filter), nedbIndexes(ds));
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    assertFindOptions(options, this.name);
    const ds = await this.ds();
    // NeDB's find/findOne already return deep copies (model.deepCopy): no second copy here.
    let cursor = ds.findAsync(this.query(ds, filter));
    if (options?.sort) cursor = cursor.sort(options.sort);
    if (options?.skip) cursor = cursor.skip(options.skip);
    if (options?.limit) cursor = cursor.limit(options.limit);
    return (await cursor) as unknown as T[];
  }

  async findOne(filter: Filter): Promise<T | null> {
    const ds = await this.ds();
    return (await ds.findOneAsync(this.query(ds, filter))) as unknown as T | null;
  }

  async count(filter: Filter): Promise<number> {
    const ds = await this.ds();
    return (await ds.countAsync(this.query(ds, filter))) as unknown as number;
  }

  async insertOne(doc: T): Promise<void> {
    if (typeof doc._id !== 'string') throw new TypeError(`${this.name}: _id must be a string`);
    assertNoBigInt(doc, this.name);
    const ds = await this.ds();
    this.h.dirty = true;
    try {
      await ds.insertAsync(doc); // NeDB stores a deep copy of `doc`
    } catch (err) {
      throw mapError(err, this.name);
    }
  }

  async updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult> {
    const nedbUpdate = prepareUpdate(update, this.name);
    const ds = await this.ds();
    const query = this.query(ds, filter);
    this.h.dirty = true;
    const n = await this.update(ds, query, nedbUpdate, false);
    if (n > 0 || !options?.upsert) return { matched: n, modified: n, upserted: false };
    // Not found: insert as MongoDB does (NeDB's own upsert would keep `$in`/dotted conditions wrong).
    const seed = upsertSeed(filter);
    let doc: Record<string, unknown>;
    try {
      doc = nedbModel.modify(seed, nedbUpdate);
    } catch (err) {
      throw new TypeError(`${this.name}: upsert cannot apply the update: ${(err as Error).message}`, { cause: err });
    }
    if (doc['_id'] !== undefined && typeof doc['_id'] !== 'string') {
      throw new TypeError(`${this.name}: _id must be a string`);
    }
    try {
      await ds.insertAsync(doc);
      return { matched: 0, modified: 0, upserted: true };
    } catch (err) {
      const mapped = mapError(err, this.name);
      if (!(mapped instanceof DuplicateKeyError)) throw mapped;
      // A concurrent writer inserted the document between our update and insert: update it
      // (MongoDB retries an upsert that hits a duplicate key the same way).
      const again = await this.update(ds, query, nedbUpdate, false);
      if (again === 0) throw mapped;
      return { matched: again, modified: again, upserted: false };
    }
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    const nedbUpdate = prepareUpdate(update, this.name);
    const ds = await this.ds();
    this.h.dirty = true;
    const n = await this.update(ds, this.query(ds, filter), nedbUpdate, true);
    return { matched: n, modified: n, upserted: false };
  }

  async replaceOne(doc: T): Promise<void> {
    if (typeof doc._id !== 'string') throw new TypeError(`${this.name}: _id must be a string`);
    assertNoBigInt(doc, this.name);
    const ds = await this.ds();
    this.h.dirty = true;
    try {
      // A plain document as update replaces (NeDB deep-copies it); upsert inserts it. Atomic in NeDB.
      await ds.updateAsync({ _id: doc._id }, doc, { upsert: true });
    } catch (err) {
      throw mapError(err, this.name);
    }
  }

  async deleteMany(filter: Filter): Promise<number> {
    const ds = await this.ds();
    this.h.dirty = true;
    return ds.removeAsync(this.query(ds, filter), { multi: true });
  }

  /**
   * NeDB specifics: directions are ignored (in-memory trees serve both); an index with the same
   * fields but other options is replaced (MongoDB would reject the request); and a compound index
   * also gets a plain index on its first field, because NeDB uses a compound index only when the
   * query has equalities on all its fields while MongoDB also serves prefix queries from it.
   */
  async ensureIndex(index: IndexSpec): Promise<void> {
    const fields = Object.keys(index.fields);
    if (fields.length === 0) throw new TypeError(`${this.name}: an index needs at least one field`);
    const unique = index.unique ?? false;
    const sparse = index.sparse ?? false;
    const ds = await this.ds();
    const indexName = [...fields].sort().join(',');
    const existing = nedbIndexes(ds)[indexName];
    try {
      if (existing && (existing.unique !== unique || existing.sparse !== sparse)) {
        await ds.removeIndexAsync(indexName);
        try {
          await ds.ensureIndexAsync({ fieldName: fields.length === 1 ? fields[0]! : fields, unique, sparse });
        } catch (err) {
          const previous = { unique: existing.unique, sparse: existing.sparse };
          await ds.ensureIndexAsync({ fieldName: fields.length === 1 ? fields[0]! : fields, ...previous });
          throw err;
        }
      } else {
        await ds.ensureIndexAsync({ fieldName: fields.length === 1 ? fields[0]! : fields, unique, sparse });
      }
      // Prefix index; never replaces an index declared on that field.
      if (fields.length > 1 && !nedbIndexes(ds)[fields[0]!]) {
        await ds.ensureIndexAsync({ fieldName: fields[0]!, unique: false, sparse: false });
      }
    } catch (err) {
      throw mapError(err, this.name);
    }
  }

  async drop(): Promise<void> {
    const ds = await this.h.whenReady();
    this.h.ready = false;
    // Operations issued meanwhile wait on `loaded`; NeDB buffers those already queued.
    this.h.loaded = (async () => {
      await ds.dropDatabaseAsync(); // deletes the file, the documents and the indexes
      await ds.loadDatabaseAsync(); // recreates an empty datastore
    })();
    this.h.loaded.catch(() => undefined);
    await this.h.loaded;
    this.h.dirty = false;
    this.h.ready = true;
  }

  private async update(
    ds: Datastore<Record<string, unknown>>,
    query: Record<string, unknown>,
    update: Record<string, unknown>,
    multi: boolean,
  ): Promise<number> {
    try {
      const res = await ds.updateAsync(query, update, { multi, upsert: false });
      return res.numAffected;
    } catch (err) {
      throw mapError(err, this.name);
    }
  }
}

/**
 * The embedded read store: one NeDB datastore (an append-only JSON-lines file, fully loaded in
 * memory) per collection under `<dataDir>/read/<name>.db`, plus `<dataDir>/read/checkpoints.db`.
 *
 * Collections open lazily on `collection(name)`; their first operations wait for the load.
 * Reads return NeDB's deep copies; writes never share caller objects with the stored documents.
 * Indexes (single-field and compound) are NeDB's in-memory indexes, persisted in the datafile.
 */
export class NedbReadStore implements ReadStore {
  private readonly dir: string;
  private readonly handles = new Map<string, DatastoreHandle>();
  private readonly collections = new Map<string, NedbCollection<Doc>>();
  private readonly checkpoints: DatastoreHandle;
  private readonly compactionTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;

  /** Opens the store (loads happen in the background); see {@link NedbReadStore.open}. */
  constructor(private readonly options: NedbReadStoreOptions) {
    if (!options.dataDir) throw new TypeError('NedbReadStore: dataDir is required');
    this.dir = path.join(options.dataDir, 'read');
    this.checkpoints = this.handle(CHECKPOINTS_COLLECTION);
    const interval = options.autocompactionIntervalMs ?? DEFAULT_AUTOCOMPACTION_MS;
    if (interval > 0) {
      this.compactionTimer = setInterval(() => this.compactDirty(), Math.max(1_000, interval));
      this.compactionTimer.unref();
    }
  }

  /**
   * Opens the store and waits for the checkpoint datastore to load (fails fast on an unreadable
   * data directory).
   */
  static async open(options: NedbReadStoreOptions): Promise<NedbReadStore> {
    const store = new NedbReadStore(options);
    try {
      await store.checkpoints.whenReady();
    } catch (err) {
      await store.close().catch(() => undefined);
      throw err;
    }
    return store;
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    const existing = this.collections.get(name);
    if (existing) return existing as unknown as Collection<T>;
    if (this.closed) throw new Error('read store closed');
    assertCollectionName(name);
    const created = new NedbCollection<Doc>(name, this.handle(name));
    this.collections.set(name, created);
    return created as unknown as Collection<T>;
  }

  async getCheckpoint(projection: string): Promise<bigint | null> {
    const ds = await this.checkpoints.whenReady();
    const doc = (await ds.findOneAsync({ _id: projection })) as unknown as CheckpointDoc | null;
    return doc ? parsePosition(doc) : null;
  }

  async saveCheckpoint(projection: string, position: bigint): Promise<void> {
    if (typeof position !== 'bigint') throw new TypeError('saveCheckpoint: position must be a bigint');
    const ds = await this.checkpoints.whenReady();
    this.checkpoints.dirty = true;
    const doc: CheckpointDoc = { _id: projection, position: position.toString(), updatedAt: new Date().toISOString() };
    await ds.updateAsync({ _id: projection }, doc, { upsert: true });
  }

  async deleteCheckpoint(projection: string): Promise<void> {
    const ds = await this.checkpoints.whenReady();
    this.checkpoints.dirty = true;
    await ds.removeAsync({ _id: projection }, {});
  }

  async listCheckpoints(): Promise<Checkpoint[]> {
    const ds = await this.checkpoints.whenReady();
    const docs = (await ds.findAsync({}).sort({ _id: 1 })) as unknown as CheckpointDoc[];
    return docs.map((d) => ({ projection: d._id, position: parsePosition(d), updatedAt: d.updatedAt }));
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      await this.checkpoints.whenReady();
      return true;
    } catch {
      return false;
    }
  }

  /** Waits for pending writes, compacts every datafile, and rejects all later operations. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    this.closed = true;
    if (this.compactionTimer) clearInterval(this.compactionTimer);
    const errors: unknown[] = [];
    for (const h of this.handles.values()) {
      h.ready = false;
      try {
        await h.loaded;
      } catch {
        continue; // never loaded: nothing to compact
      }
      try {
        // Queued behind the writes already issued, so they land first.
        await h.ds.compactDatafileAsync();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'read store close: compaction failed');
  }

  private handle(name: string): DatastoreHandle {
    let h = this.handles.get(name);
    if (!h) {
      h = new DatastoreHandle(name, path.join(this.dir, `${name}.db`), () => this.closed);
      this.handles.set(name, h);
    }
    return h;
  }

  private compactDirty(): void {
    for (const h of this.handles.values()) {
      if (!h.ready || !h.dirty) continue;
      h.dirty = false;
      h.ds.compactDatafileAsync().catch((err: unknown) => {
        h.dirty = true;
        this.options.logger?.warn('read store compaction failed', { collection: h.name, err });
      });
    }
  }
}
