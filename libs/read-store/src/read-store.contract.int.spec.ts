/**
 * Contract suite of the read store port: every adapter must pass it unchanged.
 * SQLite always runs (a file in a temporary directory), once as configured by default and once building every index in
 * a worker thread; MongoDB runs when MONGODB_URL is set (a throwaway database).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { MongoReadStore, databaseFromUrl } from './mongo-read-store';
import { SqliteReadStore } from './sqlite/sqlite-read-store';
import { DuplicateKeyError, type Doc, type IndexSpec, type ReadStore } from './read-store.port';

interface Harness {
  name: string;
  open(): Promise<ReadStore>;
  /** Closes and opens the same data again (persistent adapters only). */
  reopen?(store: ReadStore): Promise<ReadStore>;
  cleanup(): Promise<void>;
}

/** The SQLite adapter; `offThreadIndexMinRows: 1` builds every index of a non-empty collection in a worker thread. */
function sqliteHarness(offThreadIndexMinRows?: number): Harness {
  let dir = '';
  const options = offThreadIndexMinRows === undefined ? {} : { offThreadIndexMinRows };
  return {
    name: offThreadIndexMinRows === undefined ? 'SQLite adapter' : 'SQLite adapter, index builds in a worker thread',
    async open() {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'read-store-contract-'));
      return SqliteReadStore.open({ file: path.join(dir, 'read.sqlite'), ...options });
    },
    async reopen(store) {
      await store.close();
      return SqliteReadStore.open({ file: path.join(dir, 'read.sqlite'), ...options });
    },
    async cleanup() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function mongoHarness(url: string): Harness {
  const database = `svc_contract_${randomBytes(4).toString('hex')}`;
  return {
    name: 'MongoDB adapter',
    open: () => MongoReadStore.connect({ url, database }),
    async cleanup() {
      const client = new MongoClient(url);
      try {
        await client.db(database).dropDatabase();
      } finally {
        await client.close();
      }
    },
  };
}

const MONGODB_URL = process.env['MONGODB_URL'];
const harnesses: Harness[] = [sqliteHarness(), sqliteHarness(1), ...(MONGODB_URL ? [mongoHarness(MONGODB_URL)] : [])];

interface Item extends Doc {
  n: number;
  name: string;
  group?: string | null;
  tags?: string[];
  nested?: { a?: number; b?: string };
}

const ITEMS: Item[] = [
  { _id: 'i1', n: 1, name: 'alpha', group: 'x', tags: ['red', 'blue'], nested: { a: 1, b: 'p' } },
  { _id: 'i2', n: 2, name: 'bravo', group: 'y', tags: [], nested: { a: 2 } },
  { _id: 'i3', n: 3, name: 'charlie', group: null, tags: ['blue'] },
  { _id: 'i4', n: 4, name: 'delta', group: 'x' },
  { _id: 'i5', n: 5, name: 'echo', group: 'y', tags: ['green'] },
];

const ids = (docs: Doc[]) => docs.map((d) => d._id);
const sortedIds = (docs: Doc[]) => ids(docs).sort();

describe.each(harnesses)('$name', (harness) => {
  let store: ReadStore;
  let seq = 0;
  /** A fresh collection name per test, so tests never see each other's documents. */
  const fresh = () => `c${++seq}_${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    store = await harness.open();
  });
  afterAll(async () => {
    await store.close();
    await harness.cleanup();
  });

  async function seeded() {
    const c = store.collection<Item>(fresh());
    for (const item of ITEMS) await c.insertOne(item);
    return c;
  }

  describe('find with the filter subset', () => {
    it('equality, including dotted paths and array membership', async () => {
      const c = await seeded();
      expect(sortedIds(await c.find({ group: 'x' }))).toEqual(['i1', 'i4']);
      expect(sortedIds(await c.find({ 'nested.a': 2 }))).toEqual(['i2']);
      expect(sortedIds(await c.find({ tags: 'blue' }))).toEqual(['i1', 'i3']);
      expect(sortedIds(await c.find({ group: 'x', n: 4 }))).toEqual(['i4']);
      expect(sortedIds(await c.find({}))).toEqual(['i1', 'i2', 'i3', 'i4', 'i5']);
    });

    it('null equality matches null and missing fields', async () => {
      const c = await seeded();
      expect(sortedIds(await c.find({ group: null }))).toEqual(['i3']);
      expect(sortedIds(await c.find({ tags: null }))).toEqual(['i4']);
      expect(sortedIds(await c.find({ 'nested.b': null }))).toEqual(['i2', 'i3', 'i4', 'i5']);
    });

    it('$lt $lte $gt $gte', async () => {
      const c = await seeded();
      expect(sortedIds(await c.find({ n: { $lt: 3 } }))).toEqual(['i1', 'i2']);
      expect(sortedIds(await c.find({ n: { $lte: 3 } }))).toEqual(['i1', 'i2', 'i3']);
      expect(sortedIds(await c.find({ n: { $gt: 3 } }))).toEqual(['i4', 'i5']);
      expect(sortedIds(await c.find({ n: { $gte: 2, $lt: 4 } }))).toEqual(['i2', 'i3']);
      expect(sortedIds(await c.find({ name: { $gte: 'charlie' } }))).toEqual(['i3', 'i4', 'i5']);
    });

    it('$ne, including missing fields and arrays', async () => {
      const c = await seeded();
      expect(sortedIds(await c.find({ group: { $ne: 'x' } }))).toEqual(['i2', 'i3', 'i5']);
      expect(sortedIds(await c.find({ tags: { $ne: 'blue' } }))).toEqual(['i2', 'i4', 'i5']);
      expect(sortedIds(await c.find({ group: { $ne: null } }))).toEqual(['i1', 'i2', 'i4', 'i5']);
      expect(sortedIds(await c.find({ n: { $gt: 1, $ne: 4 } }))).toEqual(['i2', 'i3', 'i5']);
    });

    it('$in, on scalars, arrays and null', async () => {
      const c = await seeded();
      expect(sortedIds(await c.find({ n: { $in: [1, 5, 9] } }))).toEqual(['i1', 'i5']);
      expect(sortedIds(await c.find({ tags: { $in: ['green', 'red'] } }))).toEqual(['i1', 'i5']);
      expect(sortedIds(await c.find({ group: { $in: ['y', null] } }))).toEqual(['i2', 'i3', 'i5']);
      expect(sortedIds(await c.find({ tags: { $in: [null, 'green'] } }))).toEqual(['i4', 'i5']);
      expect(await c.find({ n: { $in: [] } })).toEqual([]);
    });

    it('$exists, including null values and empty arrays', async () => {
      const c = await seeded();
      expect(sortedIds(await c.find({ tags: { $exists: true } }))).toEqual(['i1', 'i2', 'i3', 'i5']);
      expect(sortedIds(await c.find({ tags: { $exists: false } }))).toEqual(['i4']);
      expect(sortedIds(await c.find({ group: { $exists: true } }))).toEqual(['i1', 'i2', 'i3', 'i4', 'i5']);
      expect(sortedIds(await c.find({ 'nested.b': { $exists: true } }))).toEqual(['i1']);
    });

    it('$or, alone and next to other conditions', async () => {
      const c = await seeded();
      expect(sortedIds(await c.find({ $or: [{ n: 1 }, { name: 'echo' }] }))).toEqual(['i1', 'i5']);
      expect(sortedIds(await c.find({ group: 'x', $or: [{ n: { $gt: 3 } }, { tags: 'red' }] }))).toEqual(['i1', 'i4']);
      expect(sortedIds(await c.find({ $or: [{ group: null }, { n: 2 }] }))).toEqual(['i2', 'i3']);
    });

    it('uses an index transparently (same answers with and without)', async () => {
      const c = await seeded();
      await c.ensureIndex({ fields: { group: 1 } });
      await c.ensureIndex({ fields: { group: 1, n: -1 } });
      expect(sortedIds(await c.find({ group: 'x' }))).toEqual(['i1', 'i4']);
      expect(sortedIds(await c.find({ group: 'y', n: 5 }))).toEqual(['i5']);
      expect(sortedIds(await c.find({ group: null }))).toEqual(['i3']);
      expect(sortedIds(await c.find({ group: { $in: ['x', 'y'] } }))).toEqual(['i1', 'i2', 'i4', 'i5']);
    });
  });

  describe('find options', () => {
    it('sorts ascending and descending', async () => {
      const c = await seeded();
      expect(ids(await c.find({}, { sort: { n: 1 } }))).toEqual(['i1', 'i2', 'i3', 'i4', 'i5']);
      expect(ids(await c.find({}, { sort: { name: -1 } }))).toEqual(['i5', 'i4', 'i3', 'i2', 'i1']);
    });

    it('sorts on two keys in the given priority', async () => {
      const c = await seeded();
      const found = await c.find({ group: { $in: ['x', 'y'] } }, { sort: { group: 1, n: -1 } });
      expect(ids(found)).toEqual(['i4', 'i1', 'i5', 'i2']);
      const reversed = await c.find({ group: { $in: ['x', 'y'] } }, { sort: { group: -1, n: 1 } });
      expect(ids(reversed)).toEqual(['i2', 'i5', 'i1', 'i4']);
    });

    it('applies skip and limit after sorting', async () => {
      const c = await seeded();
      expect(ids(await c.find({}, { sort: { n: -1 }, limit: 2 }))).toEqual(['i5', 'i4']);
      expect(ids(await c.find({}, { sort: { n: -1 }, skip: 1, limit: 2 }))).toEqual(['i4', 'i3']);
      expect(ids(await c.find({}, { sort: { n: 1 }, skip: 4 }))).toEqual(['i5']);
      expect(await c.find({}, { sort: { n: 1 }, skip: 10 })).toEqual([]);
      expect(await c.find({}, { limit: 3 })).toHaveLength(3);
    });

    it('rejects a negative or fractional limit/skip', async () => {
      const c = await seeded();
      await expect(c.find({}, { limit: -1 })).rejects.toThrow(TypeError);
      await expect(c.find({}, { skip: 1.5 })).rejects.toThrow(TypeError);
    });
  });

  it('findOne returns one matching document or null', async () => {
    const c = await seeded();
    expect(await c.findOne({ _id: 'i3' })).toEqual(ITEMS[2]);
    expect((await c.findOne({ group: 'y', n: { $gt: 2 } }))?._id).toBe('i5');
    expect(await c.findOne({ _id: 'nope' })).toBeNull();
  });

  it('count counts matching documents', async () => {
    const c = await seeded();
    expect(await c.count({})).toBe(5);
    expect(await c.count({ group: 'x' })).toBe(2);
    expect(await c.count({ n: { $gt: 10 } })).toBe(0);
  });

  it('round-trips values: strings, numbers, booleans, null, arrays, sub-documents, Dates', async () => {
    const c = store.collection(fresh());
    const doc = { _id: 'v', s: 'é✓', i: 42, f: 1.5, neg: -3, t: true, z: null, arr: [1, 'a', { k: [2] }], sub: { deep: { x: 1 } }, when: new Date('2024-05-06T07:08:09.010Z') };
    await c.insertOne(doc);
    expect(await c.findOne({ _id: 'v' })).toEqual(doc);
    expect(await c.findOne({ when: { $gte: new Date('2024-01-01T00:00:00Z') } })).toEqual(doc);
  });

  it('drops undefined values and rejects bigints', async () => {
    const c = store.collection(fresh());
    await c.insertOne({ _id: 'u', a: 1, gone: undefined });
    expect(await c.findOne({ _id: 'u' })).toEqual({ _id: 'u', a: 1 });
    await expect(c.insertOne({ _id: 'b', big: 1n })).rejects.toThrow(TypeError);
    await expect(c.insertOne({ _id: 'b', deep: { big: [1n] } })).rejects.toThrow(TypeError);
    await expect(c.updateOne({ _id: 'u' }, { $set: { big: 2n } })).rejects.toThrow(TypeError);
    expect(await c.count({})).toBe(1);
  });

  it('insertOne rejects a taken _id with DuplicateKeyError', async () => {
    const c = await seeded();
    await expect(c.insertOne({ _id: 'i1', n: 9, name: 'again' })).rejects.toBeInstanceOf(DuplicateKeyError);
    expect((await c.findOne({ _id: 'i1' }))?.name).toBe('alpha');
  });

  describe('updateOne', () => {
    it('$set, including dotted paths and new fields', async () => {
      const c = await seeded();
      const r = await c.updateOne({ _id: 'i1' }, { $set: { name: 'ALPHA', 'nested.b': 'q', 'extra.deep': true } });
      expect(r).toEqual({ matched: 1, modified: 1, upserted: false });
      expect(await c.findOne({ _id: 'i1' })).toEqual({ ...ITEMS[0], name: 'ALPHA', nested: { a: 1, b: 'q' }, extra: { deep: true } });
    });

    it('$unset', async () => {
      const c = await seeded();
      await c.updateOne({ _id: 'i1' }, { $unset: { group: '', 'nested.a': '' } });
      expect(await c.findOne({ _id: 'i1' })).toEqual({ _id: 'i1', n: 1, name: 'alpha', tags: ['red', 'blue'], nested: { b: 'p' } });
    });

    it('$inc, on an existing and on a missing field', async () => {
      const c = await seeded();
      await c.updateOne({ _id: 'i2' }, { $inc: { n: 10, counter: 2 } });
      const doc = await c.findOne({ _id: 'i2' });
      expect(doc?.n).toBe(12);
      expect(doc?.['counter']).toBe(2);
    });

    it('$push, onto an existing and a missing array', async () => {
      const c = await seeded();
      await c.updateOne({ _id: 'i1' }, { $push: { tags: 'red' } });
      await c.updateOne({ _id: 'i4' }, { $push: { tags: 'new' } });
      expect((await c.findOne({ _id: 'i1' }))?.tags).toEqual(['red', 'blue', 'red']);
      expect((await c.findOne({ _id: 'i4' }))?.tags).toEqual(['new']);
    });

    it('$addToSet adds only absent values', async () => {
      const c = await seeded();
      await c.updateOne({ _id: 'i1' }, { $addToSet: { tags: 'red' } });
      await c.updateOne({ _id: 'i1' }, { $addToSet: { tags: 'white' } });
      await c.updateOne({ _id: 'i4' }, { $addToSet: { tags: 'solo' } });
      expect((await c.findOne({ _id: 'i1' }))?.tags).toEqual(['red', 'blue', 'white']);
      expect((await c.findOne({ _id: 'i4' }))?.tags).toEqual(['solo']);
    });

    it('updates only the first match, and reports no match', async () => {
      const c = await seeded();
      const r = await c.updateOne({ group: 'x' }, { $set: { touched: true } });
      expect(r.matched).toBe(1);
      expect(await c.count({ touched: true })).toBe(1);
      expect(await c.updateOne({ _id: 'nope' }, { $set: { a: 1 } })).toEqual({ matched: 0, modified: 0, upserted: false });
      expect(await c.count({})).toBe(5);
    });

    it('rejects a replacement document or an empty update', async () => {
      const c = await seeded();
      await expect(c.updateOne({ _id: 'i1' }, { name: 'x' } as never)).rejects.toThrow(TypeError);
      await expect(c.updateOne({ _id: 'i1' }, {})).rejects.toThrow(TypeError);
      expect(await c.findOne({ _id: 'i1' })).toEqual(ITEMS[0]);
    });

    it('upsert inserts the filter equalities plus the update, as MongoDB does', async () => {
      const c = store.collection(fresh());
      const r = await c.updateOne(
        { _id: 'k1', kind: 'thing', 'meta.source': 'test', n: { $gt: 5 }, tag: { $in: ['a', 'b'] } },
        { $set: { name: 'new', 'meta.seen': true }, $inc: { count: 1 }, $push: { log: 'created' }, $addToSet: { set: 'x' } },
        { upsert: true },
      );
      expect(r).toEqual({ matched: 0, modified: 0, upserted: true });
      expect(await c.findOne({ _id: 'k1' })).toEqual({
        _id: 'k1',
        kind: 'thing',
        meta: { source: 'test', seen: true },
        name: 'new',
        count: 1,
        log: ['created'],
        set: ['x'],
      });
      // The same upsert again updates the document instead.
      const again = await c.updateOne({ _id: 'k1' }, { $inc: { count: 1 } }, { upsert: true });
      expect(again).toEqual({ matched: 1, modified: 1, upserted: false });
      expect((await c.findOne({ _id: 'k1' }))?.['count']).toBe(2);
      expect(await c.count({})).toBe(1);
    });

    it('upsert without an _id in the filter generates a string _id; $set wins over the filter', async () => {
      const c = store.collection(fresh());
      await c.updateOne({ key: 'a', v: 1 }, { $set: { v: 2 } }, { upsert: true });
      const doc = await c.findOne({ key: 'a' });
      expect(typeof doc?._id).toBe('string');
      expect(doc?._id.length).toBeGreaterThan(0);
      expect(doc).toMatchObject({ key: 'a', v: 2 });
    });

    it('upsert takes equalities from $and too', async () => {
      const c = store.collection(fresh());
      await c.updateOne({ $and: [{ _id: 'z' }, { a: 1 }], b: { $exists: false } }, { $set: { c: 3 } }, { upsert: true });
      expect(await c.findOne({ _id: 'z' })).toEqual({ _id: 'z', a: 1, c: 3 });
    });
  });

  it('updateMany updates every match', async () => {
    const c = await seeded();
    const r = await c.updateMany({ group: 'y' }, { $set: { flag: 'on' }, $inc: { n: 100 } });
    expect(r.matched).toBe(2);
    expect(r.upserted).toBe(false);
    expect(sortedIds(await c.find({ flag: 'on', n: { $gt: 100 } }))).toEqual(['i2', 'i5']);
  });

  it('replaceOne replaces the document with the same _id, or inserts it', async () => {
    const c = await seeded();
    await c.replaceOne({ _id: 'i1', n: 100, name: 'replaced' });
    expect(await c.findOne({ _id: 'i1' })).toEqual({ _id: 'i1', n: 100, name: 'replaced' });
    await c.replaceOne({ _id: 'i9', n: 9, name: 'inserted' });
    expect(await c.findOne({ _id: 'i9' })).toEqual({ _id: 'i9', n: 9, name: 'inserted' });
    expect(await c.count({})).toBe(6);
  });

  it('deleteMany removes every match and returns the count', async () => {
    const c = await seeded();
    expect(await c.deleteMany({ group: 'x' })).toBe(2);
    expect(await c.deleteMany({ group: 'x' })).toBe(0);
    expect(sortedIds(await c.find({}))).toEqual(['i2', 'i3', 'i5']);
    expect(await c.deleteMany({})).toBe(3);
    expect(await c.count({})).toBe(0);
  });

  describe('indexes', () => {
    it('a unique index rejects a duplicate on insert, update and replace', async () => {
      const c = await seeded();
      await c.ensureIndex({ fields: { name: 1 }, unique: true });
      await c.ensureIndex({ fields: { name: 1 }, unique: true }); // idempotent
      await expect(c.insertOne({ _id: 'i6', n: 6, name: 'alpha' })).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(c.updateOne({ _id: 'i2' }, { $set: { name: 'alpha' } })).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(c.replaceOne({ _id: 'i3', n: 3, name: 'delta' })).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(c.updateOne({ _id: 'new' }, { $set: { name: 'echo' } }, { upsert: true })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(sortedIds(await c.find({}))).toEqual(['i1', 'i2', 'i3', 'i4', 'i5']);
      expect((await c.findOne({ _id: 'i2' }))?.name).toBe('bravo');
    });

    it('a compound unique index constrains the combination only', async () => {
      const c = store.collection(fresh());
      await c.ensureIndex({ fields: { a: 1, b: -1 }, unique: true });
      await c.insertOne({ _id: '1', a: 1, b: 1 });
      await c.insertOne({ _id: '2', a: 1, b: 2 });
      await c.insertOne({ _id: '3', a: 2, b: 1 });
      await expect(c.insertOne({ _id: '4', a: 1, b: 2 })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(sortedIds(await c.find({ a: 1, b: 2 }))).toEqual(['2']);
    });

    it('a sparse unique index ignores documents without the field', async () => {
      const c = store.collection(fresh());
      await c.ensureIndex({ fields: { email: 1 }, unique: true, sparse: true });
      await c.insertOne({ _id: '1' });
      await c.insertOne({ _id: '2' });
      await c.insertOne({ _id: '3', email: 'a@b' });
      await expect(c.insertOne({ _id: '4', email: 'a@b' })).rejects.toBeInstanceOf(DuplicateKeyError);
    });

    it('building a unique index over duplicates fails', async () => {
      const c = await seeded();
      await expect(c.ensureIndex({ fields: { group: 1 }, unique: true })).rejects.toBeInstanceOf(DuplicateKeyError);
    });

    it('ensureIndexes builds several indexes at once, idempotently, each enforced and queried as if built alone', async () => {
      const c = await seeded();
      const indexes: IndexSpec[] = [{ fields: { name: 1 }, unique: true }, { fields: { group: 1, n: -1 } }, { fields: { 'nested.a': 1 }, unique: true, sparse: true }];
      await c.ensureIndexes(indexes);
      await c.ensureIndexes(indexes);
      await expect(c.insertOne({ _id: 'i6', n: 6, name: 'alpha' })).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(c.insertOne({ _id: 'i7', n: 7, name: 'foxtrot', nested: { a: 2 } })).rejects.toBeInstanceOf(DuplicateKeyError);
      await c.insertOne({ _id: 'i8', n: 8, name: 'golf', group: 'x' });
      expect(ids(await c.find({ group: 'x' }, { sort: { n: -1 } }))).toEqual(['i8', 'i4', 'i1']);
      expect(ids(await c.find({ 'nested.a': 1 }))).toEqual(['i1']);
      await expect(c.ensureIndexes([{ fields: { n: 1 } }, { fields: { group: 1 }, unique: true }])).rejects.toBeInstanceOf(DuplicateKeyError);
    });
  });

  it('drop removes every document and the secondary indexes', async () => {
    const c = await seeded();
    await c.ensureIndex({ fields: { name: 1 }, unique: true });
    await c.drop();
    expect(await c.count({})).toBe(0);
    await c.insertOne({ _id: 'a', name: 'same', n: 1 });
    await c.insertOne({ _id: 'b', name: 'same', n: 2 }); // the unique index is gone
    expect(await c.count({ name: 'same' })).toBe(2);
    await c.drop();
    await c.drop(); // dropping an empty collection is fine
    expect(await c.find({})).toEqual([]);
  });

  it('removeCollection deletes the documents and indexes; the name then starts empty, and an absent name is fine', async () => {
    const c = await seeded();
    await c.ensureIndex({ fields: { name: 1 }, unique: true });
    await store.removeCollection(c.name);
    const again = store.collection<Item>(c.name);
    expect(await again.count({})).toBe(0);
    await again.insertOne({ _id: 'a', name: 'same', n: 1 });
    await again.insertOne({ _id: 'b', name: 'same', n: 2 }); // the unique index went with it
    expect(await again.count({ name: 'same' })).toBe(2);
    await store.removeCollection(fresh()); // never created
    await expect(store.removeCollection('bad name')).rejects.toBeInstanceOf(TypeError);
  });

  it('returned documents and written values are copies', async () => {
    const c = store.collection(fresh());
    const original = { _id: 'm', list: [1, 2], sub: { x: 1 } };
    await c.insertOne(original);
    original.list.push(3);
    original.sub.x = 99;
    const read = (await c.findOne({ _id: 'm' }))!;
    (read['list'] as number[]).push(4);
    const found = await c.find({ _id: 'm' });
    (found[0]!['sub'] as { x: number }).x = 42;
    const value = { deep: { y: 1 } };
    const arr = ['a'];
    await c.updateOne({ _id: 'm' }, { $set: { value }, $push: { list: { z: arr } } });
    value.deep.y = 2;
    arr.push('b');
    expect(await c.findOne({ _id: 'm' })).toEqual({ _id: 'm', list: [1, 2, { z: ['a'] }], sub: { x: 1 }, value: { deep: { y: 1 } } });
  });

  it('rejects invalid and reserved collection names', () => {
    expect(() => store.collection('checkpoints')).toThrow(TypeError);
    expect(() => store.collection('../escape')).toThrow(TypeError);
    expect(() => store.collection('')).toThrow(TypeError);
    expect(() => store.collection('ok_name-1.v2')).not.toThrow();
  });

  describe('checkpoints', () => {
    const beyond = 2n ** 53n + 12345n;

    it('save, get, overwrite, list and delete, losslessly beyond 2^53', async () => {
      const key = `proj-${fresh()}.v1`;
      expect(await store.getCheckpoint(key)).toBeNull();
      await store.saveCheckpoint(key, 41n);
      expect(await store.getCheckpoint(key)).toBe(41n);
      await store.saveCheckpoint(key, beyond);
      expect(await store.getCheckpoint(key)).toBe(beyond);
      const listed = (await store.listCheckpoints()).find((c) => c.projection === key);
      expect(listed?.position).toBe(beyond);
      expect(Number.isNaN(Date.parse(listed!.updatedAt))).toBe(false);
      await store.deleteCheckpoint(key);
      expect(await store.getCheckpoint(key)).toBeNull();
      await store.deleteCheckpoint(key); // deleting an absent checkpoint is fine
    });

    it('keeps checkpoints of different projections apart', async () => {
      await store.saveCheckpoint('a.v1', 1n);
      await store.saveCheckpoint('a.v2', 2n);
      expect(await store.getCheckpoint('a.v1')).toBe(1n);
      expect(await store.getCheckpoint('a.v2')).toBe(2n);
    });
  });

  it('answers ping', async () => {
    expect(await store.ping()).toBe(true);
  });

  if (harness.reopen) {
    it('data, indexes and checkpoints survive close and reopen', async () => {
      const name = fresh();
      const c = store.collection<Item>(name);
      for (const item of ITEMS) await c.insertOne(item);
      await c.ensureIndex({ fields: { name: 1 }, unique: true });
      await c.updateOne({ _id: 'i1' }, { $set: { name: 'changed' } });
      await c.deleteMany({ _id: 'i2' });
      await store.saveCheckpoint('survivor.v1', 2n ** 60n);
      store = await harness.reopen!(store);
      const again = store.collection<Item>(name);
      expect(sortedIds(await again.find({}))).toEqual(['i1', 'i3', 'i4', 'i5']);
      expect((await again.findOne({ _id: 'i1' }))?.name).toBe('changed');
      await expect(again.insertOne({ _id: 'i7', n: 7, name: 'delta' })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await store.getCheckpoint('survivor.v1')).toBe(2n ** 60n);
    });

    it('rejects operations after close', async () => {
      const name = fresh();
      await store.collection(name).insertOne({ _id: 'x' });
      const closing = store;
      store = await harness.reopen!(store);
      await expect(closing.collection(name).find({})).rejects.toThrow(/closed/);
      await expect(closing.getCheckpoint('x')).rejects.toThrow(/closed/);
      expect(await closing.ping()).toBe(false);
      expect(await store.collection(name).count({})).toBe(1);
    });
  }
});

if (!MONGODB_URL) {
  describe.skip('MongoDB adapter (skipped: MONGODB_URL not set)', () => {
    it('runs the same contract against MongoDB', () => undefined);
  });
}

describe('databaseFromUrl', () => {
  it('reads the database from the URL path, else nothing', () => {
    expect(databaseFromUrl('mongodb://localhost:27017/evidence')).toBe('evidence');
    expect(databaseFromUrl('mongodb://u:p%2F@h1:1,h2:2/db1?replicaSet=rs')).toBe('db1');
    expect(databaseFromUrl('mongodb+srv://cluster.example.net/prod?retryWrites=true')).toBe('prod');
    expect(databaseFromUrl('mongodb://localhost:27017')).toBeUndefined();
    expect(databaseFromUrl('mongodb://localhost:27017/')).toBeUndefined();
    expect(databaseFromUrl('mongodb://localhost/?authSource=admin')).toBeUndefined();
  });
});
