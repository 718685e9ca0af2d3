/**
 * Contract suite of the EventStore port (appends, reads, optimistic concurrency, idempotent retries,
 * schemas, upcasting), run against every adapter (testing/adapter-cases.ts). Each test uses fresh
 * stream ids and only looks at its own streams, so the suite also runs against a shared EventStoreDB
 * server. Subscriptions: event-store-subscriptions.contract.int.spec.ts; SQLite only:
 * sqlite-event-store.int.spec.ts and sqlite-integrity.int.spec.ts.
 */
import { randomUUID } from 'node:crypto';
import { EventSchemaError, WrongExpectedRevisionError, type NewEvent, type StoredEvent } from './event-store.port';
import { describeContract } from './testing/adapter-cases';
import { expectConflict, meta, other, streamId, thing } from './testing/fixtures';

describeContract('EventStore contract', ({ store }) => {
  it('appends to a new stream and reads it back (forwards, from a revision, max count, backwards)', async () => {
    const s = streamId('read');
    const head = await store().headPosition();
    const events = [thing(0), thing(1), thing(2)];
    const result = await store().append(s, events, 'no_stream');
    expect(result.nextExpectedRevision).toBe(2n);

    const read = await store().readStream(s);
    expect(read.map((e) => e.revision)).toEqual([0n, 1n, 2n]);
    expect(read.map((e) => e.data)).toEqual(events.map((e) => e.data));
    expect(read.map((e) => e.metadata)).toEqual(events.map((e) => e.metadata));
    for (const e of read) {
      expect(e.streamId).toBe(s);
      expect(e.type).toBe('ThingHappened');
      expect(e.id).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(new Set(read.map((e) => e.id)).size).toBe(3);

    // Positions come from the global log: read them there (EventStoreDB reports them in readStream only on >= 22.6).
    const inLog = (await store().readAll({ after: head })).filter((e) => e.streamId === s);
    expect(inLog.map((e) => e.id)).toEqual(read.map((e) => e.id));
    expect(inLog[2]!.position).toBe(result.position);

    expect((await store().readStream(s, { fromRevision: 1n })).map((e) => e.revision)).toEqual([1n, 2n]);
    expect((await store().readStream(s, { maxCount: 2 })).map((e) => e.revision)).toEqual([0n, 1n]);
    expect((await store().readStream(s, { direction: 'backwards' })).map((e) => e.revision)).toEqual([2n, 1n, 0n]);
    expect((await store().readStream(s, { direction: 'backwards', maxCount: 1 })).map((e) => e.revision)).toEqual([2n]);
    expect((await store().readStream(s, { direction: 'backwards', fromRevision: 1n })).map((e) => e.revision)).toEqual([1n, 0n]);
  });

  it('reads an absent stream as []', async () => {
    expect(await store().readStream(streamId('absent'))).toEqual([]);
  });

  it('streamRevision answers the last revision of a stream, and null for an absent one', async () => {
    const s = streamId('revision');
    expect(await store().streamRevision(s)).toBeNull();
    await store().append(s, [thing(0)], 'no_stream');
    expect(await store().streamRevision(s)).toBe(0n);
    await store().append(s, [thing(1), thing(2)], 0n);
    expect(await store().streamRevision(s)).toBe(2n);
    // Another stream's appends do not move it.
    await store().append(streamId('revision-other'), [thing(0)], 'no_stream');
    expect(await store().streamRevision(s)).toBe(2n);
  });

  it('keeps a caller-given event id', async () => {
    const s = streamId('id');
    const id = randomUUID();
    await store().append(s, [thing(0, { id })], 'no_stream');
    expect((await store().readStream(s))[0]!.id).toBe(id);
  });

  it("expected 'no_stream': conflicts when the stream exists", async () => {
    const s = streamId('nostream');
    await store().append(s, [thing(0)], 'no_stream');
    await expectConflict(store().append(s, [thing(1)], 'no_stream'), { streamId: s, actual: 0n });
    expect(await store().readStream(s)).toHaveLength(1);
  });

  it('expected exact revision: conflicts unless it is the revision of the last event', async () => {
    const s = streamId('exact');
    await store().append(s, [thing(0), thing(1)], 'no_stream');
    await expectConflict(store().append(s, [thing(2)], 0n), { streamId: s, actual: 1n });
    await expectConflict(store().append(s, [thing(2)], 5n), { streamId: s, actual: 1n });
    const ok = await store().append(s, [thing(2)], 1n);
    expect(ok.nextExpectedRevision).toBe(2n);
    const missing = streamId('exact-missing');
    await expectConflict(store().append(missing, [thing(0)], 0n), { streamId: missing, actual: 'no_stream' });
    expect((await store().readStream(s)).map((e) => e.data['n'])).toEqual([0, 1, 2]);
  });

  it("expected 'any': appends to a new and to an existing stream", async () => {
    const s = streamId('any');
    expect((await store().append(s, [thing(0)], 'any')).nextExpectedRevision).toBe(0n);
    expect((await store().append(s, [thing(1), thing(2)], 'any')).nextExpectedRevision).toBe(2n);
    expect(await store().readStream(s)).toHaveLength(3);
  });

  it("expected 'stream_exists': conflicts on a new stream, appends to an existing one", async () => {
    const s = streamId('exists');
    await expectConflict(store().append(s, [thing(0)], 'stream_exists'), { streamId: s, actual: 'no_stream' });
    expect(await store().readStream(s)).toEqual([]);
    await store().append(s, [thing(0)], 'no_stream');
    expect((await store().append(s, [thing(1)], 'stream_exists')).nextExpectedRevision).toBe(1n);
  });

  it('readAll returns the log in position order, strictly after `after`, at most maxCount', async () => {
    const head = await store().headPosition();
    const a = streamId('all-a');
    const b = streamId('all-b');
    const r1 = await store().append(a, [thing(1)], 'no_stream');
    const r2 = await store().append(b, [thing(2), thing(3)], 'no_stream');
    const r3 = await store().append(a, [thing(4)], 0n);
    expect(r1.position).toBeGreaterThan(head);
    expect(r2.position).toBeGreaterThan(r1.position);
    expect(r3.position).toBeGreaterThan(r2.position);

    const ours = (events: StoredEvent[]) => events.filter((e) => e.streamId === a || e.streamId === b);
    const all = ours(await store().readAll({ after: head }));
    expect(all.map((e) => e.data['n'])).toEqual([1, 2, 3, 4]);
    expect(all.map((e) => e.streamId)).toEqual([a, b, b, a]);
    for (let i = 1; i < all.length; i++) expect(all[i]!.position).toBeGreaterThan(all[i - 1]!.position);
    expect(all[0]!.position).toBe(r1.position);
    expect(all[3]!.position).toBe(r3.position);

    expect(ours(await store().readAll({ after: r1.position })).map((e) => e.data['n'])).toEqual([2, 3, 4]);
    expect(ours(await store().readAll({ after: r3.position }))).toEqual([]);
    const limited = await store().readAll({ after: head, maxCount: 2 });
    expect(limited).toHaveLength(2);
    expect(limited.every((e) => e.position > head)).toBe(true);
    expect((await store().headPosition()) >= r3.position).toBe(true);
  });

  it("20 concurrent appends to the same new stream with 'no_stream': exactly one wins", async () => {
    const s = streamId('race');
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => store().append(s, [thing(i)], 'no_stream')));
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(19);
    for (const l of lost) expect(l.reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect(await store().readStream(s)).toHaveLength(1);
  });

  it('rejects an event that violates its schema (data, unknown type, metadata, id) and writes nothing', async () => {
    const s = streamId('schema');
    const bad: NewEvent[] = [
      { type: 'ThingHappened', data: { thingId: 't', n: -1 }, metadata: meta() },
      { type: 'ThingHappened', data: { thingId: 't', n: 1, extra: true }, metadata: meta() },
      { type: 'ThingHappened', data: { n: 1 }, metadata: meta() },
      { type: 'NoSuchEvent', data: {}, metadata: meta() },
      { type: 'ThingHappened', data: { thingId: 't', n: 1 }, metadata: meta({ schemaVersion: 2 }) },
      { type: 'ThingHappened', data: { thingId: 't', n: 1 }, metadata: meta({ occurredAt: 'yesterday' }) },
      { type: 'ThingHappened', data: { thingId: 't', n: 1 }, metadata: { ...meta(), actor: '' } },
      { type: 'ThingHappened', data: { thingId: 't', n: 1 }, metadata: Object.assign(meta(), { extra: 1 }) },
      { type: 'ThingHappened', data: { thingId: 't', n: 1 }, metadata: meta(), id: 'not-a-uuid' },
    ];
    for (const event of bad) {
      await expect(store().append(s, [event], 'any')).rejects.toBeInstanceOf(EventSchemaError);
    }
    // A batch with one bad event is rejected as a whole.
    await expect(store().append(s, [thing(0), bad[0]!], 'any')).rejects.toBeInstanceOf(EventSchemaError);
    expect(await store().readStream(s)).toEqual([]);
  });

  it('re-appending the same event ids at the same expected revision is idempotent', async () => {
    const s = streamId('idem');
    const events = [thing(0, { id: randomUUID() }), thing(1, { id: randomUUID() })];
    const first = await store().append(s, events, 'no_stream');
    const again = await store().append(s, events, 'no_stream');
    expect(again.nextExpectedRevision).toBe(first.nextExpectedRevision);
    expect(await store().readStream(s)).toHaveLength(2);
  });

  it('a retried append whose first attempt succeeded writes nothing twice (exact revision no longer holds)', async () => {
    const s = streamId('idem-exact');
    await store().append(s, [thing(0)], 'no_stream');
    const events = [thing(1, { id: randomUUID() }), thing(2, { id: randomUUID() })];
    const first = await store().append(s, events, 0n);
    const retry = await store().append(s, events, 0n);
    expect(retry).toEqual(first);
    expect((await store().readStream(s)).map((e) => e.data['n'])).toEqual([0, 1, 2]);
    // Another append at the same place with new ids is a real conflict.
    await expectConflict(store().append(s, [thing(3, { id: randomUUID() })], 0n), { streamId: s, actual: 2n });
  });

  it("a retried append with 'any' after its first attempt succeeded writes nothing twice", async () => {
    const s = streamId('idem-any');
    await store().append(s, [thing(0)], 'no_stream');
    const events = [thing(1, { id: randomUUID() })];
    const first = await store().append(s, events, 'any');
    expect(await store().append(s, events, 'any')).toEqual(first);
    expect(await store().readStream(s)).toHaveLength(2);
  });

  it('ids stored at another place than the retry names are not a replay', async () => {
    const s = streamId('idem-place');
    const events = [thing(0, { id: randomUUID() })];
    await store().append(s, events, 'no_stream');
    await store().append(s, [thing(1)], 0n);
    await expect(store().append(s, events, 0n)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(await store().readStream(s)).toHaveLength(2);
  });

  it('reads return the upcast (current) shape of an older schema version, everywhere', async () => {
    const s = streamId('upcast');
    const head = await store().headPosition();
    const r = await store().append(s, [other('old'), { ...other('new'), data: { thingId: 'new', label: 'mine' }, metadata: meta({ schemaVersion: 2 }) }], 'no_stream');
    const expected = [
      { data: { thingId: 'old', label: 'v1:old' }, schemaVersion: 2 },
      { data: { thingId: 'new', label: 'mine' }, schemaVersion: 2 },
    ];
    const shape = (events: StoredEvent[]) => events.filter((e) => e.streamId === s).map((e) => ({ data: e.data, schemaVersion: e.metadata.schemaVersion }));
    expect(shape(await store().readStream(s))).toEqual(expected);
    expect(shape(await store().readAll({ after: head }))).toEqual(expected);
    const seen: StoredEvent[] = [];
    const sub = store().subscribeToAll(async (e) => void seen.push(e), { after: head, eventTypes: ['OtherThingHappened'] });
    try {
      await sub.caughtUpTo(r.position);
      expect(shape(seen)).toEqual(expected);
    } finally {
      await sub.stop();
    }
  });

  it('ping() answers true', async () => {
    expect(await store().ping()).toBe(true);
  });
});
