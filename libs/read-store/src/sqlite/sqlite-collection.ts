import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import sift from 'sift';
import { applyUpdate } from '../document-update';
import {
  DuplicateKeyError,
  type Collection,
  type Doc,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type Update,
  type UpdateResult,
} from '../read-store.port';
import { assertFindOptions, assertOperatorUpdate, upsertSeed } from '../read-store.support';
import { decodeDoc, encodeValue } from './document-codec';
import { IndexBuildError, type IndexBuildOutcome, type IndexBuildPlan, type IndexBuildStatement } from './index-build-thread';
import { indexName, isUniqueViolation, keyIndexName, sortDocs, tableName, valueAt } from './collection-support';
import { compileFilter, compileSort, fieldColumn, isSqlPath, type CompiledFilter, type SqlParam } from './sql-filter';

/** What a collection needs from its store (internal to the SQLite adapter). */
export interface SqliteStoreContext {
  readonly db: Database.Database;
  /** @throws Error `read store closed` once the store is closed. */
  assertOpen(): void;
  /** Undefined when a write may run now, else a promise to await first (another caller's transaction is open). */
  writeGate(): Promise<void> | undefined;
  /** Collections holding at least this many documents build their indexes off the event loop (`offThread`). */
  readonly offThreadMinRows: number;
  /**
   * Whether `drop` leaves the key index of the new table to be built after its refill (SqliteReadStoreOptions
   * `deferKeyIndexes`: an offline rebuild).
   */
  readonly deferKeyIndexes: boolean;
  /**
   * Claims the store for an index build on a connection of its own (index-build-thread.ts), synchronously: every
   * other write of the store waits until the claim is released. Undefined when the build must run on this
   * connection: a transaction is open (the build then joins it), or the file is `:memory:`.
   */
  offThread(): IndexBuildClaim | undefined;
}

/** The store held for one index build in a worker thread. */
export interface IndexBuildClaim {
  /** Runs the plan in the thread. @throws as `buildOffThread`. */
  run(plan: IndexBuildPlan): Promise<IndexBuildOutcome>;
  /** Lets the store's writes go on (after the collection has read its new columns). Idempotent. */
  release(): void;
}

interface Row {
  _id: string;
  doc: string;
}

const MAX_CACHED_STATEMENTS = 256;
/** Top-level field names the `json_set` fast path accepts (safe unquoted in a JSON path). */
const PLAIN_FIELD = /^[A-Za-z0-9_]+$/;

/**
 * One collection of the SQLite read store: table `rm_<name>(_id TEXT PRIMARY KEY, doc TEXT, "f:<path>"...)`,
 * the document as JSON (document-codec.ts) plus one column per indexed field path, which this class
 * fills on every write (a generated column kept by the adapter: unlike SQLite's own generated
 * columns, an update then touches only the indexes of the fields it changes, about 4x faster on the
 * acceptance records). Declared indexes are SQL indexes on those columns. Reads run one prepared
 * statement synchronously; writes wait only while another caller's transaction is open (see
 * `SqliteReadStore.transaction`).
 */
export class SqliteCollection<T extends Doc> implements Collection<T> {
  private readonly table: string;
  private readonly statements = new Map<string, Database.Statement>();
  /** Every field path covered by an index (each holds a scalar or null, enforced on write). */
  private indexed = new Set<string>();
  /** `indexed` in column order. */
  private paths: string[] = [];
  private insertSql = '';
  private updateSql = '';
  /** `updateSql` by rowid (while the key index is deferred). */
  private updateAtSql = '';
  /**
   * While the key index is deferred (see `drop`): the rowid of every document by `_id`, which answers what the key
   * index would (lookups, updates and duplicate checks by `_id`). Undefined otherwise.
   */
  private keys: Map<string, number> | undefined;

  constructor(
    readonly name: string,
    private readonly ctx: SqliteStoreContext,
  ) {
    this.table = tableName(name);
    ctx.db.exec(`CREATE TABLE IF NOT EXISTS ${this.table} (_id TEXT PRIMARY KEY NOT NULL, doc TEXT NOT NULL)`);
    // A table whose deferred key index was never built (a rebuild stopped before it) gets it now.
    this.ensureKeyIndex();
    this.loadIndexedFields();
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    assertFindOptions(options, this.name);
    this.ctx.assertOpen();
    const compiled = this.compile(filter);
    const order = compileSort(options?.sort, this.indexed);
    const skip = options?.skip ?? 0;
    const limit = options?.limit || -1;
    if (compiled.exact && order !== undefined) {
      const stmt = this.statement(`find:${compiled.shape}${order}`, `SELECT doc FROM ${this.table} WHERE ${compiled.where}${order} LIMIT ? OFFSET ?`);
      return stmt.pluck().all(...compiled.params, limit, skip).map((text) => decodeDoc<T>(text as string));
    }
    const sorted = options?.sort && Object.keys(options.sort).length > 0;
    const stop = sorted || limit < 0 ? Infinity : skip + limit;
    const matches = this.scan(filter, compiled, stop);
    const ordered = sorted ? sortDocs(matches, options!.sort!) : matches;
    return ordered.slice(skip, limit < 0 ? undefined : skip + limit);
  }

  async findOne(filter: Filter): Promise<T | null> {
    this.ctx.assertOpen();
    const id = idOnly(filter);
    if (id !== undefined) {
      const text = this.byId(id);
      return text === undefined ? null : decodeDoc<T>(text);
    }
    const compiled = this.compile(filter);
    if (compiled.exact) {
      const text = this.statement(`one:${compiled.shape}`, `SELECT doc FROM ${this.table} WHERE ${compiled.where} LIMIT 1`)
        .pluck()
        .get(...compiled.params) as string | undefined;
      return text === undefined ? null : decodeDoc<T>(text);
    }
    return this.scan(filter, compiled, 1)[0] ?? null;
  }

  async count(filter: Filter): Promise<number> {
    this.ctx.assertOpen();
    const compiled = this.compile(filter);
    if (compiled.exact) {
      return this.statement(`count:${compiled.shape}`, `SELECT count(*) FROM ${this.table} WHERE ${compiled.where}`)
        .pluck()
        .get(...compiled.params) as number;
    }
    return this.scan(filter, compiled, Infinity).length;
  }

  async insertOne(doc: T): Promise<void> {
    if (typeof doc._id !== 'string') throw new TypeError(`${this.name}: _id must be a string`);
    await this.ctx.writeGate();
    this.ctx.assertOpen();
    const text = encodeValue(doc, this.name);
    const columns = this.columnValues(doc);
    this.insertRow(doc._id, text, columns);
  }

  async updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult> {
    assertOperatorUpdate(update, this.name);
    await this.ctx.writeGate();
    this.ctx.assertOpen();
    const fast = this.fastSet(filter, update);
    if (fast !== undefined) {
      if (fast > 0) return { matched: fast, modified: fast, upserted: false };
      if (!options?.upsert) return { matched: 0, modified: 0, upserted: false };
    } else {
      const id = this.keys && idOnly(filter);
      let row: Row | undefined;
      if (id !== undefined) {
        const text = this.byId(id);
        row = text === undefined ? undefined : { _id: id, doc: text };
      } else {
        this.settleKeys();
        const compiled = this.compile(filter);
        row = compiled.exact
          ? (this.statement(`row:${compiled.shape}`, `SELECT _id, doc FROM ${this.table} WHERE ${compiled.where} LIMIT 1`).get(...compiled.params) as Row | undefined)
          : this.scanRows(filter, compiled, 1)[0];
      }
      if (row) return this.rewrite(row, update);
      if (!options?.upsert) return { matched: 0, modified: 0, upserted: false };
    }
    const doc = upsertSeed(filter);
    applyUpdate(doc, update, this.name);
    doc['_id'] ??= randomUUID();
    if (typeof doc['_id'] !== 'string') throw new TypeError(`${this.name}: _id must be a string`);
    const id = doc['_id'];
    const text = encodeValue(doc, this.name);
    const columns = this.columnValues(doc);
    this.insertRow(id, text, columns);
    return { matched: 0, modified: 0, upserted: true };
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    assertOperatorUpdate(update, this.name);
    await this.ctx.writeGate();
    this.ctx.assertOpen();
    this.settleKeys();
    const compiled = this.compile(filter);
    const rows = compiled.exact
      ? (this.statement(`rows:${compiled.shape}`, `SELECT _id, doc FROM ${this.table} WHERE ${compiled.where}`).all(...compiled.params) as Row[])
      : this.scanRows(filter, compiled, Infinity);
    let modified = 0;
    this.ctx.db.transaction(() => {
      for (const row of rows) modified += this.rewrite(row, update).modified;
    })();
    return { matched: rows.length, modified, upserted: false };
  }

  async replaceOne(doc: T): Promise<void> {
    if (typeof doc._id !== 'string') throw new TypeError(`${this.name}: _id must be a string`);
    await this.ctx.writeGate();
    this.ctx.assertOpen();
    const text = encodeValue(doc, this.name);
    const columns = this.columnValues(doc);
    if (this.keys) {
      const rowid = this.keys.get(doc._id);
      if (rowid === undefined) this.insertRow(doc._id, text, columns);
      else this.write(() => this.statement('setDocAt', this.updateAtSql).run(text, ...columns, rowid), doc._id);
      return;
    }
    const set = ['doc', ...this.paths.map(fieldColumn)].map((c) => `${c} = excluded.${c}`).join(', ');
    const stmt = this.statement('replace', `${this.insertSql} ON CONFLICT (_id) DO UPDATE SET ${set}`);
    this.write(() => stmt.run(doc._id, text, ...columns), doc._id);
  }

  async deleteMany(filter: Filter): Promise<number> {
    await this.ctx.writeGate();
    this.ctx.assertOpen();
    this.settleKeys();
    const compiled = this.compile(filter);
    if (compiled.exact) {
      return this.statement(`delete:${compiled.shape}`, `DELETE FROM ${this.table} WHERE ${compiled.where}`).run(...compiled.params).changes;
    }
    const ids = this.scanRows(filter, compiled, Infinity).map((r) => r._id);
    const stmt = this.statement('deleteId', `DELETE FROM ${this.table} WHERE _id = ?`);
    this.ctx.db.transaction(() => ids.forEach((id) => stmt.run(id)))();
    return ids.length;
  }

  /**
   * SQLite specifics: an index is a SQL index on the fields' columns (added and filled from the
   * documents the first time a field is indexed; directions are kept, SQLite reads an index both
   * ways). Indexed fields may hold only strings,
   * numbers, booleans or null: a write that puts an array, a sub-document or a Date there is refused
   * with a TypeError. Documents missing the field (or holding null) never collide in a unique index,
   * sparse or not. An index with the same fields but another `unique` is replaced. On a collection of
   * `offThreadMinRows` documents or more, outside a transaction, the build runs in a worker thread
   * (index-build-thread.ts): the store keeps answering reads meanwhile and holds its writes back until it ends.
   * @throws TypeError on a field path outside `[A-Za-z0-9_-]` segments, or when a document already
   *   holds a non-scalar in an indexed field; DuplicateKeyError when a unique index cannot be built.
   */
  async ensureIndex(index: IndexSpec): Promise<void> {
    await this.ensureIndexes([index]);
  }

  /**
   * Port contract; SQLite specifics as `ensureIndex`. The documents are read and rewritten once for all the fields
   * the indexes add (one pass over the table, not one per index), and the whole set is one transaction: it is
   * built entirely or not at all.
   * @throws as `ensureIndex`.
   */
  async ensureIndexes(indexes: readonly IndexSpec[]): Promise<void> {
    const specs = indexes.map((index) => ({ index, fields: this.checkedFields(index) }));
    await this.ctx.writeGate();
    this.ctx.assertOpen();
    this.settleKeys();
    const db = this.ctx.db;
    const added = [...new Set(specs.flatMap((s) => s.fields.filter((f) => f !== '_id' && !this.indexed.has(f))))];
    const registered = db.prepare('SELECT "unique" FROM read_indexes WHERE collection = ? AND fields = ?').pluck();
    const pending = specs.filter(({ index, fields }) => added.some((f) => fields.includes(f)) || registered.get(this.name, JSON.stringify(fields)) !== (index.unique ? 1 : 0));
    if (pending.length === 0) return;
    const statements: IndexBuildStatement[] = [];
    /** The fields of the index each statement builds (null: a statement of the columns). */
    const builds: (string[] | null)[] = [];
    for (const f of added) {
      statements.push({ sql: `ALTER TABLE ${this.table} ADD COLUMN ${fieldColumn(f)}` });
      builds.push(null);
    }
    if (added.length > 0) {
      // The columns of the new indexed fields, filled from the documents in one pass (json_extract gives 1/0 for booleans, as writes do).
      statements.push({ sql: `UPDATE ${this.table} SET ${added.map((f) => `${fieldColumn(f)} = json_extract(doc, '$.${f}')`).join(', ')}` });
      builds.push(null);
    }
    for (const { index, fields } of pending) {
      const name = indexName(this.name, fields);
      const columns = fields.map((f) => `${fieldColumn(f)} ${index.fields[f] === -1 ? 'DESC' : 'ASC'}`).join(', ');
      const unique = index.unique ? 1 : 0;
      statements.push(
        { sql: `DROP INDEX IF EXISTS ${name}` },
        { sql: `CREATE ${unique ? 'UNIQUE ' : ''}INDEX ${name} ON ${this.table} (${columns})` },
        { sql: 'INSERT OR REPLACE INTO read_indexes (collection, fields, "unique") VALUES (?, ?, ?)', params: [this.name, JSON.stringify(fields), unique] },
      );
      builds.push(fields, fields, fields);
    }
    const plan: IndexBuildPlan = {
      // A field about to get its column must hold no array or sub-document in any document.
      checks: added.map((f) => `SELECT _id FROM ${this.table} WHERE json_type(doc, '$.${f}') IN ('array', 'object') LIMIT 1`),
      statements,
    };
    // Decided and claimed synchronously after the gate, so no write of this store comes between.
    const offThread = this.holdsAtLeast(this.ctx.offThreadMinRows) ? this.ctx.offThread() : undefined;
    try {
      const outcome = offThread ? await offThread.run(plan) : this.buildHere(plan);
      if (!outcome.built) throw new TypeError(`${this.name}: cannot index ${added[outcome.check]}: document ${outcome.found} holds an array or a sub-document there`);
    } catch (err) {
      if (isUniqueViolation(err)) {
        const fields = builds[err instanceof IndexBuildError ? (err.statement ?? -1) : -1] ?? pending.find((p) => p.index.unique)?.fields ?? [];
        throw new DuplicateKeyError(this.name, `cannot build unique index on ${fields.join(', ')}`, { cause: err });
      }
      throw err;
    } finally {
      // Writes held back by the build go on only once they write the new columns too.
      try {
        this.loadIndexedFields();
      } finally {
        offThread?.release();
      }
    }
  }

  /**
   * Port contract. SQLite specifics: on an empty table, adds the column of every field the indexes cover (no index
   * yet), so that the writes of a replay fill them and the `ensureIndexes` after it only sorts each column into its
   * index, instead of rewriting every row to fill new columns. Those fields then take only strings, numbers,
   * booleans or null, as indexed fields do.
   */
  async prepareIndexes(indexes: readonly IndexSpec[]): Promise<void> {
    const fields = [...new Set(indexes.flatMap((index) => this.checkedFields(index)))].filter((f) => f !== '_id' && !this.indexed.has(f));
    if (fields.length === 0) return;
    await this.ctx.writeGate();
    this.ctx.assertOpen();
    if (this.holdsAtLeast(1)) return;
    const db = this.ctx.db;
    db.transaction(() => fields.forEach((f) => db.exec(`ALTER TABLE ${this.table} ADD COLUMN ${fieldColumn(f)}`)))();
    this.loadIndexedFields();
  }

  /**
   * Removes every document and every secondary index (port contract). SQLite specifics: the table is created again
   * with the columns of the fields it had indexes on, empty and unindexed, so that the writes of a projection's
   * rebuild fill them as they go and the `ensureIndex` after its replay only sorts each column into its index,
   * instead of rewriting every row to fill a new column. Those fields still take only strings, numbers, booleans
   * or null.
   *
   * With `deferKeyIndexes` (an offline rebuild), the new table has no key index either: the documents' `_id` keys
   * are random, so every page of a refill would write leaves all over that B-tree, where rows appended in log order
   * fill the table's leaves one after the other. Until the key index is built, the collection finds documents by
   * `_id` through an in-memory map of their rowids (lookups, updates, replacements and the duplicate check of
   * inserts); filters on other fields are answered by SQL as usual. The key index is built, by sorting, by the next
   * `ensureIndexes`, `updateMany`, `deleteMany`, `updateOne` by another filter, a rolled-back transaction of the
   * store or `close`; a process that stops before it leaves the table to the next open of the collection, which
   * builds it then.
   */
  async drop(): Promise<void> {
    await this.ctx.writeGate();
    this.ctx.assertOpen();
    const db = this.ctx.db;
    this.statements.clear();
    const kept = this.paths.map((p) => `, ${fieldColumn(p)}`).join('');
    const deferred = this.ctx.deferKeyIndexes;
    db.transaction(() => {
      db.exec(`DROP TABLE IF EXISTS ${this.table}`);
      db.prepare('DELETE FROM read_indexes WHERE collection = ?').run(this.name);
      db.exec(`CREATE TABLE ${this.table} (_id TEXT ${deferred ? '' : 'PRIMARY KEY '}NOT NULL, doc TEXT NOT NULL${kept})`);
    })();
    this.keys = deferred ? new Map() : undefined;
    this.loadIndexedFields();
  }

  /**
   * Builds the key index a `drop` deferred, if any, and forgets the map of rowids standing in for it (see `drop`).
   * The caller holds the write gate (or is the open transaction). @throws the SQLite error of the build.
   */
  settleKeys(): void {
    if (!this.keys) return;
    this.keys = undefined;
    this.ensureKeyIndex();
  }

  /**
   * After the store rolled a transaction back: a deferred key map may name rows the rollback removed, so it is
   * dropped and the key index built from the table as it is now.
   */
  afterRollback(): void {
    this.keys = undefined;
    this.ensureKeyIndex();
  }

  // ---------------------------------------------------------------------------------------------

  /** Gives a table created without its primary key (a deferred key index, see `drop`) a unique index on `_id`. */
  private ensureKeyIndex(): void {
    const db = this.ctx.db;
    const sql = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(`rm_${this.name}`) as string | undefined;
    if (sql === undefined || /PRIMARY KEY/.test(sql)) return;
    db.exec(`CREATE UNIQUE INDEX IF NOT EXISTS ${keyIndexName(this.name)} ON ${this.table} (_id)`);
  }

  /** The stored JSON of document `id`, by the key index or, while it is deferred, by rowid. */
  private byId(id: string): string | undefined {
    if (this.keys) {
      const rowid = this.keys.get(id);
      return rowid === undefined ? undefined : (this.statement('one:rowid', `SELECT doc FROM ${this.table} WHERE rowid = ?`).pluck().get(rowid) as string | undefined);
    }
    return this.statement('one:_id', `SELECT doc FROM ${this.table} WHERE _id = ?`).pluck().get(id) as string | undefined;
  }

  /** Inserts a new row. @throws DuplicateKeyError when `id` (or a unique indexed field) is taken. */
  private insertRow(id: string, text: string, columns: SqlParam[]): void {
    const keys = this.keys;
    if (keys?.has(id)) throw new DuplicateKeyError(this.name, `document ${JSON.stringify(id)} collides on _id or a unique index`);
    const result = this.write(() => this.statement('insert', this.insertSql).run(id, text, ...columns), id);
    keys?.set(id, Number(result.lastInsertRowid));
  }

  /** The index's field paths. @throws TypeError when it has none, or one outside `[A-Za-z0-9_-]` segments. */
  private checkedFields(index: IndexSpec): string[] {
    const fields = Object.keys(index.fields);
    if (fields.length === 0) throw new TypeError(`${this.name}: an index needs at least one field`);
    for (const f of fields) {
      if (f !== '_id' && !isSqlPath(f)) throw new TypeError(`${this.name}: cannot index field ${JSON.stringify(f)}`);
    }
    return fields;
  }

  /**
   * Runs an index build on the store's own connection (small collections, or inside a transaction).
   * @throws IndexBuildError naming the failed statement, as the build thread does.
   */
  private buildHere(plan: IndexBuildPlan): IndexBuildOutcome {
    const db = this.ctx.db;
    for (const [check, sql] of plan.checks.entries()) {
      const found = db.prepare(sql).pluck().get() as string | undefined;
      if (found !== undefined) return { built: false, check, found };
    }
    db.transaction(() =>
      plan.statements.forEach((s, statement) => {
        try {
          db.prepare(s.sql).run(...(s.params ?? []));
        } catch (err) {
          throw new IndexBuildError(err instanceof Error ? err.message : String(err), (err as { code?: string }).code, statement);
        }
      }),
    )();
    return { built: true };
  }

  /** Whether the collection holds at least `count` documents (reads at most that many keys). */
  private holdsAtLeast(count: number): boolean {
    if (!Number.isFinite(count)) return false;
    const offset = Math.max(0, Math.floor(count) - 1);
    return this.ctx.db.prepare(`SELECT 1 FROM ${this.table} LIMIT 1 OFFSET ?`).pluck().get(offset) !== undefined;
  }

  /** Reads the indexed field paths from the table's `f:<path>` columns. */
  private loadIndexedFields(): void {
    const columns = this.ctx.db.prepare(`SELECT name FROM pragma_table_info('rm_${this.name}')`).pluck().all() as string[];
    this.indexed = new Set(columns.filter((c) => c.startsWith('f:')).map((c) => c.slice(2)));
    this.paths = [...this.indexed];
    const list = this.paths.map((p) => `, ${fieldColumn(p)}`).join('');
    const marks = this.paths.map(() => ', ?').join('');
    this.insertSql = `INSERT INTO ${this.table} (_id, doc${list}) VALUES (?, ?${marks})`;
    const sets = this.paths.map((p) => `, ${fieldColumn(p)} = ?`).join('');
    this.updateSql = `UPDATE ${this.table} SET doc = ?${sets} WHERE _id = ?`;
    this.updateAtSql = `UPDATE ${this.table} SET doc = ?${sets} WHERE rowid = ?`;
    this.statements.clear();
  }

  /**
   * The column values of a document's indexed fields, in `paths` order (booleans as 1/0, null or missing
   * as NULL). @throws TypeError when an indexed field holds an array, a sub-document or a Date.
   */
  private columnValues(doc: Record<string, unknown>): SqlParam[] {
    return this.paths.map((path) => this.columnValue(path, valueAt(doc, path)));
  }

  private columnValue(path: string, value: unknown): SqlParam {
    if (value === undefined || value === null) return null;
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (typeof value === 'string' || typeof value === 'number') return value;
    throw new TypeError(`${this.name}: indexed field ${path} must hold a string, a number, a boolean or null`);
  }

  private compile(filter: Filter): CompiledFilter {
    return compileFilter(filter, this.indexed);
  }

  private statement(key: string, sql: string): Database.Statement {
    let stmt = this.statements.get(key);
    if (!stmt) {
      if (this.statements.size >= MAX_CACHED_STATEMENTS) this.statements.clear();
      stmt = this.ctx.db.prepare(sql);
      this.statements.set(key, stmt);
    }
    return stmt;
  }

  /** Rows passing the SQL prefilter and then `filter` itself (MongoDB semantics, via sift), decoded. */
  private scanMatches(filter: Filter, compiled: CompiledFilter, max: number): { row: Row; doc: T }[] {
    const out: { row: Row; doc: T }[] = [];
    if (max <= 0) return out;
    const stmt = this.statement(`scan:${compiled.shape}`, `SELECT _id, doc FROM ${this.table} WHERE ${compiled.where}`);
    // The filter is compiled for the first row the SQL prefilter passes: compiling costs more than a lookup that
    // finds nothing, which is what most scans of a hot path do.
    let test: ((doc: T) => boolean) | undefined;
    for (const row of stmt.iterate(...compiled.params) as IterableIterator<Row>) {
      const doc = decodeDoc<T>(row.doc);
      test ??= sift(filter);
      if (!test(doc)) continue;
      out.push({ row, doc });
      if (out.length >= max) break;
    }
    return out;
  }

  private scanRows(filter: Filter, compiled: CompiledFilter, max: number): Row[] {
    return this.scanMatches(filter, compiled, max).map((m) => m.row);
  }

  private scan(filter: Filter, compiled: CompiledFilter, max: number): T[] {
    return this.scanMatches(filter, compiled, max).map((m) => m.doc);
  }

  /** Applies `update` to a stored row and writes it back (synchronously). */
  private rewrite(row: Row, update: Update): UpdateResult {
    const doc = decodeDoc<T>(row.doc);
    applyUpdate(doc, update, this.name);
    const text = encodeValue(doc, this.name);
    if (text === row.doc) return { matched: 1, modified: 0, upserted: false };
    const columns = this.columnValues(doc);
    const rowid = this.keys?.get(row._id);
    if (rowid !== undefined) this.write(() => this.statement('setDocAt', this.updateAtSql).run(text, ...columns, rowid), row._id);
    else this.write(() => this.statement('setDoc', this.updateSql).run(text, ...columns, row._id), row._id);
    return { matched: 1, modified: 1, upserted: false };
  }

  /**
   * `updateOne({_id}, {$set})` in one statement with `json_set`, when the fields are top-level and no
   * indexed field receives a non-scalar. @returns the number of documents changed, or undefined when
   * the general path must run.
   */
  private fastSet(filter: Filter, update: Update): number | undefined {
    const keys = Object.keys(filter);
    const id = filter['_id'];
    if (keys.length !== 1 || typeof id !== 'string' || Object.keys(update).length !== 1 || !update.$set) return undefined;
    const set = update.$set;
    const paths = Object.keys(set);
    if (paths.length === 0) return undefined;
    const params: SqlParam[] = [];
    const columns: string[] = [];
    const columnParams: SqlParam[] = [];
    for (const path of paths) {
      if (path === '_id' || !PLAIN_FIELD.test(path)) return undefined;
      const value = set[path];
      if (value === undefined) return undefined;
      for (const f of this.indexed) if (f.startsWith(`${path}.`)) return undefined;
      params.push(encodeValue(value, this.name));
      if (this.indexed.has(path)) {
        columns.push(`, ${fieldColumn(path)} = ?`);
        columnParams.push(this.columnValue(path, value));
      }
    }
    const args = paths.map((p) => `'$.${p}', json(?)`).join(', ');
    if (this.keys) {
      const rowid = this.keys.get(id);
      if (rowid === undefined) return 0;
      const at = this.statement(`fastSetAt:${paths.join(',')}`, `UPDATE ${this.table} SET doc = json_set(doc, ${args})${columns.join('')} WHERE rowid = ?`);
      return this.write(() => at.run(...params, ...columnParams, rowid), id).changes;
    }
    const stmt = this.statement(`fastSet:${paths.join(',')}`, `UPDATE ${this.table} SET doc = json_set(doc, ${args})${columns.join('')} WHERE _id = ?`);
    return this.write(() => stmt.run(...params, ...columnParams, id), id).changes;
  }

  private write(run: () => Database.RunResult, id: string): Database.RunResult {
    try {
      return run();
    } catch (err) {
      if (isUniqueViolation(err)) throw new DuplicateKeyError(this.name, `document ${JSON.stringify(id)} collides on _id or a unique index`, { cause: err });
      throw err;
    }
  }
}

/** The id of a filter that is exactly `{_id: <string>}` (the commonest read: by primary key), else undefined. */
function idOnly(filter: Filter): string | undefined {
  let id: unknown;
  for (const key in filter) {
    if (key !== '_id') return undefined;
    id = filter[key];
  }
  return typeof id === 'string' ? id : undefined;
}
