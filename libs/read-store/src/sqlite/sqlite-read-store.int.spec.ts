/**
 * What the SQLite read store adds to the port contract (read-store.contract.int.spec.ts): answers from
 * SQL on indexed fields equal sift's answers (MongoDB semantics) on random documents, hot queries use an
 * index, indexed fields refuse non-scalars, and transactions commit, roll back and keep others' writes out.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import sift from 'sift';
import { DuplicateKeyError, type Doc, type Filter, type ReadStore } from '../read-store.port';
import { SqliteReadStore } from './sqlite-read-store';

interface Row extends Doc {
  g?: string | null;
  n?: number | null;
  b?: boolean;
  s?: string;
}

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('SQLite read store', () => {
  let dir: string;
  let store: SqliteReadStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-read-store-'));
    store = new SqliteReadStore({ file: path.join(dir, 'read.sqlite') });
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers filters on indexed fields in SQL exactly as MongoDB semantics say (300 random documents, 200 random filters)', async () => {
    const next = random(42);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
    const docs: Row[] = [];
    for (let i = 0; i < 300; i++) {
      const doc: Row = { _id: `d${String(i).padStart(3, '0')}` };
      const g = pick(['a', 'b', 'c', null, undefined]);
      if (g !== undefined) doc.g = g;
      const n = pick([0, 1, 2, 3.5, -1, null, undefined]);
      if (n !== undefined) doc.n = n;
      const b = pick([true, false, undefined]);
      if (b !== undefined) doc.b = b;
      doc.s = pick(['x', 'y', 'z']);
      docs.push(doc);
    }
    const indexed = store.collection<Row>('indexed');
    const plain = store.collection<Row>('plain');
    await indexed.ensureIndex({ fields: { g: 1, n: 1 } });
    await indexed.ensureIndex({ fields: { b: 1 } });
    for (const d of docs) {
      await indexed.insertOne(d);
      await plain.insertOne(d);
    }
    const condition = (): Filter => {
      const field = pick(['g', 'n', 'b', '_id']);
      const value = field === 'g' ? pick(['a', 'b', null]) : field === 'n' ? pick([0, 1, 3.5, -1, null]) : field === 'b' ? pick([true, false, null]) : pick(['d001', 'd150', 'nope']);
      const op = pick(['eq', '$ne', '$in', '$lt', '$gte', '$exists']);
      if (op === 'eq') return { [field]: value };
      if (op === '$in') return { [field]: { $in: [value, pick(['a', 1, true, null])] } };
      if (op === '$exists') return { [field]: { $exists: next() < 0.5 } };
      return { [field]: { [op]: value } };
    };
    for (let i = 0; i < 200; i++) {
      const filter: Filter = next() < 0.3 ? { $or: [condition(), condition()] } : { ...condition(), ...condition() };
      const expected = docs.filter(sift(filter)).map((d) => d._id).sort();
      const label = JSON.stringify(filter);
      expect([label, (await indexed.find(filter)).map((d) => d._id).sort()]).toEqual([label, expected]);
      expect([label, (await plain.find(filter)).map((d) => d._id).sort()]).toEqual([label, expected]);
      expect([label, await indexed.count(filter)]).toEqual([label, expected.length]);
    }
    const sorted = await indexed.find({ g: { $in: ['a', 'b'] } }, { sort: { g: -1, n: 1 }, skip: 3, limit: 20 });
    const bySift = docs.filter(sift({ g: { $in: ['a', 'b'] } })).sort((x, y) => (x.g! < y.g! ? 1 : x.g! > y.g! ? -1 : (x.n ?? -Infinity) - (y.n ?? -Infinity)));
    expect(sorted.map((d) => [d.g, d.n ?? null])).toEqual(bySift.slice(3, 23).map((d) => [d.g, d.n ?? null]));
  });

  it('serves the hot queries of the read models from an index, not a scan', async () => {
    const c = store.collection('acceptances');
    await c.ensureIndex({ fields: { signer: 1, status: 1, submittedAt: -1 } });
    await c.ensureIndex({ fields: { transactionSignature: 1 } });
    for (let i = 0; i < 50; i++) await c.insertOne({ _id: `a${i}`, signer: `s${i % 5}`, status: 'confirmed', submittedAt: `2024-01-0${(i % 9) + 1}`, transactionSignature: `t${i}` });
    await c.find({ signer: 's1', status: 'confirmed' }, { sort: { submittedAt: -1 }, limit: 10 });
    await c.findOne({ transactionSignature: 't7' });
    await store.close();
    const db = new Database(path.join(dir, 'read.sqlite'), { readonly: true });
    const plan = (sql: string, ...params: unknown[]) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');
    expect(plan('SELECT doc FROM "rm_acceptances" WHERE "f:signer" = ? AND "f:status" = ? ORDER BY "f:submittedAt" DESC LIMIT 10', 's1', 'confirmed')).toMatch(/USING INDEX/);
    expect(plan('SELECT doc FROM "rm_acceptances" WHERE "f:transactionSignature" = ? LIMIT 1', 't7')).toMatch(/USING INDEX/);
    db.close();
    store = new SqliteReadStore({ file: path.join(dir, 'read.sqlite') });
    expect((await store.collection('acceptances').findOne({ transactionSignature: 't7' }))?._id).toBe('a7');
  });

  it('drop keeps the indexed fields as empty unindexed columns: writes after it fill them, and the index is built again from them', async () => {
    const c = store.collection<Row>('rebuilt');
    await c.ensureIndex({ fields: { g: 1 } });
    for (let i = 0; i < 20; i++) await c.insertOne({ _id: `old${i}`, g: 'old' });
    await c.drop();
    const db = new Database(path.join(dir, 'read.sqlite'), { readonly: true });
    const indexes = () => db.prepare(`SELECT name FROM pragma_index_list('rm_rebuilt')`).pluck().all() as string[];
    expect(indexes().some((n) => n.includes('g'))).toBe(false);
    for (let i = 0; i < 30; i++) await c.insertOne({ _id: `d${i}`, g: i % 3 === 0 ? 'x' : 'y', n: i });
    await c.updateOne({ _id: 'd1' }, { $set: { g: 'x' } });
    // Read from the column while no index exists, then after the index is built from it: the same answers.
    const xs = ['d0', 'd1', 'd12', 'd15', 'd18', 'd21', 'd24', 'd27', 'd3', 'd6', 'd9'];
    expect((await c.find({ g: 'x' }, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(xs);
    expect(db.prepare(`SELECT COUNT(*) FROM "rm_rebuilt" WHERE "f:g" = 'x'`).pluck().get()).toBe(xs.length);
    await c.ensureIndex({ fields: { g: 1 } });
    expect(indexes().some((n) => n.includes('g'))).toBe(true);
    expect((await c.find({ g: 'x' }, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(xs);
    expect(db.prepare(`SELECT COUNT(*) FROM "rm_rebuilt" WHERE "f:g" IS json_extract(doc, '$.g')`).pluck().get()).toBe(30);
    expect(await c.count({ g: 'old' })).toBe(0);
    db.close();
  });

  it('refuses an array, a sub-document or a Date in an indexed field, on every write path and when indexing', async () => {
    const c = store.collection('things');
    await c.ensureIndex({ fields: { kind: 1 } });
    await expect(c.insertOne({ _id: 'a', kind: ['x'] })).rejects.toThrow(TypeError);
    await expect(c.replaceOne({ _id: 'a', kind: { x: 1 } })).rejects.toThrow(TypeError);
    await c.insertOne({ _id: 'b', kind: 'x' });
    await expect(c.updateOne({ _id: 'b' }, { $set: { kind: new Date() } })).rejects.toThrow(TypeError);
    await expect(c.updateOne({ _id: 'b' }, { $push: { kind: 'y' } })).rejects.toThrow(TypeError);
    expect(await c.find({})).toEqual([{ _id: 'b', kind: 'x' }]);
    await c.insertOne({ _id: 'c', tags: ['t'] });
    await expect(c.ensureIndex({ fields: { tags: 1 } })).rejects.toThrow(TypeError);
  });

  it('a transaction commits its writes together, rolls them back on failure, and keeps other writers out', async () => {
    const c = store.collection('t');
    await store.transaction(async (tx) => {
      await tx.collection('t').insertOne({ _id: '1' });
      await tx.saveCheckpoint('p.v1', 5n);
    });
    await expect(
      store.transaction(async (tx) => {
        await tx.collection('t').insertOne({ _id: '2' });
        // A nested transaction on the received store joins the open one.
        await tx.transaction!(async (inner) => inner.saveCheckpoint('p.v1', 6n));
        throw new Error('handler failed');
      }),
    ).rejects.toThrow('handler failed');
    expect((await c.find({})).map((d) => d._id)).toEqual(['1']);
    expect(await store.getCheckpoint('p.v1')).toBe(5n);

    // A write from outside waits for the open transaction, so its rollback does not take the write along.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const failing = store.transaction(async (tx) => {
      await tx.collection('t').insertOne({ _id: 'inside' });
      await gate;
      throw new Error('rolled back');
    });
    const outside = c.insertOne({ _id: 'outside' });
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await expect(failing).rejects.toThrow('rolled back');
    await outside;
    expect((await c.find({}, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(['1', 'outside']);
  });

  it('keeps no document in memory: a reopened store finds its data on disk', async () => {
    await store.transaction(async (tx) => {
      const c = tx.collection<Row>('big');
      for (let i = 0; i < 2_000; i++) await c.insertOne({ _id: `k${i}`, s: 'x'.repeat(100) });
    });
    await store.close();
    const reopened: ReadStore = new SqliteReadStore({ file: path.join(dir, 'read.sqlite') });
    expect(await reopened.collection('big').count({})).toBe(2_000);
    await reopened.close();
    store = new SqliteReadStore({ file: path.join(dir, 'read.sqlite') });
  });
});

describe('SQLite read store: index builds on large collections', () => {
  const ROWS = 20_000;
  /** The `n` of the documents with `g: 'g1'` the filled store holds, largest first. */
  const g1 = Array.from({ length: ROWS }, (_, i) => i)
    .filter((i) => i % 97 === 1)
    .reverse();
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-index-build-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A store whose collection `big` holds ROWS documents, none of its fields indexed yet. */
  async function filled(options: { offThreadIndexMinRows?: number }): Promise<SqliteReadStore> {
    const store = new SqliteReadStore({ file: path.join(dir, 'read.sqlite'), offThreadIndexMinRows: options.offThreadIndexMinRows });
    await store.transaction(async (tx) => {
      const c = tx.collection<Row>('big');
      for (let i = 0; i < ROWS; i++) await c.insertOne({ _id: `k${String(i).padStart(6, '0')}`, g: `g${i % 97}`, n: i, s: 'x'.repeat(200) });
    });
    return store;
  }

  /** Runs `use` on a {@link filled} store, closed afterwards whatever happens. */
  async function withFilled(options: { offThreadIndexMinRows?: number }, use: (store: SqliteReadStore) => Promise<void>): Promise<void> {
    const store = await filled(options);
    try {
      await use(store);
    } finally {
      await store.close();
    }
  }

  /**
   * Starts building an index on `g, n` and, until it ends, reads one document per event-loop turn; a write is issued
   * as the build starts. @returns the reads answered while the build ran.
   */
  async function buildWhileReading(store: SqliteReadStore): Promise<number> {
    const c = store.collection<Row>('big');
    let building = true;
    const build = c.ensureIndex({ fields: { g: 1, n: -1 } }).then(() => {
      building = false;
    });
    const write = c.insertOne({ _id: 'written-meanwhile', g: 'g1', n: -1 });
    let readsDuringBuild = 0;
    for (let i = 0; ; i++) {
      await new Promise((resolve) => setImmediate(resolve)); // the next turn of the event loop
      if (!building) break;
      const doc = await c.findOne({ _id: `k${String(i % ROWS).padStart(6, '0')}` });
      if (building && doc?.n === i % ROWS) readsDuringBuild += 1;
    }
    await Promise.all([build, write]);
    return readsDuringBuild;
  }

  /** The indexed query (answered from the index's columns alone) finds the documents, the write of the build's time included. */
  async function expectIndexedAnswers(store: SqliteReadStore): Promise<void> {
    const c = store.collection<Row>('big');
    const found = await c.find({ g: 'g1' }, { sort: { n: -1 } });
    expect(found.map((d) => d.n)).toEqual([...g1, -1]);
    expect(found.at(-1)?._id).toBe('written-meanwhile');
  }

  it('builds in a worker thread: reads are answered meanwhile, writes land after it, and queries then use the index', async () =>
    withFilled({}, async (store) => {
      expect(await buildWhileReading(store)).toBeGreaterThan(0);
      await expectIndexedAnswers(store);
      const db = new Database(path.join(dir, 'read.sqlite'), { readonly: true });
      const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT doc FROM rm_big WHERE "f:g" = 'g1' ORDER BY "f:n" DESC`).all() as { detail: string }[];
      db.close();
      expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING INDEX/);
    }));

  it('on the store\'s own connection (the rebuild command\'s choice), the same build answers no read until it ends', async () =>
    withFilled({ offThreadIndexMinRows: Infinity }, async (store) => {
      expect(await buildWhileReading(store)).toBe(0);
      await expectIndexedAnswers(store);
    }));

  it('builds a collection\'s indexes together, in one transaction: a refused one leaves none of the set behind', async () =>
    withFilled({}, async (store) => {
      const c = store.collection<Row>('big');
      const refused = c.ensureIndexes([{ fields: { n: 1 } }, { fields: { g: 1 }, unique: true }, { fields: { s: 1 } }]);
      await expect(refused).rejects.toThrow(DuplicateKeyError);
      await expect(refused).rejects.toThrow('cannot build unique index on g');
      const db = new Database(path.join(dir, 'read.sqlite'), { readonly: true });
      const columns = db.prepare(`SELECT name FROM pragma_table_info('rm_big')`).pluck().all();
      const built = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rm_big' AND sql IS NOT NULL`).pluck().all();
      db.close();
      expect(columns).toEqual(['_id', 'doc']);
      expect(built).toEqual([]);
      await c.ensureIndexes([{ fields: { g: 1, n: -1 } }, { fields: { n: 1 } }]);
      await c.insertOne({ _id: 'written-meanwhile', g: 'g1', n: -1 });
      await expectIndexedAnswers(store);
    }));

  it('refuses in the worker thread as on the connection: a duplicate under a unique index, an array in an indexed field', async () =>
    withFilled({}, async (store) => {
      const c = store.collection<Row>('big');
      await expect(c.ensureIndex({ fields: { g: 1 }, unique: true })).rejects.toBeInstanceOf(DuplicateKeyError);
      const tagged = store.collection<Row & { tags?: unknown[] }>('big');
      await tagged.insertOne({ _id: 'listed', s: 'y', tags: ['a'] });
      await expect(tagged.ensureIndex({ fields: { tags: 1 } })).rejects.toThrow('cannot index tags: document listed holds an array or a sub-document there');
      // Nothing of the refused builds stayed: no column, no index, and writes go on.
      await tagged.insertOne({ _id: 'after', g: 'g1', tags: [1, 2] });
      expect(await tagged.count({ tags: 1 })).toBe(1);
      expect(await c.count({ g: 'g1' })).toBe(g1.length + 1);
    }));
});

describe('SQLite read store: key indexes deferred by drop (an offline rebuild)', () => {
  interface Acc extends Doc {
    status?: string;
    slot?: number | null;
    signer?: string;
    n?: number;
  }
  let dir: string;
  const file = () => path.join(dir, 'read.sqlite');
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-read-store-keys-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The indexes SQLite holds on a collection's table, by the columns they cover (a primary key shows as `pk`). */
  function keyIndexes(db: Database.Database, collection: string): string[] {
    const list = db.prepare(`SELECT name, "unique", origin FROM pragma_index_list('rm_${collection}')`).all() as { name: string; unique: number; origin: string }[];
    return list
      .map((i) => {
        const cols = (db.prepare(`SELECT name FROM pragma_index_info('${i.name}')`).pluck().all() as string[]).join(',');
        return `${i.origin}:${i.unique ? 'unique' : 'plain'}:${cols}`;
      })
      .sort();
  }

  /**
   * The writes a projection's replay makes, by `_id` and otherwise; run against a store with and one without deferral,
   * they must leave the same documents and refuse the same duplicate.
   */
  async function replay(store: SqliteReadStore): Promise<{ docs: Acc[]; duplicate: unknown; seen: (Acc | null)[] }> {
    const c = store.collection<Acc>('acc');
    await c.ensureIndexes([{ fields: { signer: 1 } }]);
    await c.insertOne({ _id: 'z', status: 'old' });
    await c.drop();
    const seen: (Acc | null)[] = [];
    await store.transaction(async (tx) => {
      const t = tx.collection<Acc>('acc');
      for (let i = 0; i < 50; i++) await t.replaceOne({ _id: `k${(i * 7919) % 50}`, status: 'submitted', slot: null, signer: `s${i % 5}`, n: i });
      for (let i = 0; i < 50; i += 2) await t.updateOne({ _id: `k${i}` }, { $set: { status: 'confirmed', slot: i } });
      await t.updateOne({ _id: 'k3' }, { $inc: { n: 100 } });
      await t.updateOne({ _id: 'missing' }, { $set: { status: 'nothing' } });
      await t.updateOne({ _id: 'up' }, { $set: { status: 'upserted' } }, { upsert: true });
      await t.replaceOne({ _id: 'k1', status: 'replaced', signer: 's9' });
      seen.push(await t.findOne({ _id: 'k1' }), await t.findOne({ _id: 'nope' }), await t.findOne({ _id: 'up' }));
    });
    const duplicate = await c.insertOne({ _id: 'k4' }).then(() => undefined, (err: unknown) => err);
    // Filters on other fields are answered while the key index is still deferred.
    seen.push(...(await c.find({ signer: 's9' })));
    await c.ensureIndexes([{ fields: { signer: 1 } }]);
    return { docs: await c.find({}, { sort: { _id: 1 } }), duplicate, seen };
  }

  it('a replay by _id leaves the same documents as with the key index, then the index is built once and named by its columns', async () => {
    const plain = new SqliteReadStore({ file: path.join(dir, 'plain.sqlite') });
    const deferred = new SqliteReadStore({ file: file(), deferKeyIndexes: true });
    try {
      const expected = await replay(plain);
      const got = await replay(deferred);
      expect(got.docs).toHaveLength(51);
      expect(got.docs).toEqual(expected.docs);
      expect(got.seen).toEqual(expected.seen);
      expect(got.seen[0]).toEqual({ _id: 'k1', status: 'replaced', signer: 's9' });
      expect(got.seen[1]).toBeNull();
      expect(got.docs.find((d) => d._id === 'k3')).toMatchObject({ n: 137, status: 'submitted' }) // written last by i = 37 (19 × 37 ≡ 3 mod 50);
      expect(got.duplicate).toBeInstanceOf(DuplicateKeyError);
      expect(expected.duplicate).toBeInstanceOf(DuplicateKeyError);
    } finally {
      await plain.close();
      await deferred.close();
    }
    const db = new Database(file(), { readonly: true });
    try {
      // The refilled table has no primary key: a unique index on _id stands for it, beside the declared index.
      expect(keyIndexes(db, 'acc')).toEqual(['c:plain:f:signer', 'c:unique:_id']);
    } finally {
      db.close();
    }
  });

  it('while the key index is deferred, the table has none; a rolled-back transaction builds it from the rows that remain', async () => {
    const store = new SqliteReadStore({ file: file(), deferKeyIndexes: true });
    try {
      const c = store.collection<Acc>('acc');
      await c.insertOne({ _id: 'a' });
      await c.drop();
      await c.insertOne({ _id: 'kept' });
      const raw = new Database(file(), { readonly: true });
      try {
        expect(keyIndexes(raw, 'acc')).toEqual([]);
      } finally {
        raw.close();
      }
      await expect(
        store.transaction(async (tx) => {
          await tx.collection<Acc>('acc').insertOne({ _id: 'rolled-back' });
          throw new Error('page failed');
        }),
      ).rejects.toThrow('page failed');
      expect(await c.findOne({ _id: 'rolled-back' })).toBeNull();
      expect(await c.findOne({ _id: 'kept' })).toEqual({ _id: 'kept' });
      await c.insertOne({ _id: 'rolled-back', status: 'again' });
      await expect(c.insertOne({ _id: 'kept' })).rejects.toBeInstanceOf(DuplicateKeyError);
      const db = new Database(file(), { readonly: true });
      try {
        expect(keyIndexes(db, 'acc')).toEqual(['c:unique:_id']);
      } finally {
        db.close();
      }
    } finally {
      await store.close();
    }
  });

  it('prepareIndexes gives an empty collection the columns of its indexes, which writes fill; on one holding documents it does nothing', async () => {
    const store = new SqliteReadStore({ file: file() });
    try {
      const empty = store.collection<Acc>('prepared');
      await empty.prepareIndexes!([{ fields: { signer: 1, n: -1 } }]);
      await empty.insertOne({ _id: 'a', signer: 's1', n: 1 });
      await empty.updateOne({ _id: 'a' }, { $set: { signer: 's2' } });
      const full = store.collection<Acc>('full');
      await full.insertOne({ _id: 'b', signer: 's1' });
      await full.prepareIndexes!([{ fields: { signer: 1 } }]);
      const db = new Database(file(), { readonly: true });
      try {
        // Filled by the writes, before any index exists.
        expect(db.prepare('SELECT "f:signer", "f:n" FROM "rm_prepared"').all()).toEqual([{ 'f:signer': 's2', 'f:n': 1 }]);
        expect(keyIndexes(db, 'prepared')).toEqual(['pk:unique:_id']);
        expect((db.prepare(`SELECT name FROM pragma_table_info('rm_full')`).pluck().all() as string[]).sort()).toEqual(['_id', 'doc']);
      } finally {
        db.close();
      }
      await empty.ensureIndexes([{ fields: { signer: 1, n: -1 } }]);
      await full.ensureIndexes([{ fields: { signer: 1 } }]);
      expect(await empty.find({ signer: 's2' })).toEqual([{ _id: 'a', signer: 's2', n: 1 }]);
      expect(await full.find({ signer: 's1' })).toEqual([{ _id: 'b', signer: 's1' }]);
      const check = new Database(file(), { readonly: true });
      try {
        expect(keyIndexes(check, 'prepared')).toEqual(['c:plain:f:signer,f:n', 'pk:unique:_id']);
      } finally {
        check.close();
      }
    } finally {
      await store.close();
    }
  });

  it('close builds a deferred key index; a table left without one (a rebuild killed before it) gets it when next opened', async () => {
    const store = new SqliteReadStore({ file: file(), deferKeyIndexes: true });
    const c = store.collection<Acc>('acc');
    await c.drop();
    await c.insertOne({ _id: 'x', n: 1 });
    await store.close();
    let db = new Database(file());
    expect(keyIndexes(db, 'acc')).toEqual(['c:unique:_id']);
    // What a killed rebuild leaves: the table without key index.
    db.exec('DROP INDEX "key_acc"');
    db.close();
    const reopened = new SqliteReadStore({ file: file() });
    try {
      const r = reopened.collection<Acc>('acc');
      await r.replaceOne({ _id: 'x', n: 2 });
      await expect(r.insertOne({ _id: 'x' })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await r.find({})).toEqual([{ _id: 'x', n: 2 }]);
    } finally {
      await reopened.close();
    }
    db = new Database(file(), { readonly: true });
    try {
      expect(keyIndexes(db, 'acc')).toEqual(['c:unique:_id']);
    } finally {
      db.close();
    }
  });
});
