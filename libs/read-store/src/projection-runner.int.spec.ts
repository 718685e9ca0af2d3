/**
 * ProjectionRunner over the real SqliteEventStore and SqliteReadStore (temporary directories): the
 * everyday behaviours. Long streams, restarts mid-way and faults are in projection-runner.long.int.spec.ts.
 */
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { ProjectionLagError, ProjectionRunnerStoppedError, checkpointKey, type Projection } from './projection';
import type { ProjectionRunner } from './projection-runner';
import { RunnerHarness, THINGS, countingProjection, memoryLogger, other, snapshot, thing, waitUntil } from './testing/runner-fixtures';

describe('ProjectionRunner (SQLite event store, SQLite read store)', () => {
  let h: RunnerHarness;
  let events: RunnerHarness['events'];
  let reads: RunnerHarness['reads'];
  const FAST = {};
  const runner = (...args: Parameters<RunnerHarness['runner']>): ProjectionRunner => h.runner(...args);

  beforeEach(() => {
    h = new RunnerHarness();
    events = h.events;
    reads = h.reads;
  });
  afterEach(() => h.close());

  it('applies the log; waitFor(position) makes the writes readable, for catch-up and live events', async () => {
    await events.append('thing-a', [thing('a', 1), thing('a', 2), thing('a', 3)], 'no_stream');
    await events.append('thing-b', [thing('b', 7), other('b')], 'no_stream');
    const calls: bigint[] = [];
    const r = runner([countingProjection(calls)]);
    await r.start();
    await r.waitFor(await events.headPosition());
    expect(await snapshot(reads)).toEqual({ a: { count: 3, lastN: 3 }, b: { count: 1, lastN: 7 } });
    expect(calls).toHaveLength(4); // OtherThingHappened is not delivered

    // Read your own writes: append, then wait for the returned position.
    const { position } = await events.append('thing-c', [thing('c', 5)], 'no_stream');
    await r.waitFor(position);
    expect((await snapshot(reads))['c']).toEqual({ count: 1, lastN: 5 });

    // The indexes were ensured on start.
    await expect(r.waitFor(-1n)).resolves.toBeUndefined();
  });

  it('a first start on an existing log replays it, keeps documents already there, and ends with its indexes built over the replayed ones', async () => {
    for (let i = 0; i < 40; i++) await events.append(`thing-${i}`, [thing(String(i), i % 5)], 'no_stream');
    await reads.collection(THINGS).insertOne({ _id: 'kept', eventIds: [], lastN: 4 });
    const r = runner([countingProjection([])]);
    await r.start();
    await r.waitFor(await events.headPosition());
    await waitUntil(async () => (await reads.getCheckpoint('things.v1')) === (await events.headPosition()));
    // The document written before the first start is still there; the replayed ones are all readable by the index.
    expect((await reads.collection(THINGS).find({ lastN: 4 }, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(['14', '19', '24', '29', '34', '39', '4', '9', 'kept']);
    const db = new Database(path.join(h.dir, 'read.sqlite'), { readonly: true });
    const indexed = db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rm_${THINGS}' AND sql IS NOT NULL`).pluck().all();
    db.close();
    expect(indexed).toEqual([expect.stringContaining('"f:lastN" ASC')]);

    // From a dropped collection, the same log gives the same documents, none left behind.
    await reads.collection(THINGS).deleteMany({ _id: 'kept' });
    await r.stop();
    await reads.deleteCheckpoint('things.v1');
    await reads.collection(THINGS).drop();
    const again = runner([countingProjection([])]);
    await again.start();
    await again.waitFor(await events.headPosition());
    await waitUntil(async () => (await reads.getCheckpoint('things.v1')) === (await events.headPosition()));
    expect((await reads.collection(THINGS).find({ lastN: 4 }, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(['14', '19', '24', '29', '34', '39', '4', '9']);
    expect(await reads.collection(THINGS).count({})).toBe(40);
  });

  it('stop then restart resumes from the checkpoint without re-delivering old events', async () => {
    await events.append('thing-a', [thing('a', 1), thing('a', 2)], 'no_stream');
    const firstCalls: bigint[] = [];
    const first = runner([countingProjection(firstCalls)]);
    await first.start();
    const head = await events.headPosition();
    await first.waitFor(head);
    await first.stop();
    expect(await reads.getCheckpoint('things.v1')).toBe(head);
    await expect(first.waitFor(head)).rejects.toBeInstanceOf(ProjectionRunnerStoppedError);

    const secondCalls: bigint[] = [];
    const second = runner([countingProjection(secondCalls)]);
    await second.start();
    const { position } = await events.append('thing-a', [thing('a', 3)], 1n);
    await second.waitFor(position);
    expect(secondCalls).toEqual([position]);
    expect(await snapshot(reads)).toEqual({ a: { count: 3, lastN: 3 } });

    // The same runner can also be started again after stop.
    await second.stop();
    await second.start();
    const next = await events.append('thing-a', [thing('a', 4)], 2n);
    await second.waitFor(next.position);
    expect(secondCalls).toEqual([position, next.position]);
  });

  it('saves the checkpoint once per batch, in the batch, so it always equals what the read model holds', async () => {
    const calls: bigint[] = [];
    const r = runner([countingProjection(calls)], { batchSize: 4 });
    const appended: bigint[] = [];
    for (let i = 0; i < 10; i++) appended.push((await events.append(`t-${i}`, [thing(`t${i}`, i)], 'no_stream')).position);
    await r.start(); // catch-up: batches of 4, 4 and 2 events
    await r.waitFor(appended[9]!);
    expect(await reads.getCheckpoint('things.v1')).toBe(appended[9]);
    expect(calls).toEqual(appended);
    const { position } = await events.append('t-live', [thing('live', 1)], 'no_stream');
    await r.waitFor(position);
    expect(await reads.getCheckpoint('things.v1')).toBe(position); // a live event is a batch of its own
  });

  it('stop saves the log head as the checkpoint of a caught-up projection, over events of other types', async () => {
    await events.append('thing-a', [thing('a', 1)], 'no_stream');
    const { position } = await events.append('thing-a', [other('a'), other('a')], 0n);
    const r = runner([countingProjection([])]);
    await r.start();
    await r.waitFor(position);
    await r.stop();
    expect(await reads.getCheckpoint('things.v1')).toBe(position);
  });

  it('a replay after a crash (checkpoint behind the read model) gives the same read model', async () => {
    await events.append('thing-a', [thing('a', 1), thing('a', 2)], 'no_stream');
    await events.append('thing-b', [thing('b', 9)], 'no_stream');
    const r1 = runner([countingProjection([])]);
    await r1.start();
    await r1.waitFor(await events.headPosition());
    await r1.stop();
    const before = await snapshot(reads);

    // Simulate a crash before any checkpoint write: the whole log is delivered again.
    await reads.deleteCheckpoint('things.v1');
    const calls: bigint[] = [];
    const r2 = runner([countingProjection(calls)]);
    await r2.start();
    await r2.waitFor(await events.headPosition());
    expect(calls).toHaveLength(3);
    expect(await snapshot(reads)).toEqual(before);
  });

  it('rebuild(name) drops the collections, deletes the checkpoint and replays to the same result', async () => {
    await events.append('thing-a', [thing('a', 1), thing('a', 2)], 'no_stream');
    await events.append('thing-b', [thing('b', 9), other('b')], 'no_stream');
    const calls: bigint[] = [];
    const logger = memoryLogger();
    const r = runner([countingProjection(calls)], FAST, logger);
    await r.start();
    await r.waitFor(await events.headPosition());
    const before = await snapshot(reads);
    // A stray document that the log does not explain: the rebuild must remove it.
    await reads.collection(THINGS).insertOne({ _id: 'stray', eventIds: [], lastN: 0 });

    await r.rebuild('things');
    const { position } = await events.append('thing-c', [thing('c', 4)], 'no_stream');
    await r.waitFor(position);
    expect(await snapshot(reads)).toEqual({ ...before, c: { count: 1, lastN: 4 } });
    expect(calls).toHaveLength(3 + 4);
    // The index dropped with the collection is built again once the replay caught up.
    const db = new Database(path.join(h.dir, 'read.sqlite'), { readonly: true });
    expect((db.prepare(`SELECT name FROM pragma_index_list('rm_${THINGS}')`).pluck().all() as string[]).some((n) => n.includes('lastN'))).toBe(true);
    db.close();
    expect(logger.lines.some((l) => l.level === 'warn' && l.message.includes('rebuilding projection things.v1'))).toBe(true);
    await r.stop();
    expect(await reads.getCheckpoint('things.v1')).toBe(position);

    await expect(r.rebuild('nope')).rejects.toThrow(/unknown projection/);
  });

  it('applies a long page or batch in slices: the rest of the process runs every few milliseconds meanwhile', async () => {
    const positions: bigint[] = [];
    for (let i = 0; i < 100; i++) positions.push((await events.append(`thing-${i}`, [thing(String(i), i)], 'no_stream')).position);
    const applied: bigint[] = [];
    // 1 ms of synchronous work per event, as a projection's decoding and writing can take.
    const slow = countingProjection(applied, {
      async handle(event, store) {
        const until = performance.now() + 1;
        while (performance.now() < until);
        await countingProjection(applied).handle(event, store);
      },
    });
    /** Events applied at each turn of the event loop that something else got while `work` ran. */
    const turnsDuring = async (work: Promise<unknown>) => {
      const seen: number[] = [];
      let done = false;
      const tick = () => {
        seen.push(applied.length);
        if (!done) setImmediate(tick);
      };
      setImmediate(tick);
      await work;
      done = true;
      return seen.filter((n, i) => n > 0 && n < 100 && n !== seen[i - 1]);
    };
    const r = runner([slow]);
    // Catch-up from nothing: the shared replay, one page of 100 events.
    const replay = await turnsDuring(r.start().then(() => r.waitFor(positions[99]!)));
    expect(applied).toHaveLength(100);
    expect(replay.length).toBeGreaterThanOrEqual(8);
    expect(Math.max(...replay.map((n, i) => n - (replay[i - 1] ?? 0)))).toBeLessThanOrEqual(7);
    // Live: the projection's own subscription, a batch of 100 appended at once.
    applied.length = 0;
    const live = await turnsDuring(events.append('thing-live', Array.from({ length: 100 }, (_, i) => thing('live', i)), 'no_stream').then((a) => r.waitFor(a.position)));
    expect(applied).toHaveLength(100);
    expect(live.length).toBeGreaterThanOrEqual(8);
    await r.stop();
  });

  it('rebuild while stopped only resets; the next start replays', async () => {
    await events.append('thing-a', [thing('a', 1)], 'no_stream');
    const calls: bigint[] = [];
    const r = runner([countingProjection(calls)]);
    await r.start();
    await r.waitFor(await events.headPosition());
    await r.stop();
    await r.rebuild('things');
    expect(await reads.getCheckpoint('things.v1')).toBeNull();
    expect(await reads.collection(THINGS).count({})).toBe(0);
    await r.start();
    await r.waitFor(await events.headPosition());
    expect(await snapshot(reads)).toEqual({ a: { count: 1, lastN: 1 } });
    expect(calls).toHaveLength(2);
  });

  it('logs handler failures; the batch is rolled back and retried, never skipped', async () => {
    let failures = 2;
    const calls: bigint[] = [];
    const base = countingProjection(calls);
    const flaky: Projection = {
      ...base,
      async handle(event, store) {
        if (event.data['n'] === 2 && failures-- > 0) throw new Error('read store hiccup');
        await base.handle(event, store);
      },
    };
    const logger = memoryLogger();
    const r = runner([flaky], FAST, logger);
    await r.start();
    const { position } = await events.append('thing-a', [thing('a', 1), thing('a', 2), thing('a', 3)], 'no_stream');
    await r.waitFor(position);
    expect(await snapshot(reads)).toEqual({ a: { count: 3, lastN: 3 } });
    const errors = logger.lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(2);
    expect(errors[0]!.message).toMatch(/projection things\.v1 failed on event ThingHappened at position \d+ \(stream thing-a\): read store hiccup/);
    expect(r.faults()).toEqual([]); // two failures: not yet reported as a fault
  });

  it('waitFor rejects with ProjectionLagError naming a stuck projection', async () => {
    const stuck: Projection = {
      ...countingProjection([]),
      name: 'stuck',
      indexes: {},
      async handle() {
        throw new Error('always fails');
      },
    };
    const healthy = countingProjection([]);
    const r = runner([healthy, stuck]);
    await r.start();
    const { position } = await events.append('thing-a', [thing('a', 1)], 'no_stream');
    const err = await r.waitFor(position, { timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectionLagError);
    expect((err as ProjectionLagError).lagging).toEqual(['stuck.v1']);
    expect((await snapshot(reads))['a']).toEqual({ count: 1, lastN: 1 });
  });

  it('waitFor in a process that does not run the projections follows the stored checkpoints', async () => {
    const worker = runner([countingProjection([])]);
    const api = runner([countingProjection([])]); // never started, like an API replica
    await worker.start();
    const { position } = await events.append('thing-a', [thing('a', 1)], 'no_stream');
    await api.waitFor(position); // resolves once the worker saved its checkpoint
    expect((await reads.getCheckpoint('things.v1'))! >= position).toBe(true);
    expect((await snapshot(reads))['a']).toEqual({ count: 1, lastN: 1 });
    // An event the projection does not handle never moves its checkpoint while busy, yet does not block.
    const skipped = await events.append('thing-a', [other('a')], 0n);
    await api.waitFor(skipped.position, { timeoutMs: 1_000 });
  });

  it('the idle check moves a caught-up checkpoint over skipped events', async () => {
    const r = runner([countingProjection([])], { idleCheckMs: 25 });
    await r.start();
    await events.append('thing-a', [thing('a', 1)], 'no_stream');
    const { position } = await events.append('thing-a', [other('a'), other('a')], 0n);
    await r.waitFor(position);
    await waitUntil(async () => (await reads.getCheckpoint('things.v1')) === position);
  });

  it('warns about a collection the projection does not declare, and drops it on rebuild', async () => {
    const logger = memoryLogger();
    const base = countingProjection([]);
    const sneaky: Projection = {
      ...base,
      async handle(event, store) {
        await base.handle(event, store);
        await store.collection('extra_v1').replaceOne({ _id: event.id });
      },
    };
    const r = runner([sneaky], FAST, logger);
    await r.start();
    const { position } = await events.append('thing-a', [thing('a', 1), thing('a', 2)], 'no_stream');
    await r.waitFor(position);
    expect(logger.lines.filter((l) => l.message.includes('extra_v1'))).toHaveLength(1);
    await reads.collection('extra_v1').insertOne({ _id: 'stray' });
    await r.rebuild('things');
    await r.waitFor(position);
    expect(await reads.collection('extra_v1').count({})).toBe(2);
  });

  it('keeps checkpoints per projection version and validates the projection list', async () => {
    expect(checkpointKey({ name: 'acceptances', version: 3 })).toBe('acceptances.v3');
    expect(() => runner([countingProjection([]), countingProjection([])])).toThrow(TypeError);
    expect(() => runner([countingProjection([], { version: 0 })])).toThrow(TypeError);
    expect(() => runner([countingProjection([], { eventTypes: [] })])).toThrow(TypeError);

    await events.append('thing-a', [thing('a', 1)], 'no_stream');
    const v1 = runner([countingProjection([])]);
    await v1.start();
    await v1.waitFor(await events.headPosition());
    await v1.stop();
    const v2Calls: bigint[] = [];
    const v2 = runner([countingProjection(v2Calls, { version: 2, indexes: { things_v2: [] } })]);
    await v2.start();
    await v2.waitFor(await events.headPosition());
    expect(v2Calls).toHaveLength(1); // a new version starts from the beginning of the log
  });

  it('removes the collections and checkpoints of an earlier version once the new version has applied the log, not before', async () => {
    for (let i = 0; i < 30; i++) await events.append(`thing-${i}`, [thing(String(i), i)], 'no_stream');
    const head = await events.headPosition();
    const v1 = runner([countingProjection([])]);
    await v1.start();
    await v1.waitFor(head);
    await v1.stop();
    expect(await reads.collection(THINGS).count({})).toBe(30);

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const v2: Projection = {
      ...countingProjection([]),
      version: 2,
      indexes: { things_v2: [] },
      retiredCollections: [THINGS],
      async handle(event, store) {
        await gate;
        await store.collection('things_v2').replaceOne({ _id: String(event.data.thingId), n: Number(event.data.n) });
      },
    };
    const logger = memoryLogger();
    const r = runner([v2], {}, logger);
    await r.start();
    const tables = () => {
      const db = new Database(path.join(h.dir, 'read.sqlite'), { readonly: true });
      try {
        return db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm_things%' ORDER BY name`).pluck().all();
      } finally {
        db.close();
      }
    };
    // While the new version is still replaying, the earlier one's read model and checkpoint are all there.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(tables()).toContain(`rm_${THINGS}`);
    expect((await reads.listCheckpoints()).map((c) => c.projection)).toContain('things.v1');

    release();
    await r.waitFor(head);
    await waitUntil(async () => !(await reads.listCheckpoints()).some((c) => c.projection === 'things.v1'));
    expect(tables()).toEqual(['rm_things_v2']);
    expect(await reads.collection('things_v2').count({})).toBe(30);
    expect(logger.lines).toContainEqual({ level: 'info', message: `projection things.v2 retired things.v1 and removed ${THINGS}` });

    // A retired collection that a projection of the list still writes is refused.
    expect(() => runner([countingProjection([], { retiredCollections: [THINGS] })])).toThrow(TypeError);
  });
});
