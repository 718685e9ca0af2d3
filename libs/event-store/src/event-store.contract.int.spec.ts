/**
 * Contract suite of the EventStore port, run against every adapter:
 * - SQLite: always (one temporary directory for this file);
 * - EventStoreDB: only when EVENTSTORE_URL is set (otherwise listed as skipped, with the reason in its name).
 * Each test uses fresh stream ids and only looks at its own streams, so the suite also runs against a
 * shared EventStoreDB server.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { EventSchemaRegistry } from './event-schema-registry';
import {
  EventSchemaError,
  SubscriptionStoppedError,
  WrongExpectedRevisionError,
  type EventMetadata,
  type EventStore,
  type EventStoreLogger,
  type NewEvent,
  type StoredEvent,
} from './event-store.port';
import { EventStoreDbEventStore } from './eventstoredb-event-store';
import { DuplicateEventIdError, SqliteEventStore } from './sqlite-event-store';

const FIXTURE_SCHEMAS = path.join(__dirname, '..', 'test-fixtures', 'event-schemas');
const schemas = EventSchemaRegistry.fromDirectory(FIXTURE_SCHEMAS);
const FAST_RETRY = { initialDelayMs: 5, maxDelayMs: 20 };

interface LogLine {
  level: string;
  message: string;
  details?: Record<string, unknown>;
}

interface AdapterCase {
  name: string;
  /** Opens the adapter (called once per describe block). */
  open(logger: EventStoreLogger): EventStore;
}

let tmpDir = '';
beforeAll(() => {
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'event-store-contract-'));
});
afterAll(() => {
  if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
});

const sqliteCase: AdapterCase = {
  name: 'SQLite',
  open: (logger) =>
    new SqliteEventStore({ file: path.join(tmpDir, 'contract', 'events.sqlite'), schemas, logger, retry: FAST_RETRY }),
};

const esdbCase: AdapterCase = {
  name: 'EventStoreDB',
  open: (logger) =>
    new EventStoreDbEventStore({ connectionString: process.env.EVENTSTORE_URL ?? '', schemas, logger, retry: FAST_RETRY }),
};

function meta(overrides: Partial<EventMetadata> = {}): EventMetadata {
  return {
    correlationId: randomUUID(),
    causationId: randomUUID(),
    actor: 'service:contract-test',
    schemaVersion: 1,
    occurredAt: new Date().toISOString(),
    ...overrides,
  };
}

function thing(n: number, extra: Partial<NewEvent> = {}): NewEvent {
  return { type: 'ThingHappened', data: { thingId: `t-${n}`, n }, metadata: meta(), ...extra };
}

function other(id: string): NewEvent {
  return { type: 'OtherThingHappened', data: { thingId: id }, metadata: meta() };
}

const streamId = (label: string) => `contract_${label}-${randomUUID()}`;

async function expectConflict(
  p: Promise<unknown>,
  expected: { streamId: string; actual: bigint | 'no_stream' },
): Promise<void> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WrongExpectedRevisionError);
  const conflict = err as WrongExpectedRevisionError;
  expect(conflict.streamId).toBe(expected.streamId);
  expect(conflict.actual).toBe(expected.actual);
}

/** Resolves with `value` after `ms` milliseconds (to check that something did not happen yet). */
const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

function contract(adapter: AdapterCase): void {
  let store: EventStore;
  const logs: LogLine[] = [];

  beforeAll(() => {
    store = adapter.open((level, message, details) => logs.push({ level, message, details }));
  });
  afterAll(async () => {
    await store?.close();
  });

  it('appends to a new stream and reads it back (forwards, from a revision, max count, backwards)', async () => {
    const s = streamId('read');
    const head = await store.headPosition();
    const events = [thing(0), thing(1), thing(2)];
    const result = await store.append(s, events, 'no_stream');
    expect(result.nextExpectedRevision).toBe(2n);

    const read = await store.readStream(s);
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
    const inLog = (await store.readAll({ after: head })).filter((e) => e.streamId === s);
    expect(inLog.map((e) => e.id)).toEqual(read.map((e) => e.id));
    expect(inLog[2]!.position).toBe(result.position);

    expect((await store.readStream(s, { fromRevision: 1n })).map((e) => e.revision)).toEqual([1n, 2n]);
    expect((await store.readStream(s, { maxCount: 2 })).map((e) => e.revision)).toEqual([0n, 1n]);
    expect((await store.readStream(s, { direction: 'backwards' })).map((e) => e.revision)).toEqual([2n, 1n, 0n]);
    expect((await store.readStream(s, { direction: 'backwards', maxCount: 1 })).map((e) => e.revision)).toEqual([2n]);
    expect((await store.readStream(s, { direction: 'backwards', fromRevision: 1n })).map((e) => e.revision)).toEqual([1n, 0n]);
  });

  it('reads an absent stream as []', async () => {
    expect(await store.readStream(streamId('absent'))).toEqual([]);
  });

  it('keeps a caller-given event id', async () => {
    const s = streamId('id');
    const id = randomUUID();
    await store.append(s, [thing(0, { id })], 'no_stream');
    expect((await store.readStream(s))[0]!.id).toBe(id);
  });

  it("expected 'no_stream': conflicts when the stream exists", async () => {
    const s = streamId('nostream');
    await store.append(s, [thing(0)], 'no_stream');
    await expectConflict(store.append(s, [thing(1)], 'no_stream'), { streamId: s, actual: 0n });
    expect(await store.readStream(s)).toHaveLength(1);
  });

  it('expected exact revision: conflicts unless it is the revision of the last event', async () => {
    const s = streamId('exact');
    await store.append(s, [thing(0), thing(1)], 'no_stream');
    await expectConflict(store.append(s, [thing(2)], 0n), { streamId: s, actual: 1n });
    await expectConflict(store.append(s, [thing(2)], 5n), { streamId: s, actual: 1n });
    const ok = await store.append(s, [thing(2)], 1n);
    expect(ok.nextExpectedRevision).toBe(2n);
    const missing = streamId('exact-missing');
    await expectConflict(store.append(missing, [thing(0)], 0n), { streamId: missing, actual: 'no_stream' });
    expect((await store.readStream(s)).map((e) => e.data['n'])).toEqual([0, 1, 2]);
  });

  it("expected 'any': appends to a new and to an existing stream", async () => {
    const s = streamId('any');
    expect((await store.append(s, [thing(0)], 'any')).nextExpectedRevision).toBe(0n);
    expect((await store.append(s, [thing(1), thing(2)], 'any')).nextExpectedRevision).toBe(2n);
    expect(await store.readStream(s)).toHaveLength(3);
  });

  it("expected 'stream_exists': conflicts on a new stream, appends to an existing one", async () => {
    const s = streamId('exists');
    await expectConflict(store.append(s, [thing(0)], 'stream_exists'), { streamId: s, actual: 'no_stream' });
    expect(await store.readStream(s)).toEqual([]);
    await store.append(s, [thing(0)], 'no_stream');
    expect((await store.append(s, [thing(1)], 'stream_exists')).nextExpectedRevision).toBe(1n);
  });

  it('readAll returns the log in position order, strictly after `after`, at most maxCount', async () => {
    const head = await store.headPosition();
    const a = streamId('all-a');
    const b = streamId('all-b');
    const r1 = await store.append(a, [thing(1)], 'no_stream');
    const r2 = await store.append(b, [thing(2), thing(3)], 'no_stream');
    const r3 = await store.append(a, [thing(4)], 0n);
    expect(r1.position).toBeGreaterThan(head);
    expect(r2.position).toBeGreaterThan(r1.position);
    expect(r3.position).toBeGreaterThan(r2.position);

    const ours = (events: StoredEvent[]) => events.filter((e) => e.streamId === a || e.streamId === b);
    const all = ours(await store.readAll({ after: head }));
    expect(all.map((e) => e.data['n'])).toEqual([1, 2, 3, 4]);
    expect(all.map((e) => e.streamId)).toEqual([a, b, b, a]);
    for (let i = 1; i < all.length; i++) expect(all[i]!.position).toBeGreaterThan(all[i - 1]!.position);
    expect(all[0]!.position).toBe(r1.position);
    expect(all[3]!.position).toBe(r3.position);

    expect(ours(await store.readAll({ after: r1.position })).map((e) => e.data['n'])).toEqual([2, 3, 4]);
    expect(ours(await store.readAll({ after: r3.position }))).toEqual([]);
    const limited = await store.readAll({ after: head, maxCount: 2 });
    expect(limited).toHaveLength(2);
    expect(limited.every((e) => e.position > head)).toBe(true);
    expect((await store.headPosition()) >= r3.position).toBe(true);
  });

  it('subscription: catches up from a checkpoint, then delivers live events; caughtUpTo waits for the handler', async () => {
    const s = streamId('sub');
    const first = await store.append(s, [thing(0)], 'no_stream');
    const rest = await store.append(s, [thing(1), thing(2)], 0n);
    const seen: StoredEvent[] = [];
    const sub = store.subscribeToAll(
      async (e) => {
        if (e.streamId === s) seen.push(e);
      },
      { after: first.position },
    );
    try {
      await sub.caughtUpTo(rest.position);
      expect(seen.map((e) => e.data['n'])).toEqual([1, 2]);

      const live = await store.append(s, [thing(3)], 2n);
      await sub.caughtUpTo(live.position);
      expect(seen.map((e) => e.data['n'])).toEqual([1, 2, 3]);
      expect(seen.map((e) => e.revision)).toEqual([1n, 2n, 3n]);
      expect(seen[2]!.position).toBe(live.position);
      // Already reached: resolves at once.
      await sub.caughtUpTo(first.position);
    } finally {
      await sub.stop();
    }
  });

  it('caughtUpTo resolves only once the handler has finished the event', async () => {
    const s = streamId('caught');
    const head = await store.headPosition();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const finished: string[] = [];
    const sub = store.subscribeToAll(
      async (e) => {
        if (e.streamId !== s) return;
        await gate;
        finished.push(e.id);
      },
      { after: head },
    );
    try {
      const r = await store.append(s, [thing(0)], 'no_stream');
      const waiting = sub.caughtUpTo(r.position).then(() => 'caught up');
      expect(await Promise.race([waiting, after(150, 'still waiting')])).toBe('still waiting');
      release();
      expect(await waiting).toBe('caught up');
      expect(finished).toHaveLength(1);
    } finally {
      release();
      await sub.stop();
    }
  });

  it('eventTypes: other types are skipped but still advance caughtUpTo', async () => {
    const s = streamId('types');
    const head = await store.headPosition();
    const seen: string[] = [];
    const sub = store.subscribeToAll(
      async (e) => {
        if (e.streamId === s) seen.push(e.type);
      },
      { after: head, eventTypes: ['OtherThingHappened'] },
    );
    try {
      const skipped = await store.append(s, [thing(0)], 'no_stream');
      await sub.caughtUpTo(skipped.position);
      expect(seen).toEqual([]);
      const delivered = await store.append(s, [other('x')], 0n);
      await sub.caughtUpTo(delivered.position);
      expect(seen).toEqual(['OtherThingHappened']);
    } finally {
      await sub.stop();
    }
  });

  it('a failing handler gets the same event again (with backoff), never skips it', async () => {
    const s = streamId('retry');
    const head = await store.headPosition();
    const delivered: number[] = [];
    let failuresLeft = 2;
    const sub = store.subscribeToAll(
      async (e) => {
        if (e.streamId !== s) return;
        delivered.push(e.data['n'] as number);
        if (e.data['n'] === 1 && failuresLeft > 0) {
          failuresLeft--;
          throw new Error('projection temporarily broken');
        }
      },
      { after: head },
    );
    try {
      const r = await store.append(s, [thing(0), thing(1), thing(2)], 'no_stream');
      await sub.caughtUpTo(r.position);
      expect(delivered).toEqual([0, 1, 1, 1, 2]);
      const retries = logs.filter((l) => l.details?.['eventId'] !== undefined && l.message.includes('retrying'));
      expect(retries.length).toBeGreaterThanOrEqual(2);
    } finally {
      await sub.stop();
    }
  });

  it('stop(): the handler is no longer called and pending caughtUpTo rejects', async () => {
    const s = streamId('stop');
    const head = await store.headPosition();
    const seen: StoredEvent[] = [];
    const sub = store.subscribeToAll(
      async (e) => {
        if (e.streamId === s) seen.push(e);
      },
      { after: head },
    );
    const r = await store.append(s, [thing(0)], 'no_stream');
    await sub.caughtUpTo(r.position);
    const never = sub.caughtUpTo(r.position + 1_000_000n);
    await sub.stop();
    await expect(never).rejects.toBeInstanceOf(SubscriptionStoppedError);
    await store.append(s, [thing(1)], 0n);
    await after(100, undefined);
    expect(seen).toHaveLength(1);
    await sub.stop(); // idempotent
  });

  it("20 concurrent appends to the same new stream with 'no_stream': exactly one wins", async () => {
    const s = streamId('race');
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => store.append(s, [thing(i)], 'no_stream')));
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(19);
    for (const l of lost) expect(l.reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect(await store.readStream(s)).toHaveLength(1);
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
      { type: 'ThingHappened', data: { thingId: 't', n: 1 }, metadata: { ...meta(), extra: 1 } as unknown as EventMetadata },
      { type: 'ThingHappened', data: { thingId: 't', n: 1 }, metadata: meta(), id: 'not-a-uuid' },
    ];
    for (const event of bad) {
      await expect(store.append(s, [event], 'any')).rejects.toBeInstanceOf(EventSchemaError);
    }
    // A batch with one bad event is rejected as a whole.
    await expect(store.append(s, [thing(0), bad[0]!], 'any')).rejects.toBeInstanceOf(EventSchemaError);
    expect(await store.readStream(s)).toEqual([]);
  });

  it('re-appending the same event ids at the same expected revision is idempotent', async () => {
    const s = streamId('idem');
    const events = [thing(0, { id: randomUUID() }), thing(1, { id: randomUUID() })];
    const first = await store.append(s, events, 'no_stream');
    const again = await store.append(s, events, 'no_stream');
    expect(again.nextExpectedRevision).toBe(first.nextExpectedRevision);
    expect(await store.readStream(s)).toHaveLength(2);
  });

  it('ping() answers true', async () => {
    expect(await store.ping()).toBe(true);
  });
}

const adapters: AdapterCase[] = [sqliteCase];
if (process.env.EVENTSTORE_URL) adapters.push(esdbCase);

describe.each(adapters)('$name adapter (EventStore contract)', (adapter) => contract(adapter));

if (!process.env.EVENTSTORE_URL) {
  describe.skip('EventStoreDB adapter (skipped: EVENTSTORE_URL not set)', () => contract(esdbCase));
}

describe('SQLite adapter specifics', () => {
  const open = (file: string, extra: Partial<ConstructorParameters<typeof SqliteEventStore>[0]> = {}) =>
    new SqliteEventStore({ file, schemas, retry: FAST_RETRY, ...extra });

  it('creates the directory, and everything is still there after reopening the file', async () => {
    const file = path.join(tmpDir, 'reopen', 'nested', 'events.sqlite');
    const first = open(file);
    const s = streamId('reopen');
    await first.append(s, [thing(0), thing(1)], 'no_stream');
    const last = await first.append(streamId('reopen-b'), [thing(2)], 'no_stream');
    const before = await first.readAll();
    await first.close();
    expect(await first.ping()).toBe(false);

    const second = open(file);
    try {
      expect(await second.readAll()).toEqual(before);
      expect(await second.headPosition()).toBe(last.position);
      expect((await second.readStream(s)).map((e) => e.data['n'])).toEqual([0, 1]);
      await expectConflict(second.append(s, [thing(9)], 0n), { streamId: s, actual: 1n });
      const next = await second.append(s, [thing(3)], 1n);
      expect(next.position).toBe(last.position + 1n);
      const db = new Database(file, { readonly: true });
      try {
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        db.close();
      }
    } finally {
      await second.close();
    }
  });

  it('positions start at 1 and headPosition is -1n on an empty log', async () => {
    const store = open(path.join(tmpDir, 'empty', 'events.sqlite'));
    try {
      expect(await store.headPosition()).toBe(-1n);
      expect(await store.readAll()).toEqual([]);
      const r = await store.append(streamId('first'), [thing(0)], 'no_stream');
      expect(r.position).toBe(1n);
      expect(await store.headPosition()).toBe(1n);
    } finally {
      await store.close();
    }
  });

  it('a subscription sees appends made by another process on the same file (slow poll)', async () => {
    const file = path.join(tmpDir, 'multi', 'events.sqlite');
    const store = open(file, { pollIntervalMs: 50 });
    const s = streamId('other-process');
    const seen: StoredEvent[] = [];
    const sub = store.subscribeToAll(async (e) => {
      seen.push(e);
    });
    try {
      await store.append(s, [thing(0)], 'no_stream');
      await sub.caughtUpTo(1n);
      const script = `
        const Database = require('better-sqlite3');
        const db = new Database(process.argv[1]);
        db.pragma('busy_timeout = 5000');
        db.prepare('INSERT INTO events (stream_id, revision, id, type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
          .run(process.argv[2], 1, process.argv[3], 'ThingHappened', JSON.stringify({ thingId: 'p', n: 1 }), process.argv[4], new Date().toISOString());
        db.close();`;
      const id = randomUUID();
      execFileSync(process.execPath, ['-e', script, file, s, id, JSON.stringify(meta())], { cwd: path.resolve(__dirname, '../../..') });
      await sub.caughtUpTo(2n);
      expect(seen.map((e) => e.id)[1]).toBe(id);
      // And the other process's event is visible to the expected-revision check.
      await expectConflict(store.append(s, [thing(2)], 0n), { streamId: s, actual: 1n });
    } finally {
      await store.close();
    }
  });

  it('two instances on one file: the second sees the first one’s appends through the poll', async () => {
    const file = path.join(tmpDir, 'two', 'events.sqlite');
    const writer = open(file);
    const reader = open(file, { pollIntervalMs: 30 });
    const seen: string[] = [];
    const sub = reader.subscribeToAll(async (e) => {
      seen.push(e.id);
    });
    try {
      const r = await writer.append(streamId('two'), [thing(0), thing(1)], 'no_stream');
      await sub.caughtUpTo(r.position);
      expect(seen).toHaveLength(2);
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it('close() stops running subscriptions', async () => {
    const store = open(path.join(tmpDir, 'close', 'events.sqlite'));
    let calls = 0;
    const sub = store.subscribeToAll(async () => {
      calls++;
    });
    const r = await store.append(streamId('close'), [thing(0)], 'no_stream');
    await sub.caughtUpTo(r.position);
    await store.close();
    await sub.stop();
    expect(calls).toBe(1);
    await expect(store.append(streamId('closed'), [thing(1)], 'any')).rejects.toThrow(/closed/);
  });

  it('rejects a stored event that no longer satisfies its schema on read', async () => {
    const file = path.join(tmpDir, 'corrupt', 'events.sqlite');
    const store = open(file);
    const s = streamId('corrupt');
    try {
      await store.append(s, [thing(0)], 'no_stream');
      const db = new Database(file);
      db.prepare('UPDATE events SET data = ? WHERE stream_id = ?').run(JSON.stringify({ thingId: 't', n: 'zero' }), s);
      db.close();
      await expect(store.readStream(s)).rejects.toBeInstanceOf(EventSchemaError);
      await expect(store.readAll()).rejects.toBeInstanceOf(EventSchemaError);
    } finally {
      await store.close();
    }
  });

  it('an event id reused in another stream is refused (DuplicateEventIdError), nothing written', async () => {
    const store = open(path.join(tmpDir, 'dup', 'events.sqlite'));
    try {
      const id = randomUUID();
      await store.append(streamId('dup-a'), [thing(0, { id })], 'no_stream');
      const b = streamId('dup-b');
      await expect(store.append(b, [thing(1), thing(2, { id })], 'any')).rejects.toBeInstanceOf(DuplicateEventIdError);
      expect(await store.readStream(b)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
