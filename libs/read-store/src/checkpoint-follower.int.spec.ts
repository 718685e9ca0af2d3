/**
 * `ProjectionRunner.waitFor` in a process that does not run the projections (an API replica beside a worker),
 * over the real SQLite event store and read store: answers follow the checkpoints the worker saves, and the log is
 * read once for all pending waits, not once per wait and projection.
 */
import { ProjectionLagError, ProjectionRunnerStoppedError, type Projection } from './projection';
import type { ProjectionRunner } from './projection-runner';
import { RunnerHarness, countingProjection, other, snapshot, thing } from './testing/runner-fixtures';

/** A second projection, of the events `countingProjection` skips. */
function othersProjection(calls: bigint[]): Projection {
  return {
    name: 'others',
    version: 1,
    eventTypes: ['OtherThingHappened'],
    indexes: { others_v1: [] },
    async handle(event, store) {
      calls.push(event.position);
      await store.collection('others_v1').updateOne({ _id: event.streamId }, { $inc: { count: 1 } }, { upsert: true });
    },
  };
}

describe('ProjectionRunner.waitFor in a process that does not run the projections', () => {
  let h: RunnerHarness;
  let readAllEvents: number;
  const runner = (...args: Parameters<RunnerHarness['runner']>): ProjectionRunner => h.runner(...args);

  beforeEach(() => {
    h = new RunnerHarness();
    readAllEvents = 0;
    const readAll = h.events.readAll.bind(h.events);
    h.events.readAll = async (options) => {
      const page = await readAll(options);
      readAllEvents += page.length;
      return page;
    };
  });
  afterEach(() => h.close());

  it('answers 300 concurrent waits over two projections, each after its writes are readable, reading the log about once', async () => {
    const worker = runner([countingProjection([]), othersProjection([])]);
    const api = runner([countingProjection([]), othersProjection([])], { pollIntervalMs: 5 });
    await worker.start();
    const waits: Promise<void>[] = [];
    for (let i = 1; i <= 150; i++) {
      const id = `t${i % 7}`;
      const a = await h.events.append(`thing-${id}`, [thing(id, i)], 'any');
      const b = await h.events.append(`other-${id}`, [other(id)], 'any');
      const n = i;
      waits.push(
        api.waitFor(a.position).then(async () => {
          // Read your writes: the thing's count covers this append once the wait resolves.
          const doc = (await snapshot(h.reads))[id];
          expect(doc?.count).toBeGreaterThanOrEqual(Math.ceil(n / 7) - 1);
        }),
        api.waitFor(b.position).then(async () => {
          const others = await h.reads.collection<{ _id: string; count: number }>('others_v1').findOne({ _id: `other-${id}` });
          expect(others?.count).toBeGreaterThanOrEqual(1);
        }),
      );
    }
    await Promise.all(waits);
    const head = await h.events.headPosition();
    await api.waitFor(head);
    expect(await snapshot(h.reads)).toEqual(
      Object.fromEntries(
        Array.from({ length: 7 }, (_, k) => {
          const ns = Array.from({ length: 150 }, (_, j) => j + 1).filter((n) => n % 7 === k);
          return [`t${k}`, { count: ns.length, lastN: Math.max(...ns) }];
        }),
      ),
    );
    // 300 events in the log. One log scan per wait and projection (the former way) reads tens of thousands.
    expect(readAllEvents).toBeLessThan(2 * 300 + 100);
  });

  it('does not wait for a projection that has no event up to the position, and names the one that lags', async () => {
    const worker = runner([countingProjection([])]); // the worker runs "things" only: "others" never moves
    const api = runner([countingProjection([]), othersProjection([])], { pollIntervalMs: 5 });
    await worker.start();
    const first = await h.events.append('thing-a', [thing('a', 1)], 'no_stream');
    await api.waitFor(first.position, { timeoutMs: 2_000 }); // "others" has no checkpoint, but nothing to apply
    const skipped = await h.events.append('thing-a', [other('a')], 0n);
    const err = await api.waitFor(skipped.position, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectionLagError);
    expect((err as ProjectionLagError).lagging).toEqual(['others.v1']);
  });

  it('reads the log again when a checkpoint moves back (a projection rebuilt by the worker)', async () => {
    const calls: bigint[] = [];
    const worker = runner([countingProjection(calls)]);
    const api = runner([countingProjection([])], { pollIntervalMs: 5 });
    await worker.start();
    const a = await h.events.append('thing-a', [thing('a', 1), thing('a', 2)], 'no_stream');
    await api.waitFor(a.position);
    await worker.stop();
    await h.reads.deleteCheckpoint('things.v1'); // as a rebuild does first
    const b = await h.events.append('thing-b', [other('b')], 'no_stream');
    // Nothing of "things" after the old checkpoint, but the projection starts over from the first event.
    await expect(api.waitFor(b.position, { timeoutMs: 200 })).rejects.toBeInstanceOf(ProjectionLagError);
    const replay = runner([countingProjection([])]);
    await replay.start();
    await api.waitFor(b.position, { timeoutMs: 5_000 });
    expect((await h.reads.getCheckpoint('things.v1'))! >= a.position).toBe(true);
  });

  it('hands the wait over to its own subscriptions when the runner starts, and rejects pending waits on stop', async () => {
    const api = runner([countingProjection([])], { pollIntervalMs: 5 });
    const { position } = await h.events.append('thing-a', [thing('a', 1)], 'no_stream');
    const waiting = api.waitFor(position);
    await new Promise((resolve) => setTimeout(resolve, 30)); // polled, not reached: nobody applies the log
    await api.start();
    await waiting;
    expect((await snapshot(h.reads))['a']).toEqual({ count: 1, lastN: 1 });

    const idle = runner([countingProjection([])], { pollIntervalMs: 5 });
    await api.stop(); // nobody applies the log any more
    const next = await h.events.append('thing-z', [thing('z', 1)], 'no_stream');
    const pending = idle.waitFor(next.position);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await idle.stop();
    await expect(pending).rejects.toBeInstanceOf(ProjectionRunnerStoppedError);
  });
});
