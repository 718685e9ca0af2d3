/**
 * ProjectionRunner on long streams (thousands of events, many pages and batches): the read model must
 * hold exactly what the appended events say, computed here without the runner; a restart mid-way
 * resumes after the checkpoint without re-delivering or skipping; a tampered stored event faults the
 * projection loudly; a store without transactions gets the same result.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { NewEvent } from '@svc/event-store';
import { ProjectionFaultedError, ProjectionLagError, type Projection } from './projection';
import { deferred } from './projection-state';
import type { Doc, ReadStore } from './read-store.port';
import { RunnerHarness, THINGS, countingProjection, memoryLogger, other, thing, waitUntil, type ThingDoc } from './testing/runner-fixtures';

interface Appended {
  position: bigint;
  thingId: string;
  n: number;
  id: string;
  counted: boolean;
}

/** Appends `count` events over 40 streams, every 7th of a type the projection ignores. */
async function appendMany(h: RunnerHarness, count: number, start = 0): Promise<Appended[]> {
  const out: Appended[] = [];
  for (let i = start; i < start + count; i++) {
    const thingId = `t${i % 40}`;
    const counted = i % 7 !== 3;
    const event: NewEvent = { ...(counted ? thing(thingId, i) : other(thingId)), id: randomUUID() };
    const { position } = await h.events.append(`thing-${thingId}`, [event], 'any');
    out.push({ position, thingId, n: i, id: event.id!, counted });
  }
  return out;
}

/** The thing documents the events must produce: every counted event id in log order, the last n. */
function expectedDocs(appended: Appended[]): ThingDoc[] {
  const docs = new Map<string, ThingDoc>();
  for (const a of appended.filter((x) => x.counted)) {
    const doc = docs.get(a.thingId) ?? { _id: a.thingId, eventIds: [], lastN: 0 };
    doc.eventIds.push(a.id);
    doc.lastN = a.n;
    docs.set(a.thingId, doc);
  }
  return [...docs.values()].sort((x, y) => (x._id < y._id ? -1 : 1));
}

const readModel = (store: ReadStore) => store.collection<ThingDoc>(THINGS).find({}, { sort: { _id: 1 } });
const countedPositions = (appended: Appended[]) => appended.filter((a) => a.counted).map((a) => a.position);

const OTHERS = 'others_v1';

/** Counts the events of the type the things projection ignores, per thing (idempotent like the other). */
function othersProjection(calls: bigint[]): Projection {
  return {
    name: 'others',
    version: 1,
    eventTypes: ['OtherThingHappened'],
    indexes: { [OTHERS]: [] },
    async handle(event, store) {
      calls.push(event.position);
      await store.collection(OTHERS).updateOne({ _id: String(event.data['thingId']) }, { $addToSet: { eventIds: event.id } }, { upsert: true });
    },
  };
}

/** The documents of the others projection, computed from what was appended. */
function expectedOthers(appended: Appended[]): Doc[] {
  const docs = new Map<string, { _id: string; eventIds: string[] }>();
  for (const a of appended.filter((x) => !x.counted)) {
    const doc = docs.get(a.thingId) ?? { _id: a.thingId, eventIds: [] };
    doc.eventIds.push(a.id);
    docs.set(a.thingId, doc);
  }
  return [...docs.values()].sort((x, y) => (x._id < y._id ? -1 : 1));
}

const othersModel = (store: ReadStore) => store.collection(OTHERS).find({}, { sort: { _id: 1 } });


/** Rewrites the data of the stored event of `a` behind the store's back (its hash no longer matches). */
function tamper(h: RunnerHarness, a: Appended): void {
  const db = new Database(h.eventsFile);
  db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify({ thingId: a.thingId, n: a.n + 1 }), a.position);
  db.close();
}

/** The counting projection, failing on the event with n = 1,234 as many times as `failing.times` says. */
function flakyThings(failing: { times: number }): Projection {
  const base = countingProjection([]);
  return {
    ...base,
    async handle(event, store) {
      await base.handle(event, store);
      if (event.data['n'] === 1_234 && failing.times-- > 0) throw new Error('network blip');
    },
  };
}

describe('ProjectionRunner on long streams', () => {
  let h: RunnerHarness;
  beforeEach(() => {
    h = new RunnerHarness();
  });
  afterEach(() => h.close());

  it('applies 4,000 events over many pages and batches: every event exactly once, in order', async () => {
    const appended = await appendMany(h, 4_000);
    const calls: bigint[] = [];
    const r = h.runner([countingProjection(calls)], { batchSize: 64 });
    await r.start();
    await r.waitFor(appended[appended.length - 1]!.position);
    expect(calls).toEqual(countedPositions(appended));
    expect(await readModel(h.reads)).toEqual(expectedDocs(appended));
    const lastCounted = countedPositions(appended).pop()!;
    expect(await h.reads.getCheckpoint('things.v1')).toBe(lastCounted);
  });

  it('a restart mid-way resumes after the checkpoint: nothing re-delivered, nothing skipped', async () => {
    const first = await appendMany(h, 3_000);
    const mid = countedPositions(first)[1_300]!;
    const atMid = deferred();
    const release = deferred();
    const calls1: bigint[] = [];
    const base = countingProjection(calls1);
    const gated: Projection = {
      ...base,
      async handle(event, store) {
        await base.handle(event, store);
        if (event.position === mid) {
          atMid.resolve();
          await release.promise; // hold the runner mid-way until it is asked to stop
        }
      },
    };
    const r1 = h.runner([gated], { batchSize: 50 });
    await r1.start();
    await atMid.promise;
    const stopping = r1.stop();
    release.resolve();
    await stopping;
    const checkpoint = (await h.reads.getCheckpoint('things.v1'))!;
    const head = first[first.length - 1]!.position;
    expect(checkpoint).toBeGreaterThanOrEqual(mid);
    expect(checkpoint).toBeLessThan(head);
    expect(calls1).toEqual(countedPositions(first).filter((p) => p <= checkpoint));

    const second = await appendMany(h, 1_500, 3_000);
    const all = [...first, ...second];
    const calls2: bigint[] = [];
    const r2 = h.runner([countingProjection(calls2)], { batchSize: 50 });
    await r2.start();
    await r2.waitFor(all[all.length - 1]!.position);
    expect(calls2).toEqual(countedPositions(all).filter((p) => p > checkpoint));
    expect(await readModel(h.reads)).toEqual(expectedDocs(all));
  });

  it('a store without transactions (the MongoDB case) writes sequentially with the same result, failures included', async () => {
    const appended = await appendMany(h, 2_000);
    const reads = h.reads;
    const plain: ReadStore = {
      collection: (name) => reads.collection(name),
      getCheckpoint: (key) => reads.getCheckpoint(key),
      saveCheckpoint: (key, position) => reads.saveCheckpoint(key, position),
      deleteCheckpoint: (key) => reads.deleteCheckpoint(key),
      listCheckpoints: () => reads.listCheckpoints(),
      removeCollection: (name) => reads.removeCollection(name),
      ping: () => reads.ping(),
      close: () => reads.close(),
    };
    const failing = { times: 3 };
    const flaky = flakyThings(failing);
    const logger = memoryLogger();
    const r = h.runner([flaky], { batchSize: 100 }, logger, plain);
    await r.start();
    await r.waitFor(appended[appended.length - 1]!.position);
    expect(await readModel(reads)).toEqual(expectedDocs(appended));
    expect(logger.lines.filter((l) => l.level === 'error' && l.message.includes('network blip'))).toHaveLength(3);
    expect(r.faults()).toEqual([]); // reported while failing, cleared once applied
  });

  it('a tampered stored event stops the projection loudly: logged, listed by faults(), waitFor rejects', async () => {
    const appended = await appendMany(h, 1_000);
    const bad = appended.filter((a) => a.counted)[600]!;
    tamper(h, bad);

    const logger = memoryLogger();
    const r = h.runner([countingProjection([])], { batchSize: 64 }, logger);
    await r.start();
    await waitUntil(async () => r.faults().length > 0);
    expect(r.faults()).toEqual([{ projection: 'things.v1', streamId: `thing-${bad.thingId}`, position: String(bad.position), reason: expect.stringMatching(/hash/) }]);
    const logged = logger.lines.find((l) => l.level === 'error' && l.message.includes('things.v1'));
    expect(logged?.message).toContain(`position ${String(bad.position)}`);
    expect(logged?.message).toContain(`thing-${bad.thingId}`);
    const waited = await r.waitFor(appended[appended.length - 1]!.position).catch((e: unknown) => e);
    expect(waited).toBeInstanceOf(ProjectionFaultedError);
    expect(waited).toBeInstanceOf(ProjectionLagError); // callers that tolerate lag tolerate a fault too
    expect((waited as ProjectionFaultedError).lagging).toEqual(['things.v1']);

    // The read model holds exactly the events up to its checkpoint, which stays before the bad event
    // (the event store refuses the whole page that holds it) and never moves past it.
    await r.stop();
    const checkpoint = (await h.reads.getCheckpoint('things.v1')) ?? -1n;
    expect(checkpoint).toBeLessThan(bad.position);
    expect(await readModel(h.reads)).toEqual(expectedDocs(appended.filter((a) => a.position <= checkpoint)));
  });

  it('replays 4,000 events into two projections from one read: each event applied once, in order, then live events', async () => {
    const first = await appendMany(h, 4_000);
    const calls: bigint[] = [];
    const otherCalls: bigint[] = [];
    const r = h.runner([countingProjection(calls), othersProjection(otherCalls)], { batchSize: 64 });
    await r.start();
    await r.waitFor(first[first.length - 1]!.position);
    // Documents the log does not explain: the rebuild must remove them.
    await h.reads.collection(THINGS).insertOne({ _id: 'stray', eventIds: [], lastN: 0 });
    await h.reads.collection(OTHERS).insertOne({ _id: 'stray', eventIds: [] });
    calls.length = 0;
    otherCalls.length = 0;
    const pagesAfter: bigint[] = [];
    const readAll = h.events.readAll.bind(h.events);
    const spy = jest.spyOn(h.events, 'readAll').mockImplementation((options) => {
      pagesAfter.push(options?.after ?? -1n);
      return readAll(options);
    });

    await r.rebuildTogether(['things', 'others']);
    spy.mockRestore();
    const second = await appendMany(h, 300, 4_000);
    const all = [...first, ...second];
    await r.waitFor(all[all.length - 1]!.position);

    expect(calls).toEqual(countedPositions(all));
    expect(otherCalls).toEqual(all.filter((a) => !a.counted).map((a) => a.position));
    expect(await readModel(h.reads)).toEqual(expectedDocs(all));
    expect(await othersModel(h.reads)).toEqual(expectedOthers(all));
    // The log was read once, page after page: 4,000 events in pages of 64.
    expect(pagesAfter).toEqual([...pagesAfter].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(new Set(pagesAfter).size).toBe(pagesAfter.length);
    expect(pagesAfter.length).toBe(Math.ceil(4_000 / 64));
    // The index dropped with the collection is built again.
    const db = new Database(`${h.dir}/read.sqlite`, { readonly: true });
    expect((db.prepare(`SELECT name FROM pragma_index_list('rm_${THINGS}')`).pluck().all() as string[]).some((n) => n.includes('lastN'))).toBe(true);
    db.close();
    await r.stop();
    expect(await h.reads.getCheckpoint('things.v1')).toBe(all[all.length - 1]!.position);
    expect(await h.reads.getCheckpoint('others.v1')).toBe(all[all.length - 1]!.position);
    await expect(r.rebuildTogether(['things', 'nope'])).rejects.toThrow(/unknown projection "nope"/);
  });

  it('replayCommitEvents groups the pages of a replay in fewer transactions, with the same read models and checkpoints', async () => {
    const appended = await appendMany(h, 4_000);
    const head = appended[appended.length - 1]!.position;
    const transactionsOfReplay = async (options: { batchSize: number; replayCommitEvents?: number }) => {
      const r = h.runner([countingProjection([]), othersProjection([])], options);
      await r.rebuildTogether(['things', 'others']); // stopped: resets only
      const transaction = jest.spyOn(h.reads, 'transaction');
      await r.start();
      await r.waitFor(head);
      const count = transaction.mock.calls.length;
      transaction.mockRestore();
      expect(await readModel(h.reads)).toEqual(expectedDocs(appended));
      expect(await othersModel(h.reads)).toEqual(expectedOthers(appended));
      await r.stop();
      expect(await h.reads.getCheckpoint('things.v1')).toBe(head);
      expect(await h.reads.getCheckpoint('others.v1')).toBe(head);
      return count;
    };
    const perPage = await transactionsOfReplay({ batchSize: 64 });
    const grouped = await transactionsOfReplay({ batchSize: 64, replayCommitEvents: 1_000 });
    // 63 pages of 64 events: one transaction each, or one per 16 pages (1,024 events) when grouped.
    expect(perPage).toBeGreaterThanOrEqual(Math.ceil(4_000 / 64));
    expect(grouped).toBeLessThanOrEqual(perPage - Math.ceil(4_000 / 64) + Math.ceil(4_000 / 1_024));
  });

  it('rebuildTogether while stopped only resets; the next start replays them together, once, and builds their indexes', async () => {
    const appended = await appendMany(h, 1_500);
    const head = appended[appended.length - 1]!.position;
    const r1 = h.runner([countingProjection([]), othersProjection([])], { batchSize: 64 });
    await r1.start();
    await r1.waitFor(head);
    await r1.stop();
    await r1.rebuildTogether(['things', 'others']);
    expect(await h.reads.getCheckpoint('things.v1')).toBeNull();
    expect(await h.reads.getCheckpoint('others.v1')).toBeNull();
    expect(await h.reads.collection(THINGS).count({})).toBe(0);

    const calls: bigint[] = [];
    const otherCalls: bigint[] = [];
    const r2 = h.runner([countingProjection(calls), othersProjection(otherCalls)], { batchSize: 64 });
    const readAll = jest.spyOn(h.events, 'readAll');
    await r2.start();
    await r2.waitFor(head);
    const pages = readAll.mock.calls.length;
    readAll.mockRestore();
    expect(calls).toEqual(countedPositions(appended));
    expect(otherCalls).toEqual(appended.filter((a) => !a.counted).map((a) => a.position));
    expect(await readModel(h.reads)).toEqual(expectedDocs(appended));
    expect(await othersModel(h.reads)).toEqual(expectedOthers(appended));
    expect(pages).toBe(Math.ceil(1_500 / 64));
    const db = new Database(`${h.dir}/read.sqlite`, { readonly: true });
    expect((db.prepare(`SELECT name FROM pragma_index_list('rm_${THINGS}')`).pluck().all() as string[]).some((n) => n.includes('lastN'))).toBe(true);
    db.close();
  });

  it.each([
    ['one page per transaction', { batchSize: 64 }],
    ['pages grouped in transactions of 500 events', { batchSize: 64, replayCommitEvents: 500 }],
  ])('a tampered event ends the shared replay (%s): the projection of its type stops loudly before it, the other reaches the head', async (_, options) => {
    const appended = await appendMany(h, 1_000);
    const logger = memoryLogger();
    const r = h.runner([countingProjection([]), othersProjection([])], options, logger);
    await r.start();
    const head = appended[appended.length - 1]!.position;
    await r.waitFor(head);
    const bad = appended.filter((a) => a.counted)[600]!;
    tamper(h, bad);

    await r.rebuildTogether(['things', 'others']);
    await waitUntil(async () => r.faults().length > 0);
    expect(r.faults()).toEqual([{ projection: 'things.v1', streamId: `thing-${bad.thingId}`, position: String(bad.position), reason: expect.stringMatching(/hash/) }]);
    expect(logger.lines.some((l) => l.level === 'warn' && l.message.includes('shared replay stopped'))).toBe(true);
    const expected = JSON.stringify(expectedOthers(appended));
    await waitUntil(async () => JSON.stringify(await othersModel(h.reads)) === expected);
    expect(await othersModel(h.reads)).toEqual(expectedOthers(appended));
    await r.stop();
    const checkpoint = (await h.reads.getCheckpoint('things.v1')) ?? -1n;
    expect(checkpoint).toBeLessThan(bad.position);
    expect(await readModel(h.reads)).toEqual(expectedDocs(appended.filter((a) => a.position <= checkpoint)));
  });

  it.each([
    ['one page per transaction', { batchSize: 100 }],
    ['pages grouped in transactions of 700 events', { batchSize: 100, replayCommitEvents: 700 }],
  ])('a handler failing during the shared replay (%s) is retried on its own subscription, never skipped', async (_, options) => {
    const appended = await appendMany(h, 2_000);
    const failing = { times: 0 };
    const flaky = flakyThings(failing);
    const logger = memoryLogger();
    const r = h.runner([flaky, othersProjection([])], options, logger);
    await r.start();
    await r.waitFor(appended[appended.length - 1]!.position);
    failing.times = 3;
    await r.rebuildTogether(['things', 'others']);
    await r.waitFor(appended[appended.length - 1]!.position);
    expect(await readModel(h.reads)).toEqual(expectedDocs(appended));
    expect(await othersModel(h.reads)).toEqual(expectedOthers(appended));
    // One failure ends the shared replay; the projection's own subscription meets the other two, then applies it.
    const failures = logger.lines.filter((l) => l.level === 'error' && l.message.includes('network blip'));
    expect(failures.map((l) => l.message.includes('shared replay stopped'))).toEqual([true, false, false]);
    expect(r.faults()).toEqual([]);
  });
});
