/**
 * Reading the log ahead on a worker thread (`SqliteEventStore.readAllAhead`). A worker runs JavaScript only, so the
 * store is taken from the build in `dist/` (`npm test` builds first); from the TypeScript sources `readAllAhead`
 * answers null, which the first case checks too.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { EventIntegrityError as SourceIntegrityError, type StoredEvent } from './event-store.port';
import { SqliteEventStore as SourceStore } from './sqlite-event-store';
import { fixtureUpcast, FIXTURE_SCHEMAS_DIR, other, thing } from './testing/fixtures';

const BUILT = path.resolve(__dirname, '../../../dist/libs/event-store/src/index.js');
if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build\` first (\`npm test\` does)`);
const built = require(BUILT) as typeof import('./index');

const plain = (pages: StoredEvent[][]) => pages.map((page) => page.map((e) => ({ ...e, metadata: { ...e.metadata }, data: { ...e.data } })));

async function collect(pages: AsyncIterable<StoredEvent[]> | null): Promise<StoredEvent[][]> {
  if (!pages) throw new Error('the store cannot read ahead');
  const out: StoredEvent[][] = [];
  for await (const page of pages) out.push(page);
  return out;
}

describe('SqliteEventStore.readAllAhead (built module, worker thread)', () => {
  let dir: string;
  let file: string;
  let store: InstanceType<typeof built.SqliteEventStore>;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-read-ahead-'));
    file = path.join(dir, 'events.sqlite');
    store = new built.SqliteEventStore({ file, schemas: built.EventSchemaRegistry.fromDirectory(FIXTURE_SCHEMAS_DIR), upcast: fixtureUpcast });
    for (let i = 0; i < 25; i++) await store.append(`thing-${i}`, [thing(2 * i), thing(2 * i + 1), other(`o-${i}`)], 'no_stream');
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('yields the same events as readAll, page after page, upcast, up to the position asked (sources: null)', async () => {
    const all = await store.readAll();
    expect(all).toHaveLength(75);
    const upTo = all[69]!.position;
    const pages = await collect(store.readAllAhead({ after: all[4]!.position, upTo, pageSize: 16 }));
    expect(pages.map((p) => p.length)).toEqual([16, 16, 16, 16, 1]);
    expect(plain(pages).flat()).toEqual(plain([all.slice(5, 70)]).flat());
    // The upcaster ran on this thread: OtherThingHappened v1 is served as v2 with its label.
    expect(pages.flat().find((e) => e.type === 'OtherThingHappened')).toMatchObject({ metadata: { schemaVersion: 2 }, data: { label: expect.stringMatching(/^v1:o-/) } });

    const fromSources = new SourceStore({ file: path.join(dir, 'sources.sqlite'), schemas: built.EventSchemaRegistry.fromDirectory(FIXTURE_SCHEMAS_DIR) });
    expect(fromSources.readAllAhead({ after: -1n, upTo: 10n, pageSize: 4 })).toBeNull();
    await fromSources.close();
  });

  it('stops at a stored event edited behind the store: the pages before it, then its EventIntegrityError', async () => {
    const all = await store.readAll();
    const bad = all[40]!;
    const db = new Database(file);
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify({ thingId: 'forged', n: 0 }), bad.position);
    db.close();
    const pages: StoredEvent[][] = [];
    let failure: unknown;
    try {
      for await (const page of store.readAllAhead({ after: -1n, upTo: all[74]!.position, pageSize: 10 })!) pages.push(page);
    } catch (err) {
      failure = err;
    }
    expect(pages.flat().map((e) => e.position)).toEqual(all.slice(0, 40).map((e) => e.position));
    expect(failure).toBeInstanceOf(built.EventIntegrityError);
    expect(failure).toMatchObject({ streamId: bad.streamId, position: bad.position, revision: bad.revision, reason: 'hash_mismatch' });
    // The built module's error class is the same shape as the sources' one.
    expect(Object.keys(failure as object).sort()).toEqual(Object.keys(new SourceIntegrityError('s', 0n, 0n, 'i', 'schema', 'd')).sort());
  });

  it('checkLog checks every event on the worker thread: a clean log passes; a row removed and a row edited where no reader goes are both found', async () => {
    const all = await store.readAll();
    const progress: number[] = [];
    expect(await store.checkLog({ onProgress: (checked: number) => progress.push(checked) })).toEqual({ checked: 75, through: all[74]!.position, faults: [] });
    expect(progress.at(-1)).toBe(75);
    expect(store.integrityFaults()).toEqual([]);

    const db = new Database(file);
    db.prepare('DELETE FROM events WHERE position = ?').run(all[50]!.position);
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify({ thingId: 'forged', n: 0 }), all[60]!.position);
    db.close();
    const outcome = await store.checkLog();
    // The row after the gap no longer links to the row before it, which may then be an edited one; the edited row
    // fails its hash, and puts the row before it in doubt the same way. The check goes on past each: every other row
    // is good, up to the last.
    expect(outcome.faults).toHaveLength(2);
    for (const fault of outcome.faults) expect(fault).toBeInstanceOf(built.EventIntegrityError);
    expect(outcome.faults).toMatchObject([
      { position: all[51]!.position, reason: 'broken_link' },
      { position: all[60]!.position, reason: 'hash_mismatch' },
    ]);
    const good = all.filter((_, i) => ![49, 50, 51, 59, 60].includes(i));
    expect(outcome).toMatchObject({ checked: good.length, through: all[74]!.position });
    expect(store.integrityFaults()).toEqual(outcome.faults);
  });

  it('checkLog rejects, naming SQLite’s reason, when a page of the file cannot be read (no verdict, no pass)', async () => {
    for (let i = 25; i < 400; i++) await store.append(`thing-${i}`, [thing(2 * i), thing(2 * i + 1), other(`o-${i}`)], 'no_stream');
    const victim = (await store.readAll())[600]!;
    await store.close(); // everything into the main file
    const db = new Database(file, { readonly: true });
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    // The row's own hash is stored in the table only (its id also sits in an index): this is a page of the log.
    const hash = db.prepare('SELECT hash FROM events WHERE position = ?').pluck().get(victim.position) as string;
    db.close();
    const bytes = readFileSync(file);
    const at = bytes.indexOf(Buffer.from(hash));
    expect(at).toBeGreaterThan(0);
    const page = Math.floor(at / pageSize);
    bytes.fill(0x5a, page * pageSize, (page + 1) * pageSize);
    writeFileSync(file, bytes);
    store = new built.SqliteEventStore({ file, schemas: built.EventSchemaRegistry.fromDirectory(FIXTURE_SCHEMAS_DIR), upcast: fixtureUpcast });
    await expect(store.checkLog({ flatOut: true })).rejects.toThrow(/SQLITE_CORRUPT/);
    expect(store.integrityFaults()).toEqual([]);
  });

  it('checkLog stops when its signal aborts, rejecting with the reason', async () => {
    const stop = new AbortController();
    const reason = new Error('stopping');
    const outcome = store.checkLog({ signal: stop.signal });
    stop.abort(reason);
    await expect(outcome).rejects.toBe(reason);
  });

  it('leaving the loop early stops the worker, and the store closes', async () => {
    const all = await store.readAll();
    let seen = 0;
    for await (const page of store.readAllAhead({ after: -1n, upTo: all[74]!.position, pageSize: 5 })!) {
      seen += page.length;
      if (seen >= 10) break;
    }
    expect(seen).toBe(10);
  });
});
