/**
 * NeDB-specific behaviour of NedbReadStore (the shared behaviour is in read-store.contract.int.spec.ts):
 * files, compaction, load failures, index handling.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NedbReadStore } from './nedb-read-store';
import { createReadStore } from './index';

type Indexed = { indexes: Record<string, { unique: boolean; sparse: boolean }> };

describe('NedbReadStore specifics', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nedb-read-store-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const lines = (name: string) =>
    fs.readFileSync(path.join(dir, 'read', `${name}.db`), 'utf8').split('\n').filter((l) => l !== '');
  /** The NeDB datastore behind a collection (test-only peek at internals). */
  const datastoreOf = (store: NedbReadStore, name: string) =>
    (store as unknown as { handles: Map<string, { ds: Indexed }> }).handles.get(name)!.ds;

  it('keeps one file per collection plus checkpoints.db under <dataDir>/read', async () => {
    const store = await NedbReadStore.open({ dataDir: dir, autocompactionIntervalMs: 0 });
    await store.collection('alpha_v1').insertOne({ _id: 'a' });
    await store.saveCheckpoint('alpha.v1', 1n);
    await store.close();
    expect(fs.readdirSync(path.join(dir, 'read')).sort()).toEqual(['alpha_v1.db', 'checkpoints.db']);
    expect(lines('checkpoints')).toEqual([expect.stringContaining('"position":"1"')]);
  });

  it('compacts on close and in the background (only datastores written since)', async () => {
    const store = await NedbReadStore.open({ dataDir: dir, autocompactionIntervalMs: 1_000 });
    const c = store.collection('log_v1');
    await c.insertOne({ _id: 'x', n: 0 });
    for (let i = 1; i <= 20; i++) await c.updateOne({ _id: 'x' }, { $set: { n: i } });
    expect(lines('log_v1').length).toBeGreaterThan(20); // append-only until compacted
    await waitUntil(() => lines('log_v1').length === 1, 3_000);
    for (let i = 0; i < 5; i++) await c.updateOne({ _id: 'x' }, { $inc: { n: 1 } });
    await store.close();
    expect(lines('log_v1')).toEqual([expect.stringContaining('"n":25')]);
  });

  it('reports a load failure on every operation (no unhandled rejection)', async () => {
    fs.mkdirSync(path.join(dir, 'read'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'read', 'broken_v1.db'), 'not json\n{also not\n');
    const store = await NedbReadStore.open({ dataDir: dir, autocompactionIntervalMs: 0 });
    const c = store.collection('broken_v1');
    await expect(c.find({})).rejects.toThrow(/corrupt/);
    await expect(c.insertOne({ _id: 'a' })).rejects.toThrow(/corrupt/);
    expect(await store.ping()).toBe(true); // the checkpoint datastore is fine
    await store.close();
  });

  it('adds a prefix index for a compound index and replaces an index whose options change', async () => {
    const store = await NedbReadStore.open({ dataDir: dir, autocompactionIntervalMs: 0 });
    const c = store.collection('acc_v1');
    await c.insertOne({ _id: '1', org: 'o', at: 1, signer: 's1' });
    await c.insertOne({ _id: '2', org: 'o', at: 2, signer: 's2' });
    await c.ensureIndex({ fields: { org: 1, at: -1 } });
    await c.ensureIndex({ fields: { signer: 1 } });
    let indexes = datastoreOf(store, 'acc_v1').indexes;
    expect(Object.keys(indexes).sort()).toEqual(['_id', 'at,org', 'org', 'signer']);
    expect((await c.find({ org: 'o' }, { sort: { at: -1 } })).map((d) => d._id)).toEqual(['2', '1']);

    await c.ensureIndex({ fields: { signer: 1 }, unique: true });
    indexes = datastoreOf(store, 'acc_v1').indexes;
    expect(indexes['signer']?.unique).toBe(true);
    // A replacement that cannot be built keeps the previous index.
    await c.insertOne({ _id: '3', org: 'p', at: 3, signer: 's3' });
    await expect(c.ensureIndex({ fields: { org: 1 }, unique: true })).rejects.toThrow();
    expect(datastoreOf(store, 'acc_v1').indexes['org']?.unique).toBe(false);
    await store.close();
  });

  it('answers the same whichever indexed key comes last in the filter', async () => {
    const store = await NedbReadStore.open({ dataDir: dir, autocompactionIntervalMs: 0 });
    const c = store.collection('q_v1');
    await c.ensureIndex({ fields: { org: 1 } });
    await c.ensureIndex({ fields: { code: 1 }, unique: true });
    for (let i = 0; i < 50; i++) await c.insertOne({ _id: `d${i}`, org: `o${i % 2}`, code: `c${i}` });
    expect((await c.find({ code: 'c7', org: 'o1' })).map((d) => d._id)).toEqual(['d7']);
    expect((await c.find({ org: 'o1', code: 'c7' })).map((d) => d._id)).toEqual(['d7']);
    expect((await c.find({ org: 'o0', _id: 'd7' })).map((d) => d._id)).toEqual([]);
    expect(await c.count({ _id: 'd8', org: 'o0', code: 'c8' })).toBe(1);
    await store.close();
  });

  it('createReadStore picks NeDB without a MongoDB URL', async () => {
    const store = await createReadStore({ dataDir: dir, mongodbUrl: '  ' });
    expect(store).toBeInstanceOf(NedbReadStore);
    expect(await store.ping()).toBe(true);
    await store.close();
    await store.close(); // idempotent
  });
});

async function waitUntil(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
