/**
 * SqliteEventStore beyond the port's contract: the file (reopen, WAL, positions), several processes and
 * instances on one file, close(), event ids unique across streams. Tamper evidence and migration:
 * sqlite-integrity.int.spec.ts.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import type { StoredEvent } from './event-store.port';
import { DuplicateEventIdError, SqliteEventStore, type SqliteEventStoreOptions } from './sqlite-event-store';
import { FAST_RETRY, FIXTURE_SCHEMAS_DIR, expectConflict, fixtureSchemas as schemas, meta, streamId, thing } from './testing/fixtures';

let tmpDir = '';
beforeAll(() => {
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-event-store-'));
});
afterAll(() => {
  if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
});

const open = (file: string, extra: Partial<SqliteEventStoreOptions> = {}) => new SqliteEventStore({ file, schemas, retry: FAST_RETRY, ...extra });

/**
 * A script for another Node process that appends through this library's SqliteEventStore (its
 * TypeScript sources compiled on load by @swc/core): argv = file, stream id, event id, schemas dir, metadata JSON.
 */
const OTHER_PROCESS_APPEND = `
  const fs = require('node:fs');
  const { transformSync } = require('@swc/core');
  require.extensions['.ts'] = (module, filename) => {
    const source = fs.readFileSync(filename, 'utf8');
    const { code } = transformSync(source, { filename, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } });
    module._compile(code, filename);
  };
  const [file, stream, id, schemasDir, metadata] = process.argv.slice(1);
  const { SqliteEventStore } = require(${JSON.stringify(path.join(__dirname, 'sqlite-event-store.ts'))});
  const { EventSchemaRegistry } = require(${JSON.stringify(path.join(__dirname, 'event-schema-registry.ts'))});
  const store = new SqliteEventStore({ file, schemas: EventSchemaRegistry.fromDirectory(schemasDir) });
  store.appendSync(stream, [{ id, type: 'ThingHappened', data: { thingId: 'p', n: 1 }, metadata: JSON.parse(metadata) }], 0n);
  store.close();
`;

describe('SqliteEventStore', () => {
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
      expect((await second.readAll({ after: last.position })).map((e) => e.position)).toEqual([next.position]);
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

  it('a subscription sees appends made by another process on the same file without waiting for the slow poll, chain intact', async () => {
    const file = path.join(tmpDir, 'multi', 'events.sqlite');
    // A poll of ten minutes: only the check of SQLite's data_version can deliver the other process's event in time.
    const store = open(file, { pollIntervalMs: 600_000 });
    const s = streamId('other-process');
    const seen: StoredEvent[] = [];
    const sub = store.subscribeToAll(async (e) => {
      seen.push(e);
    });
    try {
      await store.append(s, [thing(0)], 'no_stream');
      await sub.caughtUpTo(1n);
      const id = randomUUID();
      execFileSync(process.execPath, ['-e', OTHER_PROCESS_APPEND, file, s, id, FIXTURE_SCHEMAS_DIR, JSON.stringify(meta())], {
        cwd: path.resolve(__dirname, '../../..'),
      });
      await sub.caughtUpTo(2n);
      expect(seen.map((e) => e.id)[1]).toBe(id);
      expect(sub.failure).toBeUndefined();
      // The other process's event is visible to the expected-revision check, and chained: reads pass.
      await expectConflict(store.append(s, [thing(2)], 0n), { streamId: s, actual: 1n });
      await store.append(s, [thing(2)], 1n);
      expect((await store.readStream(s)).map((e) => e.data['n'])).toEqual([0, 1, 2]);
    } finally {
      await store.close();
    }
  });

  it('an append of this instance after another process’s, before the foreign-commit check has run, delivers both in log order', async () => {
    const file = path.join(tmpDir, 'interleaved', 'events.sqlite');
    // Neither the poll nor the data_version check runs during the test: only this instance's own append wakes the
    // subscription, and the head it knows from its own commits must not hide the other process's event.
    const store = open(file, { pollIntervalMs: 600_000, foreignCommitCheckMs: 600_000 });
    const seen: string[] = [];
    const sub = store.subscribeToAll(async (e) => {
      seen.push(e.id);
    });
    const s = streamId('interleaved');
    try {
      const [one, two] = [randomUUID(), randomUUID()];
      const first = await store.append(s, [{ ...thing(0), id: one }], 'no_stream');
      await sub.caughtUpTo(first.position);
      const theirs = randomUUID();
      execFileSync(process.execPath, ['-e', OTHER_PROCESS_APPEND, file, s, theirs, FIXTURE_SCHEMAS_DIR, JSON.stringify(meta())], {
        cwd: path.resolve(__dirname, '../../..'),
      });
      const last = await store.append(s, [{ ...thing(2), id: two }], 1n);
      expect(last.position).toBe(first.position + 2n);
      await sub.caughtUpTo(last.position);
      expect(seen).toEqual([one, theirs, two]);
      expect(sub.failure).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('two instances on one file: the second sees the first one’s appends through the poll', async () => {
    const file = path.join(tmpDir, 'two', 'events.sqlite');
    const writer = open(file);
    const reader = open(file, { pollIntervalMs: 30, foreignCommitCheckMs: 0 });
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

  it('an event id reused in another stream, or at another place, is refused (DuplicateEventIdError), nothing written', async () => {
    const store = open(path.join(tmpDir, 'dup', 'events.sqlite'));
    try {
      const id = randomUUID();
      const a = streamId('dup-a');
      await store.append(a, [thing(0, { id })], 'no_stream');
      const b = streamId('dup-b');
      await expect(store.append(b, [thing(1), thing(2, { id })], 'any')).rejects.toBeInstanceOf(DuplicateEventIdError);
      expect(await store.readStream(b)).toEqual([]);
      await store.append(a, [thing(1)], 0n);
      await expect(store.append(a, [thing(0, { id })], 1n)).rejects.toBeInstanceOf(DuplicateEventIdError);
      // Same id and place but other data: not a retry of the same append.
      await expect(store.append(a, [{ ...thing(5), id }], 'any')).rejects.toBeInstanceOf(DuplicateEventIdError);
      expect(await store.readStream(a)).toHaveLength(2);
    } finally {
      await store.close();
    }
  });
});
