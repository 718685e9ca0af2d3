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
import type { ReadStore } from './read-store.port';
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
      ping: () => reads.ping(),
      close: () => reads.close(),
    };
    let failures = 3;
    const base = countingProjection([]);
    const flaky: Projection = {
      ...base,
      async handle(event, store) {
        await base.handle(event, store);
        if (event.data['n'] === 1_234 && failures-- > 0) throw new Error('network blip');
      },
    };
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
    const db = new Database(h.eventsFile);
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify({ thingId: bad.thingId, n: bad.n + 1 }), bad.position);
    db.close();

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
});
