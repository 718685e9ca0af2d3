/**
 * Tamper evidence of the SQLite store (libs/event-store/README.md, "Tamper evidence"): the file is
 * changed behind the store's back through a second better-sqlite3 connection, and every read path must
 * refuse the bad event; an older file without the chain is migrated on open.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { EventSchemaRegistry } from './event-schema-registry';
import { EventIntegrityError, MAX_INTEGRITY_FAULTS, type EventStore, type EventUpcaster, type StoredEvent } from './event-store.port';
import { SqliteEventStore, type SqliteEventStoreOptions } from './sqlite-event-store';
import { hashOfRow, type EventRow } from './sqlite-rows';
import { FAST_RETRY, FIXTURE_SCHEMAS_DIR, fixtureSchemas as schemas, fixtureUpcast, meta, other, rejectionOf, streamId, thing, type LogLine } from './testing/fixtures';

let tmpDir = '';
beforeAll(() => {
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-integrity-'));
});
afterAll(() => {
  if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
});

const fileFor = (label: string) => path.join(tmpDir, label, 'events.sqlite');
const open = (file: string, extra: Partial<SqliteEventStoreOptions> = {}) =>
  new SqliteEventStore({ file, schemas, retry: FAST_RETRY, pollIntervalMs: 20, ...extra });

/** Runs `sql` on the file through a second connection (another writer, behind the store's back). */
function behindTheBack(file: string, sql: string, ...params: unknown[]): void {
  const db = new Database(file);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

async function refused(p: Promise<unknown>, expected: Partial<EventIntegrityError>): Promise<EventIntegrityError> {
  const err = await rejectionOf(p);
  expect(err).toBeInstanceOf(EventIntegrityError);
  const e = err as EventIntegrityError;
  expect(e).toMatchObject(expected);
  expect(e.message).toContain(String(expected.streamId));
  if (expected.position !== undefined) expect(e.message).toContain(`position ${String(expected.position)}`);
  return e;
}

/** Subscribes from the start and returns the error the subscription stopped on. */
async function subscriptionFailure(store: EventStore, eventTypes?: readonly string[]): Promise<EventIntegrityError> {
  const calls: EventIntegrityError[] = [];
  const sub = store.subscribeToAll(async () => undefined, { eventTypes, onFailure: (err) => calls.push(err) });
  const err = await rejectionOf(sub.caughtUpTo(1_000_000n));
  await sub.stop();
  expect(err).toBeInstanceOf(EventIntegrityError);
  expect(sub.failure).toBe(err);
  expect(calls).toEqual([err]);
  return sub.failure!;
}

describe('SQLite tamper evidence', () => {
  it('an UPDATE of the data is refused by readStream, readAll and a subscription, naming stream and position', async () => {
    const file = fileFor('update');
    const lines: LogLine[] = [];
    const store = open(file, { logger: (level, message, details) => lines.push({ level, message, details }) });
    try {
      const s = streamId('update');
      await store.append(streamId('before'), [thing(0)], 'no_stream');
      const r = await store.append(s, [thing(1), thing(2), thing(3)], 'no_stream');
      const middle = r.position - 1n;
      behindTheBack(file, 'UPDATE events SET data = ? WHERE position = ?', JSON.stringify({ thingId: 't-2', n: 99 }), middle);
      const expected = { streamId: s, position: middle, revision: 1n, reason: 'hash_mismatch' as const };
      await refused(store.readStream(s), expected);
      await refused(store.readAll(), expected);
      expect(await subscriptionFailure(store)).toMatchObject(expected);
      expect(await subscriptionFailure(store, ['ThingHappened'])).toMatchObject(expected);
      const logged = lines.filter((l) => l.level === 'error');
      expect(logged[0]!.message).toContain(s);
      expect(logged[0]!.details).toMatchObject({ streamId: s, position: String(middle), reason: 'hash_mismatch' });
      // Reads that do not reach the bad row still work.
      expect(await store.readAll({ after: middle })).toHaveLength(1);
      expect(await store.readStream(s, { fromRevision: 2n })).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('an event edited with its own hash recomputed is refused where it is read, not only by a reader of the next row', async () => {
    const file = fileFor('rehash');
    const store = open(file);
    try {
      const s = streamId('rehash');
      await store.append(s, [thing(0), thing(1)], 'no_stream');
      await store.append(streamId('next'), [other('o-1')], 'no_stream');
      await store.append(streamId('later'), [thing(2)], 'no_stream');
      // Position 2 (thing 1) gets new data and a hash recomputed over it: its own check passes, and only the next
      // row of the log (an OtherThingHappened) still links to the old hash.
      const db = new Database(file);
      const row = db.prepare('SELECT * FROM events WHERE position = 2').get() as EventRow;
      const forged = { ...row, data: JSON.stringify({ thingId: 't-1', n: 666 }) };
      db.prepare('UPDATE events SET data = ?, hash = ? WHERE position = 2').run(forged.data, hashOfRow(forged, String(row.prev_hash), String(row.stream_prev_hash)));
      db.close();
      const expected = { streamId: s, position: 2n, revision: 1n, reason: 'broken_link' as const };
      await refused(store.readStream(s), expected);
      await refused(store.readStream(s, { direction: 'backwards', maxCount: 1 }), expected);
      // A subscription to ThingHappened reads positions 1, 2 and 4 only: it applies the good event read with the
      // forged one, then stops on the forged one.
      const handled: bigint[] = [];
      const sub = store.subscribeToAll(async (e) => void handled.push(e.position), { eventTypes: ['ThingHappened'] });
      const err = await rejectionOf(sub.caughtUpTo(4n));
      await sub.stop();
      expect(err).toMatchObject(expected);
      expect(handled).toEqual([1n]);
      // The forged data is never served; the store keeps the fault for readiness.
      expect(store.integrityFaults()).toEqual([expect.objectContaining(expected)]);
      // A subscription to the whole log meets the broken link at the next row: the forged row before it is in doubt
      // too and is not applied.
      const all: bigint[] = [];
      const whole = store.subscribeToAll(async (e) => void all.push(e.position));
      expect(await rejectionOf(whole.caughtUpTo(4n))).toMatchObject({ position: 3n, reason: 'broken_link' });
      await whole.stop();
      expect(all).toEqual([1n]);
      // A page of the log that ends at it checks the next row's link with one lookup.
      await refused(store.readAll({ maxCount: 2 }), expected);
      // A read of the log past it meets it at the next row, whose link no longer matches.
      const next = (await store.readAll({ after: 2n, maxCount: 1 }).catch((e: EventIntegrityError) => e)) as EventIntegrityError;
      await refused(store.readAll(), { streamId: next.streamId, position: 3n, reason: 'broken_link' });
      expect(store.integrityFaults().map((f) => f.position)).toEqual([2n, 3n]);
    } finally {
      await store.close();
    }
  });

  it('checkLog finds a removed row that no reader reads; a subscription applies the events read before a bad one', async () => {
    const file = fileFor('check');
    const store = open(file);
    try {
      const s = streamId('check');
      await store.append(s, [thing(0), thing(1), thing(2), thing(3)], 'no_stream');
      expect(await store.checkLog()).toEqual({ checked: 4, through: 4n, faults: [] });
      behindTheBack(file, 'UPDATE events SET data = ? WHERE position = 3', JSON.stringify({ thingId: 't-2', n: 7 }));
      // Row 3 fails its hash, so its link no longer vouches for row 2 either; row 4 links to row 3's stored hash and is
      // the last: rows 1 and 4 are the ones found good.
      const outcome = await store.checkLog();
      expect(outcome).toMatchObject({ checked: 2, through: 4n, faults: [{ position: 3n, reason: 'hash_mismatch' }] });
      const handled: bigint[] = [];
      const sub = store.subscribeToAll(async (e) => void handled.push(e.position));
      await rejectionOf(sub.caughtUpTo(4n));
      await sub.stop();
      expect(handled).toEqual([1n]);
    } finally {
      await store.close();
    }
  });

  it('checkLog lists bad events up to MAX_INTEGRITY_FAULTS and stops at the last of them', async () => {
    const file = fileFor('many-faults');
    const store = open(file);
    try {
      const s = streamId('many');
      await store.append(s, Array.from({ length: 40 }, (_, i) => thing(i)), 'no_stream');
      // Every other row from position 3 on: 19 bad rows, each found by its own hash.
      for (let p = 3; p <= 39; p += 2) behindTheBack(file, 'UPDATE events SET data = ? WHERE position = ?', JSON.stringify({ thingId: 'forged', n: p }), p);
      const outcome = await store.checkLog();
      expect(outcome.faults.map((f) => f.position)).toEqual(Array.from({ length: MAX_INTEGRITY_FAULTS }, (_, i) => BigInt(3 + 2 * i)));
      expect(outcome.faults.every((f) => f.reason === 'hash_mismatch')).toBe(true);
      // Rows 1 and 2 precede the first bad one and row 2 is in doubt; every bad row puts the row before it in doubt.
      expect(outcome).toMatchObject({ checked: 1, through: 1n });
      expect(store.integrityFaults()).toEqual(outcome.faults);
    } finally {
      await store.close();
    }
  });

  it('an event edited with its hash recomputed and the next row re-pointed at it (that row’s hash left) is never served', async () => {
    const file = fileFor('repoint');
    const store = open(file);
    try {
      for (let i = 0; i < 6; i++) await store.append(streamId(`repoint-${i}`), [thing(i)], 'no_stream');
      // Row 4 gets new data and a recomputed hash; row 5 is made to link to it, its own hash not recomputed.
      const db = new Database(file);
      const row = db.prepare('SELECT * FROM events WHERE position = 4').get() as EventRow;
      const forged = { ...row, data: JSON.stringify({ thingId: 't-3', n: 999 }) };
      const forgedHash = hashOfRow(forged, String(row.prev_hash), String(row.stream_prev_hash));
      db.prepare('UPDATE events SET data = ?, hash = ? WHERE position = 4').run(forged.data, forgedHash);
      db.prepare('UPDATE events SET prev_hash = ? WHERE position = 5').run(forgedHash);
      db.close();
      const served = (events: readonly StoredEvent[] | undefined) => (events ?? []).map((e) => e.data.n);
      // A read of the log meets row 5's hash and hands back only what precedes row 4.
      const err = (await rejectionOf(store.readAll())) as EventIntegrityError;
      expect(err).toMatchObject({ position: 5n, reason: 'hash_mismatch' });
      expect(served(err.checkedBefore)).toEqual([0, 1, 2]);
      // So does a subscription by type (the typed read path), and the check of the whole log does not count row 4.
      const handled: unknown[] = [];
      const sub = store.subscribeToAll(async (e) => void handled.push(e.data.n), { eventTypes: ['ThingHappened'] });
      expect(await rejectionOf(sub.caughtUpTo(6n))).toMatchObject({ position: 5n, reason: 'hash_mismatch' });
      await sub.stop();
      expect(handled).toEqual([0, 1, 2]);
      // Row 5 fails its hash (it was re-pointed), row 4 before it is in doubt, row 6 links to row 5's stored hash.
      expect(await store.checkLog()).toMatchObject({ checked: 4, through: 6n, faults: [{ position: 5n, reason: 'hash_mismatch' }] });
    } finally {
      await store.close();
    }
  });

  it('a deleted middle row breaks the link of the row after it (log and stream)', async () => {
    const file = fileFor('delete');
    const store = open(file);
    try {
      const s = streamId('delete');
      const r = await store.append(s, [thing(0), thing(1), thing(2)], 'no_stream');
      behindTheBack(file, 'DELETE FROM events WHERE position = ?', r.position - 1n);
      const expected = { streamId: s, position: r.position, revision: 2n, reason: 'broken_link' as const };
      await refused(store.readAll(), expected);
      await refused(store.readStream(s), expected);
      await refused(store.readStream(s, { direction: 'backwards', maxCount: 1 }), expected);
      expect(await subscriptionFailure(store)).toMatchObject(expected);
    } finally {
      await store.close();
    }
  });

  it('a deleted first row, or a row inserted without its hash, is refused', async () => {
    const file = fileFor('first');
    const store = open(file);
    try {
      const s = streamId('first');
      await store.append(s, [thing(0), thing(1)], 'no_stream');
      behindTheBack(file, 'DELETE FROM events WHERE position = 1');
      await refused(store.readAll(), { streamId: s, position: 2n, reason: 'broken_link' });
      const t = streamId('inserted');
      behindTheBack(
        file,
        'INSERT INTO events (stream_id, revision, id, type, data, metadata, created_at) VALUES (?, 0, ?, ?, ?, ?, ?)',
        t,
        randomUUID(),
        'ThingHappened',
        JSON.stringify({ thingId: 'x', n: 1 }),
        JSON.stringify(meta()),
        new Date().toISOString(),
      );
      await refused(store.readStream(t), { streamId: t, revision: 0n, reason: 'hash_mismatch' });
    } finally {
      await store.close();
    }
  });

  it('an event that no longer satisfies its schema, or whose upcast does not, is refused with reason schema', async () => {
    const file = fileFor('schema');
    const writer = open(file);
    const s = streamId('schema');
    await writer.append(s, [thing(0, { data: { thingId: 't', n: 0, note: 'kept' } }), other('o')], 'no_stream');
    await writer.close();
    // A stricter schema of ThingHappened v1 (note must be null) than the one the event was written with.
    const strict = EventSchemaRegistry.fromDirectory(FIXTURE_SCHEMAS_DIR);
    const sources = strict.list().map(({ type, version }) => {
      const schema: Record<string, unknown> = JSON.parse(fs.readFileSync(path.join(FIXTURE_SCHEMAS_DIR, `${type}.v${version}.json`), 'utf8'));
      if (type === 'ThingHappened') schema['properties'] = { ...(schema['properties'] as object), note: { type: 'null' } };
      return { type, version, schema };
    });
    const strictStore = open(file, { schemas: new EventSchemaRegistry(sources) });
    const badUpcast: EventUpcaster = (type, version, data) => (type === 'OtherThingHappened' ? { data: { ...data }, schemaVersion: 2 } : { data: { ...data }, schemaVersion: version });
    const badUpcastStore = open(file, { upcast: badUpcast });
    try {
      await refused(strictStore.readStream(s), { streamId: s, revision: 0n, reason: 'schema' });
      await refused(badUpcastStore.readStream(s), { streamId: s, revision: 1n, reason: 'schema' });
      expect(await subscriptionFailure(badUpcastStore, ['OtherThingHappened'])).toMatchObject({ revision: 1n, reason: 'schema' });
    } finally {
      await strictStore.close();
      await badUpcastStore.close();
    }
  });
});

describe('SQLite migration of a file written before the hash chain', () => {
  it('adds and backfills the chain on open; reads, appends and tamper checks then work', async () => {
    const file = fileFor('legacy');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const legacy = new Database(file);
    legacy.exec(`
      CREATE TABLE events (position INTEGER PRIMARY KEY, stream_id TEXT NOT NULL, revision INTEGER NOT NULL, id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, created_at TEXT NOT NULL);
      CREATE UNIQUE INDEX events_stream_revision ON events (stream_id, revision);`);
    const a = streamId('legacy-a');
    const b = streamId('legacy-b');
    const insert = legacy.prepare('INSERT INTO events (stream_id, revision, id, type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const rows: Array<[string, number, string]> = [[a, 0, 'ThingHappened'], [b, 0, 'OtherThingHappened'], [a, 1, 'ThingHappened'], [b, 1, 'OtherThingHappened']];
    for (const [stream, revision, type] of rows) {
      const data = type === 'ThingHappened' ? { thingId: 'x', n: revision } : { thingId: `o${revision}` };
      insert.run(stream, revision, randomUUID(), type, JSON.stringify(data), JSON.stringify(meta()), new Date().toISOString());
    }
    legacy.close();

    const store = open(file, { upcast: fixtureUpcast });
    try {
      const all: StoredEvent[] = await store.readAll();
      expect(all.map((e) => [e.streamId, e.revision])).toEqual(rows.map(([s, r]) => [s, BigInt(r)]));
      expect((await store.readStream(b)).map((e) => e.data['label'])).toEqual(['v1:o0', 'v1:o1']);
      const next = await store.append(a, [thing(2)], 1n);
      expect(next.position).toBe(5n);
      expect((await store.readStream(a)).map((e) => e.data['n'])).toEqual([0, 1, 2]);
      behindTheBack(file, 'UPDATE events SET metadata = ? WHERE position = 2', JSON.stringify(meta()));
      await refused(store.readAll(), { streamId: b, position: 2n, reason: 'hash_mismatch' });
    } finally {
      await store.close();
    }
    // Opening again does not migrate twice (the hashes stay as they are: the tampered row is still refused).
    const again = open(file);
    try {
      await refused(again.readStream(b), { streamId: b, position: 2n, reason: 'hash_mismatch' });
      expect(await again.readStream(a)).toHaveLength(3);
    } finally {
      await again.close();
    }
  });
});
