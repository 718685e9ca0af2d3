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
  type Sort,
  type Update,
  type UpdateResult,
} from '../read-store.port';
import { assertFindOptions, assertOperatorUpdate, upsertSeed } from '../read-store.support';
import { decodeDoc, encodeValue } from './document-codec';
import { compileFilter, compileSort, fieldExpr, isSqlPath, type CompiledFilter, type SqlParam } from './sql-filter';

/** What a collection needs from its store (internal to the SQLite adapter). */
export interface SqliteStoreContext {
  readonly db: Database.Database;
  /** @throws Error `read store closed` once the store is closed. */
  assertOpen(): void;
  /** Undefined when a write may run now, else a promise to await first (another caller's transaction is open). */
  writeGate(): Promise<void> | undefined;
}

interface Row {
  _id: string;
  doc: string;
}

const MAX_CACHED_STATEMENTS = 256;
/** Top-level field names the `json_set` fast path accepts (safe unquoted in a JSON path). */
const PLAIN_FIELD = /^[A-Za-z0-9_]+$/;

function isUniqueViolation(err: unknown): boolean {
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

function indexName(collection: string, fields: readonly string[]): string {
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

function valueAt(doc: Record<string, unknown>, path: string): unknown {
  let node: unknown = doc;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

function sortDocs<T extends Doc>(docs: T[], sort: Sort): T[] {
  const keys = Object.keys(sort);
  return docs.sort((a, b) => {
    for (const key of keys) {
      const c = compareValues(valueAt(a, key), valueAt(b, key));
      if (c !== 0) return sort[key] === -1 ? -c : c;
    }
    return 0;
  });
}

/**
 * One collection of the SQLite read store: table `rm_<name>(_id TEXT PRIMARY KEY, doc TEXT)`, the
 * document as JSON (document-codec.ts), declared indexes as expression indexes on `json_extract`.
 * Reads run one prepared statement synchronously; writes wait only while another caller's
 * transaction is open (see `SqliteReadStore.transaction`).
 */
export class SqliteCollection<T extends Doc> implements Collection<T> {
  private readonly table: string;
  private readonly statements = new Map<string, Database.Statement>();
  /** Every field path covered by an index (each holds a scalar or null, enforced on write). */
  private indexed = new Set<string>();

  constructor(
    readonly name: string,
    private readonly ctx: SqliteStoreContext,
  ) {
    this.table = tableName(name);
    ctx.db.exec(`CREATE TABLE IF NOT EXISTS ${this.table} (_id TEXT PRIMARY KEY NOT NULL, doc TEXT NOT NULL)`);
    this.loadIndexedFields();
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    assertFindOptions(options, this.name);
    this.ctx.assertOpen();
    const compiled = this.compile(filter);
    const order = compileSort(options?.sort);
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
    const text = this.encode(doc);
    await this.ctx.writeGate();
    this.ctx.assertOpen();
    this.write(() => this.statement('insert', `INSERT INTO ${this.table} (_id, doc) VALUES (?, ?)`).run(doc._id, text), doc._id);
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
      const compiled = this.compile(filter);
      const row = compiled.exact
        ? (this.statement(`row:${compiled.shape}`, `SELECT _id, doc FROM ${this.table} WHERE ${compiled.where} LIMIT 1`).get(...compiled.params) as Row | undefined)
        : this.scanRows(filter, compiled, 1)[0];
      if (row) return this.rewrite(row, update);
      if (!options?.upsert) return { matched: 0, modified: 0, upserted: false };
    }
    const doc = upsertSeed(filter);
    applyUpdate(doc, update, this.name);
    doc['_id'] ??= randomUUID();
    if (typeof doc['_id'] !== 'string') throw new TypeError(`${this.name}: _id must be a string`);
    const id = doc['_id'];
    const text = this.encode(doc);
    this.write(() => this.statement('insert', `INSERT INTO ${this.table} (_id, doc) VALUES (?, ?)`).run(id, text), id);
    return { matched: 0, modified: 0, upserted: true };
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    assertOperatorUpdate(update, this.name);
    await this.ctx.writeGate();
    this.ctx.assertOpen();
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
    const text = this.encode(doc);
    await this.ctx.writeGate();
    this.ctx.assertOpen();
    const stmt = this.statement('replace', `INSERT INTO ${this.table} (_id, doc) VALUES (?, ?) ON CONFLICT (_id) DO UPDATE SET doc = excluded.doc`);
    this.write(() => stmt.run(doc._id, text), doc._id);
  }

  async deleteMany(filter: Filter): Promise<number> {
    await this.ctx.writeGate();
    this.ctx.assertOpen();
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
   * SQLite specifics: an index is an expression index on `json_extract(doc, '$.<field>')` (directions are
   * kept in the definition; SQLite reads an index both ways). Indexed fields may hold only strings,
   * numbers, booleans or null: a write that puts an array, a sub-document or a Date there is refused
   * with a TypeError. Documents missing the field (or holding null) never collide in a unique index,
   * sparse or not. An index with the same fields but another `unique` is replaced.
   * @throws TypeError on a field path outside `[A-Za-z0-9_-]` segments, or when a document already
   *   holds a non-scalar in an indexed field; DuplicateKeyError when a unique index cannot be built.
   */
  async ensureIndex(index: IndexSpec): Promise<void> {
    const fields = Object.keys(index.fields);
    if (fields.length === 0) throw new TypeError(`${this.name}: an index needs at least one field`);
    for (const f of fields) {
      if (f !== '_id' && !isSqlPath(f)) throw new TypeError(`${this.name}: cannot index field ${JSON.stringify(f)}`);
    }
    await this.ctx.writeGate();
    this.ctx.assertOpen();
    const db = this.ctx.db;
    for (const f of fields.filter((x) => x !== '_id')) {
      const bad = db.prepare(`SELECT _id FROM ${this.table} WHERE json_type(doc, '$.${f}') IN ('array', 'object') LIMIT 1`).pluck().get() as string | undefined;
      if (bad !== undefined) throw new TypeError(`${this.name}: cannot index ${f}: document ${bad} holds an array or a sub-document there`);
    }
    const unique = index.unique ? 1 : 0;
    const key = JSON.stringify(fields);
    const existing = db.prepare('SELECT "unique" FROM read_indexes WHERE collection = ? AND fields = ?').pluck().get(this.name, key) as number | undefined;
    if (existing === unique) return;
    const name = indexName(this.name, fields);
    const columns = fields.map((f) => `${fieldExpr(f)} ${index.fields[f] === -1 ? 'DESC' : 'ASC'}`).join(', ');
    try {
      db.transaction(() => {
        db.exec(`DROP INDEX IF EXISTS ${name}`);
        db.exec(`CREATE ${unique ? 'UNIQUE ' : ''}INDEX ${name} ON ${this.table} (${columns})`);
        db.prepare('INSERT OR REPLACE INTO read_indexes (collection, fields, "unique") VALUES (?, ?, ?)').run(this.name, key, unique);
      })();
    } catch (err) {
      if (isUniqueViolation(err)) throw new DuplicateKeyError(this.name, `cannot build unique index on ${fields.join(', ')}`, { cause: err });
      throw err;
    }
    this.loadIndexedFields();
  }

  async drop(): Promise<void> {
    await this.ctx.writeGate();
    this.ctx.assertOpen();
    const db = this.ctx.db;
    this.statements.clear();
    db.transaction(() => {
      db.exec(`DROP TABLE IF EXISTS ${this.table}`);
      db.prepare('DELETE FROM read_indexes WHERE collection = ?').run(this.name);
      db.exec(`CREATE TABLE ${this.table} (_id TEXT PRIMARY KEY NOT NULL, doc TEXT NOT NULL)`);
    })();
    this.indexed = new Set();
  }

  // ---------------------------------------------------------------------------------------------

  private loadIndexedFields(): void {
    const specs = this.ctx.db.prepare('SELECT fields FROM read_indexes WHERE collection = ?').pluck().all(this.name) as string[];
    this.indexed = new Set(specs.flatMap((s) => JSON.parse(s) as string[]));
    this.statements.clear();
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
    const test = sift(filter);
    const out: { row: Row; doc: T }[] = [];
    if (max <= 0) return out;
    const stmt = this.statement(`scan:${compiled.shape}`, `SELECT _id, doc FROM ${this.table} WHERE ${compiled.where}`);
    for (const row of stmt.iterate(...compiled.params) as IterableIterator<Row>) {
      const doc = decodeDoc<T>(row.doc);
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
    const text = this.encode(doc);
    if (text === row.doc) return { matched: 1, modified: 0, upserted: false };
    this.write(() => this.statement('setDoc', `UPDATE ${this.table} SET doc = ? WHERE _id = ?`).run(text, row._id), row._id);
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
    for (const path of paths) {
      if (path === '_id' || !PLAIN_FIELD.test(path)) return undefined;
      const value = set[path];
      if (value === undefined) return undefined;
      for (const f of this.indexed) if (f.startsWith(`${path}.`)) return undefined;
      if (this.indexed.has(path) && value !== null && typeof value === 'object') return undefined;
      params.push(encodeValue(value, this.name));
    }
    const args = paths.map((p) => `'$.${p}', json(?)`).join(', ');
    const stmt = this.statement(`fastSet:${paths.join(',')}`, `UPDATE ${this.table} SET doc = json_set(doc, ${args}) WHERE _id = ?`);
    return this.write(() => stmt.run(...params, id), id).changes;
  }

  /** Encodes a document after checking its indexed fields hold scalars. */
  private encode(doc: Record<string, unknown>): string {
    for (const path of this.indexed) {
      const value = valueAt(doc, path);
      if (value !== null && typeof value === 'object') {
        throw new TypeError(`${this.name}: indexed field ${path} must hold a string, a number, a boolean or null`);
      }
    }
    return encodeValue(doc, this.name);
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
