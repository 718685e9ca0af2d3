/**
 * Fixtures of the projection runner suites: a real SQLite event store with the test-only event types,
 * a SQLite read store, an idempotent counting projection and a memory logger.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { EventSchemaRegistry, SqliteEventStore, type NewEvent, type StoredEvent } from '@svc/event-store';
import type { Projection, ProjectionRunnerLogger, ProjectionRunnerOptions } from '../projection';
import { ProjectionRunner } from '../projection-runner';
import type { Doc, ReadStore } from '../read-store.port';
import { SqliteReadStore } from '../sqlite/sqlite-read-store';

const FIXTURE_SCHEMAS = path.join(__dirname, '..', '..', '..', 'event-store', 'test-fixtures', 'event-schemas');
export const schemas = EventSchemaRegistry.fromDirectory(FIXTURE_SCHEMAS);

export const THINGS = 'things_v1';

export interface ThingDoc extends Doc {
  eventIds: string[];
  lastN: number;
}

export function thing(thingId: string, n: number): NewEvent {
  return {
    type: 'ThingHappened',
    data: { thingId, n },
    metadata: { correlationId: randomUUID(), causationId: randomUUID(), actor: 'service:test', schemaVersion: 1, occurredAt: new Date().toISOString() },
  };
}

export function other(thingId: string): NewEvent {
  return { ...thing(thingId, 0), type: 'OtherThingHappened', data: { thingId } };
}

/** Counts things idempotently: a replayed event finds its id already in the set. */
export function countingProjection(calls: bigint[], overrides: Partial<Projection> = {}): Projection {
  return {
    name: 'things',
    version: 1,
    eventTypes: ['ThingHappened'],
    indexes: { [THINGS]: [{ fields: { lastN: 1 } }] },
    async handle(event: StoredEvent, store: ReadStore): Promise<void> {
      calls.push(event.position);
      const { thingId, n } = event.data;
      await store
        .collection<ThingDoc>(THINGS)
        .updateOne({ _id: String(thingId) }, { $addToSet: { eventIds: event.id }, $set: { lastN: Number(n) } }, { upsert: true });
    },
    ...overrides,
  };
}

export interface MemoryLogger extends ProjectionRunnerLogger {
  lines: { level: string; message: string }[];
}

export function memoryLogger(): MemoryLogger {
  const lines: { level: string; message: string }[] = [];
  return {
    lines,
    info: (message: string) => lines.push({ level: 'info', message }),
    warn: (message: string) => lines.push({ level: 'warn', message }),
    error: (message: string) => lines.push({ level: 'error', message }),
  };
}

/** `{thingId: {count, lastN}}` of every thing document. */
export async function snapshot(store: ReadStore): Promise<Record<string, { count: number; lastN: number }>> {
  const docs = await store.collection<ThingDoc>(THINGS).find({}, { sort: { _id: 1 } });
  return Object.fromEntries(docs.map((d) => [d._id, { count: d.eventIds.length, lastN: d.lastN }]));
}

export async function waitUntil(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A temporary directory with an event store and a read store, and the runners made on them. */
export class RunnerHarness {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'projection-runner-'));
  readonly eventsFile = path.join(this.dir, 'events.sqlite');
  readonly events = new SqliteEventStore({ file: this.eventsFile, schemas, retry: { initialDelayMs: 5, maxDelayMs: 20 } });
  readonly reads = new SqliteReadStore({ file: path.join(this.dir, 'read.sqlite') });
  private readonly runners: ProjectionRunner[] = [];

  runner(projections: Projection[], options: ProjectionRunnerOptions = {}, logger: ProjectionRunnerLogger = memoryLogger(), store: ReadStore = this.reads): ProjectionRunner {
    const r = new ProjectionRunner(this.events, store, projections, logger, { idleCheckMs: 0, waitForTimeoutMs: 10_000, retryDelayMs: 5, ...options });
    this.runners.push(r);
    return r;
  }

  async close(): Promise<void> {
    for (const r of this.runners.splice(0)) await r.stop();
    await this.events.close();
    await this.reads.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
