/**
 * Type-filtered reads of the SQLite log (sqlite-typed-reads.ts), through what a subscriber sees: a store reopened on
 * the file (so nothing comes from the recent-events window) delivers exactly the events of its types, in log order,
 * whether they are rare (rows read one by one) or dense (one range scan), and still refuses an edited or missing row.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { EventIntegrityError, type StoredEvent } from './event-store.port';
import { SqliteEventStore } from './sqlite-event-store';
import { FAST_RETRY, fixtureSchemas as schemas, other, rejectionOf, streamId, thing } from './testing/fixtures';

let dir = '';
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typed-reads-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const open = (file: string, pageSize = 7) => new SqliteEventStore({ file, schemas, retry: FAST_RETRY, pollIntervalMs: 20, pageSize });

/**
 * A log of 400 events: ThingHappened everywhere, OtherThingHappened at 5 scattered positions (rare) and in one run of
 * 40 in a row (dense). Returns the file.
 */
async function mixedLog(): Promise<string> {
  const file = path.join(dir, 'events.sqlite');
  const store = open(file);
  try {
    const s = streamId('mixed');
    let n = 0;
    for (let i = 0; i < 400; i++) {
      const rare = [17, 111, 202, 290, 399].includes(i);
      const dense = i >= 300 && i < 340;
      await store.append(s, [rare || dense ? other(`o-${i}`) : thing(n++)], i === 0 ? 'no_stream' : BigInt(i - 1));
    }
  } finally {
    await store.close();
  }
  return file;
}

/** Everything a fresh store's subscription to `types` delivers after `after`, up to the head. */
async function delivered(file: string, types: readonly string[], after?: bigint, pageSize?: number): Promise<StoredEvent[]> {
  const store = open(file, pageSize);
  try {
    const seen: StoredEvent[] = [];
    const sub = store.subscribeToAll(async (e) => void seen.push(e), { after, eventTypes: types });
    await sub.caughtUpTo(await store.headPosition());
    await sub.stop();
    return seen;
  } finally {
    await store.close();
  }
}

async function wholeLog(file: string): Promise<StoredEvent[]> {
  const store = open(file);
  try {
    return await store.readAll({ maxCount: 10_000 });
  } finally {
    await store.close();
  }
}

describe('type-filtered reads of the SQLite log', () => {
  it('deliver exactly the events of the types, in log order, rare or dense, from any position and page size', async () => {
    const file = await mixedLog();
    const log = await wholeLog(file);
    const ids = (events: readonly StoredEvent[]) => events.map((e) => `${String(e.position)}:${e.type}:${e.id}`);
    for (const types of [['OtherThingHappened'], ['ThingHappened'], ['ThingHappened', 'OtherThingHappened'], ['OtherThingHappened', 'OtherThingHappened']]) {
      for (const after of [undefined, 0n, 16n, 17n, 150n, 305n, 398n, 399n]) {
        for (const pageSize of [1, 3, 7, 1000]) {
          const expected = log.filter((e) => types.includes(e.type) && (after === undefined || e.position > after));
          expect(ids(await delivered(file, types, after, pageSize))).toEqual(ids(expected));
        }
      }
    }
    // The data comes back decoded as stored, not only the ids.
    const rare = await delivered(file, ['OtherThingHappened'], 0n, 2);
    expect(rare.slice(0, 2).map((e) => e.data)).toEqual([{ thingId: 'o-17' }, { thingId: 'o-111' }]);
  });

  it('a log opened without the type index gets it', async () => {
    const file = await mixedLog();
    const db = new Database(file);
    db.exec('DROP INDEX events_type_position');
    db.close();
    await wholeLog(file); // opens the store
    const check = new Database(file, { readonly: true });
    const indexes = check.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'").pluck().all();
    check.close();
    expect(indexes).toContain('events_type_position');
    expect((await delivered(file, ['OtherThingHappened'])).length).toBe(45);
  });

  it('refuses an edited rare row and a rare row whose predecessor was deleted', async () => {
    const file = await mixedLog();
    const log = await wholeLog(file);
    const rare = log.filter((e) => e.type === 'OtherThingHappened');
    const edited = rare[1]!;
    const db = new Database(file);
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify({ thingId: 'forged' }), edited.position);
    db.prepare('DELETE FROM events WHERE position = ?').run(rare[3]!.position - 1n);
    db.close();

    const failureOf = async (after: bigint) => {
      const store = open(file);
      try {
        const sub = store.subscribeToAll(async () => undefined, { after, eventTypes: ['OtherThingHappened'] });
        const err = await rejectionOf(sub.caughtUpTo(await store.headPosition()));
        await sub.stop();
        return err;
      } finally {
        await store.close();
      }
    };
    expect(await failureOf(0n)).toMatchObject({ position: edited.position, reason: 'hash_mismatch' });
    const broken = await failureOf(edited.position);
    expect(broken).toBeInstanceOf(EventIntegrityError);
    expect(broken).toMatchObject({ position: rare[3]!.position, reason: 'broken_link' });
  });
});
