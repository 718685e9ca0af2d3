/**
 * ProjectionRunner over the real SqliteEventStore and NedbReadStore (temporary directories).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { EventSchemaRegistry, SqliteEventStore, type NewEvent, type StoredEvent } from '@svc/event-store';
import { NedbReadStore } from './nedb-read-store';
import {
  ProjectionLagError,
  ProjectionRunner,
  ProjectionRunnerStoppedError,
  checkpointKey,
  type Projection,
  type ProjectionRunnerLogger,
  type ProjectionRunnerOptions,
} from './projection-runner';
import type { Doc, ReadStore } from './read-store.port';

const FIXTURE_SCHEMAS = path.join(__dirname, '..', '..', 'event-store', 'test-fixtures', 'event-schemas');
const schemas = EventSchemaRegistry.fromDirectory(FIXTURE_SCHEMAS);

const THINGS = 'things_v1';

interface ThingDoc extends Doc {
  eventIds: string[];
  lastN: number;
}

function thing(thingId: string, n: number): NewEvent {
  return {
    type: 'ThingHappened',
    data: { thingId, n },
    metadata: {
      correlationId: randomUUID(),
      causationId: randomUUID(),
      actor: 'service:test',
      schemaVersion: 1,
      occurredAt: new Date().toISOString(),
    },
  };
}

function other(thingId: string): NewEvent {
  return { ...thing(thingId, 0), type: 'OtherThingHappened', data: { thingId } };
}

/** Counts things idempotently: a replayed event finds its id already in the set. */
function countingProjection(calls: bigint[], overrides: Partial<Projection> = {}): Projection {
  return {
    name: 'things',
    version: 1,
    eventTypes: ['ThingHappened'],
    indexes: { [THINGS]: [{ fields: { lastN: 1 } }] },
    async handle(event: StoredEvent, store: ReadStore): Promise<void> {
      calls.push(event.position);
      const data = event.data as { thingId: string; n: number };
      await store
        .collection<ThingDoc>(THINGS)
        .updateOne({ _id: data.thingId }, { $addToSet: { eventIds: event.id }, $set: { lastN: data.n } }, { upsert: true });
    },
    ...overrides,
  };
}

function memoryLogger(): ProjectionRunnerLogger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  return {
    lines,
    info: (message) => lines.push({ level: 'info', message }),
    warn: (message) => lines.push({ level: 'warn', message }),
    error: (message) => lines.push({ level: 'error', message }),
  };
}

async function snapshot(store: ReadStore): Promise<Record<string, { count: number; lastN: number }>> {
  const docs = await store.collection<ThingDoc>(THINGS).find({}, { sort: { _id: 1 } });
  return Object.fromEntries(docs.map((d) => [d._id, { count: d.eventIds.length, lastN: d.lastN }]));
}

describe('ProjectionRunner (SQLite event store, NeDB read store)', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: NedbReadStore;
  const runners: ProjectionRunner[] = [];

  const FAST: ProjectionRunnerOptions = { checkpointDelayMs: 20, idleCheckMs: 0, waitForTimeoutMs: 5_000 };
  function runner(projections: Projection[], options: ProjectionRunnerOptions = FAST, logger = memoryLogger()) {
    const r = new ProjectionRunner(events, reads, projections, logger, options);
    runners.push(r);
    return r;
  }

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'projection-runner-'));
    events = new SqliteEventStore({
      file: path.join(dir, 'events.sqlite'),
      schemas,
      retry: { initialDelayMs: 5, maxDelayMs: 20 },
    });
    reads = await NedbReadStore.open({ dataDir: dir, autocompactionIntervalMs: 0 });
  });

  afterEach(async () => {
    for (const r of runners.splice(0)) await r.stop();
    await events.close();
    await reads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

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

  it('batches checkpoint writes: every N events, after the delay, and on stop', async () => {
    const calls: bigint[] = [];
    const r = runner([countingProjection(calls)], { checkpointEvery: 3, checkpointDelayMs: 60_000, idleCheckMs: 0 });
    await r.start();
    const appended: bigint[] = [];
    for (let i = 0; i < 7; i++) appended.push((await events.append(`t-${i}`, [thing(`t${i}`, i)], 'no_stream')).position);
    await r.waitFor(appended[6]!);
    expect(await reads.getCheckpoint('things.v1')).toBe(appended[5]); // saved after the 3rd and the 6th
    await r.stop();
    expect(await reads.getCheckpoint('things.v1')).toBe(appended[6]);

    const timed = runner([countingProjection([])], { checkpointEvery: 1_000, checkpointDelayMs: 30, idleCheckMs: 0 });
    await timed.start();
    const { position } = await events.append('t-late', [thing('late', 1)], 'no_stream');
    await timed.waitFor(position);
    await waitUntil(async () => (await reads.getCheckpoint('things.v1')) === position);
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
    expect(logger.lines.some((l) => l.level === 'warn' && l.message.includes('rebuilding projection things.v1'))).toBe(true);
    await r.stop();
    expect(await reads.getCheckpoint('things.v1')).toBe(position);

    await expect(r.rebuild('nope')).rejects.toThrow(/unknown projection/);
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

  it('logs handler failures; the event is retried, never skipped', async () => {
    let failures = 2;
    const calls: bigint[] = [];
    const base = countingProjection(calls);
    const flaky: Projection = {
      ...base,
      async handle(event, store) {
        if ((event.data as { n: number }).n === 2 && failures-- > 0) throw new Error('read store hiccup');
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
    expect(errors[0]!.message).toMatch(/projection things\.v1 failed on event ThingHappened .*read store hiccup/);
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
    const r = runner([countingProjection([])], { checkpointDelayMs: 10, idleCheckMs: 25 });
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
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
