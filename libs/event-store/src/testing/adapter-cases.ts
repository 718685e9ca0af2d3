/**
 * The adapters the port's contract suites run against: SQLite always (a temporary directory per suite
 * file), EventStoreDB only when EVENTSTORE_URL is set (otherwise listed as skipped, with the reason in
 * its name). Test code only.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EventStoreDBClient, jsonEvent } from '@eventstore/db-client';
import Database from 'better-sqlite3';
import type { EventStore, EventStoreLogger } from '../event-store.port';
import { EventStoreDbEventStore } from '../eventstoredb-event-store';
import { SqliteEventStore } from '../sqlite-event-store';
import { FAST_RETRY, fixtureSchemas as schemas, fixtureUpcast as upcast, thing, type LogLine } from './fixtures';

export interface AdapterCase {
  name: string;
  /** Opens the adapter; `label` names a store of its own (SQLite: its own file). */
  open(logger: EventStoreLogger, label?: string): EventStore;
  /**
   * Alters the stream behind the store's back so that its last event no longer matches its hash
   * (SQLite: rewrites its data in the file of store `label`; EventStoreDB, whose events cannot be
   * changed: appends one that carries no chain).
   */
  forge(streamId: string, label: string): Promise<void>;
}

let tmpDir = '';
const sqliteFile = (label: string) => path.join(tmpDir, label, 'events.sqlite');

const sqliteCase: AdapterCase = {
  name: 'SQLite',
  open: (logger, label = 'contract') => new SqliteEventStore({ file: sqliteFile(label), schemas, upcast, logger, retry: FAST_RETRY }),
  forge: async (streamId, label) => {
    const db = new Database(sqliteFile(label));
    try {
      db.prepare('UPDATE events SET data = ? WHERE stream_id = ? AND revision = (SELECT MAX(revision) FROM events WHERE stream_id = ?)').run(
        JSON.stringify({ thingId: 'forged', n: 7 }),
        streamId,
        streamId,
      );
    } finally {
      db.close();
    }
  },
};

const esdbCase: AdapterCase = {
  name: 'EventStoreDB',
  open: (logger) =>
    new EventStoreDbEventStore({ connectionString: process.env.EVENTSTORE_URL ?? '', schemas, upcast, logger, retry: FAST_RETRY }),
  forge: async (streamId) => {
    const client = EventStoreDBClient.connectionString(process.env.EVENTSTORE_URL ?? '');
    try {
      const forged = thing(7);
      await client.appendToStream(streamId, [jsonEvent({ type: forged.type, data: { thingId: 'forged', n: 7 }, metadata: { ...forged.metadata } })]);
    } finally {
      await client.dispose();
    }
  },
};

/** What a contract suite gets: the adapter, its shared store (opened before the suite) and its log. */
export interface ContractContext {
  adapter: AdapterCase;
  store: () => EventStore;
  logs: LogLine[];
}

/**
 * Runs `suite` once per available adapter, each in a `describe` titled `<adapter> adapter (<title>)`,
 * with one store opened before and closed after; the EventStoreDB run is skipped (with its reason)
 * when EVENTSTORE_URL is unset.
 */
export function describeContract(title: string, suite: (ctx: ContractContext) => void): void {
  beforeAll(() => {
    tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'event-store-contract-'));
  });
  afterAll(() => {
    if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
  });
  const run = (adapter: AdapterCase) => {
    let store: EventStore | undefined;
    const logs: LogLine[] = [];
    beforeAll(() => {
      store = adapter.open((level, message, details) => logs.push({ level, message, details }));
    });
    afterAll(async () => {
      await store?.close();
    });
    suite({
      adapter,
      logs,
      store: () => {
        if (!store) throw new Error('store not opened yet');
        return store;
      },
    });
  };
  const adapters = process.env.EVENTSTORE_URL ? [sqliteCase, esdbCase] : [sqliteCase];
  describe.each(adapters)(`$name adapter (${title})`, run);
  if (!process.env.EVENTSTORE_URL) describe.skip(`EventStoreDB adapter (${title}; skipped: EVENTSTORE_URL not set)`, () => run(esdbCase));
}
