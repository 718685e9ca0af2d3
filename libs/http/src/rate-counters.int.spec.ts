import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SqliteReadStore } from '@svc/read-store';
import { bucketOf } from './rate-limit';
import { RATE_COUNTERS_COLLECTION, SharedRateCounters, type RateCount } from './rate-counters';

/** Shared rate counters over two connections to one SQLite read store, as two API replicas have. */
describe('SharedRateCounters', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-rate-'));
  const stores: SqliteReadStore[] = [];
  let file = 0;
  // Each test opens its own file (several connections to it, one per replica).
  beforeEach(() => void file++);
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });
  const open = () => {
    stores.push(new SqliteReadStore({ file: path.join(dir, `read-${file}.sqlite`) }));
    return stores[stores.length - 1];
  };
  const count = (c: SharedRateCounters, key: string, max: number) =>
    new Promise<RateCount>((resolve, reject) => c.incr(key, 60_000, max, (err, r) => (err ? reject(err) : resolve(r))));

  it('answers from memory below the slack, without waiting for the store', () => {
    const counters = new SharedRateCounters(open());
    const seen: number[] = [];
    for (let i = 0; i < SharedRateCounters.slack(300); i++) counters.incr('general|a', 60_000, 300, (_e, r) => seen.push(r.current));
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('keeps replicas within max + (replicas - 1) × slack, whatever the interleaving', async () => {
    const shared = open();
    const replicas = [new SharedRateCounters(shared), new SharedRateCounters(open()), new SharedRateCounters(open())];
    const max = 40;
    let admitted = 0;
    // One request at a time (connections of one process would wait on each other's write lock, which blocks
    // the thread), in an irregular order across the replicas, with timer reconciliations in between.
    for (let i = 0; i < 200; i++) {
      const replica = replicas[(i * i + (i >> 2)) % 3];
      if ((await count(replica, 'acceptance|b', max)).current <= max) admitted++;
      if (i % 17 === 0) await replicas[i % 3].sync();
    }
    expect(admitted).toBeGreaterThanOrEqual(max);
    expect(admitted).toBeLessThanOrEqual(max + 2 * SharedRateCounters.slack(max));
    // Once every replica has written its counts, the shared store holds every request, none lost.
    for (const c of replicas) await c.sync();
    const docs = await shared.collection<{ _id: string; count: number }>(RATE_COUNTERS_COLLECTION).find({});
    expect(docs.map((d) => d.count)).toEqual([200]);
  });

  it('starts a new window at each minute and reports the time left in it', async () => {
    let now = 1_700_000_000_000 - (1_700_000_000_000 % 60_000) + 59_000;
    const counters = new SharedRateCounters(open(), { now: () => now });
    expect(await count(counters, 'signIn|c', 20)).toEqual({ current: 1, ttl: 1_000 });
    expect((await count(counters, 'signIn|c', 20)).current).toBe(2);
    now += 1_000;
    expect(await count(counters, 'signIn|c', 20)).toEqual({ current: 1, ttl: 60_000 });
  });

  it('keeps a longer window counting to its end, while minute counters on the same store are cleaned up', async () => {
    let now = 1_700_000_100_000 - (1_700_000_100_000 % 300_000);
    const store = open();
    const challenges = new SharedRateCounters(store, { now: () => now });
    const minutes = new SharedRateCounters(store, { now: () => now });
    const claim = () =>
      new Promise<RateCount>((resolve, reject) => challenges.incr('open-challenges|s|d', 300_000, 10, (err, r) => (err ? reject(err) : resolve(r))));
    for (let i = 1; i <= 10; i++) expect((await claim()).current).toBe(i);
    await challenges.sync();
    // Two and a half minutes into the five-minute window, past the minute counters' clean-up horizon.
    now += 150_000;
    await count(minutes, 'general|x', 300);
    await minutes.sync();
    await challenges.sync();
    expect((await claim()).current).toBe(11);
    // A replica that starts now reads the shared count of the window (after its first request, the slack).
    const late = new SharedRateCounters(store, { now: () => now });
    const lateClaim = () =>
      new Promise<RateCount>((resolve, reject) => late.incr('open-challenges|s|d', 300_000, 10, (err, r) => (err ? reject(err) : resolve(r))));
    await lateClaim();
    expect((await lateClaim()).current).toBeGreaterThan(10);
    // Once the window is over and a minute more, its counter leaves the store.
    now += 150_000 + 61_000;
    await count(minutes, 'general|x', 300);
    await minutes.sync();
    const left = await store.collection<{ _id: string }>(RATE_COUNTERS_COLLECTION).find({});
    expect(left.map((d) => d._id).filter((id) => id.includes('open-challenges'))).toEqual([]);
  });

  it('counts once what a store without transactions wrote before one of its writes failed', async () => {
    const real = open();
    let failing: string | undefined = 'b';
    // A store like MongoDB (no transaction), whose write of one counter fails once.
    const store = new Proxy(real, {
      get(target, property) {
        if (property === 'transaction') return undefined;
        if (property !== 'collection') return Reflect.get(target, property, target);
        return (name: string) =>
          new Proxy(target.collection(name), {
            get(collection, method) {
              const original = Reflect.get(collection, method, collection);
              if (method !== 'updateOne' || typeof original !== 'function') return typeof original === 'function' ? original.bind(collection) : original;
              return async (filter: { _id: string }, ...rest: unknown[]) => {
                if (failing && filter._id.endsWith(`|${failing}`)) {
                  failing = undefined;
                  throw new Error('connection reset');
                }
                return original.call(collection, filter, ...rest);
              };
            },
          });
      },
    });
    const counters = new SharedRateCounters(store);
    for (let i = 0; i < 3; i++) {
      await count(counters, 'a', 300);
      await count(counters, 'b', 300);
    }
    expect(await counters.sync()).toBe(false);
    // What was written counts as shared, what was not stays pending: neither lost nor counted twice.
    expect([counters.peek('a', 60_000).current, counters.peek('b', 60_000).current]).toEqual([3, 3]);
    expect(await counters.sync()).toBe(true);
    expect([counters.peek('a', 60_000).current, counters.peek('b', 60_000).current]).toEqual([3, 3]);
    const stored = await real.collection<{ _id: string; count: number }>(RATE_COUNTERS_COLLECTION).find({});
    expect(stored.map((d) => [d._id.split('|').pop(), d.count]).sort()).toEqual([
      ['a', 3],
      ['b', 3],
    ]);
  });

  it('chooses the bucket from the matched route pattern', () => {
    expect(bucketOf('POST', '/api/v1/auth/challenge')).toBe('signIn');
    expect(bucketOf('POST', '/api/v1/acceptance/challenges/:challengeId/submit')).toBe('acceptance');
    expect(bucketOf('POST', '/api/v1/organizations/:orgId/domains/:verificationId/check')).toBe('dnsCheck');
    expect(bucketOf('GET', '/api/v1/auth/challenge')).toBe('general');
    expect(bucketOf('POST', undefined)).toBe('general');
  });
});
