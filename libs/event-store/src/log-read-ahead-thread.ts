/**
 * The worker side of {@link readLogAhead} (log-read-ahead.ts): reads the global log of an embedded event store on
 * a connection of its own, checks every row (hash, link, schema at its stored version) exactly as a read on the
 * service's connection does, and posts the pages to the thread that started it, a few pages ahead of what that
 * thread has taken. Upcasting is left to the receiving thread (an upcaster is code, which cannot be sent here).
 *
 * Loaded only as a worker (`workerData.kind === 'log-read-ahead'`); requiring it elsewhere does nothing.
 */
import Database from 'better-sqlite3';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { EventIntegrityError } from './event-store.port';
import { EventSchemaRegistry, type EventSchemaSource } from './event-schema-registry';
import { checkedRun, predecessorLookups, selectEvents, type EventRow } from './sqlite-rows';
import type { StoredEvent } from './event-store.port';

/** What the starting thread hands the worker. Positions are decimal strings. */
export interface ReadAheadWorkerData {
  kind: 'log-read-ahead';
  file: string;
  sources: readonly EventSchemaSource[];
  after: string;
  upTo: string;
  pageSize: number;
  pagesAhead: number;
}

/** A message of the worker: a page, the end of the range, or why it stopped. */
export type ReadAheadMessage =
  | { kind: 'page'; events: StoredEvent[] }
  | { kind: 'end' }
  | {
      kind: 'error';
      message: string;
      /** Set when a stored event failed its check: the fields of its EventIntegrityError. */
      integrity?: { streamId: string; position: bigint; revision: bigint; eventId: string; reason: EventIntegrityError['reason']; detail: string };
    };

function run(data: ReadAheadWorkerData): void {
  const port = parentPort!;
  const db = new Database(data.file, { readonly: true, fileMustExist: true });
  const path = { schemas: new EventSchemaRegistry(data.sources) };
  const lookups = predecessorLookups(db);
  const page = db.prepare<[number | bigint, number], EventRow>(selectEvents('WHERE e.position > ? ORDER BY e.position ASC LIMIT ?'));
  const upTo = BigInt(data.upTo);
  let after = BigInt(data.after);
  let credits = data.pagesAhead;
  let done = false;
  const pump = () => {
    while (credits > 0 && !done) {
      let events: StoredEvent[];
      try {
        events = checkedRun(page.all(after, data.pageSize), 'log', path, lookups).filter((e) => e.position <= upTo);
      } catch (err) {
        done = true;
        const integrity =
          err instanceof EventIntegrityError
            ? { streamId: err.streamId, position: err.position, revision: err.revision, eventId: err.eventId, reason: err.reason, detail: err.detail }
            : undefined;
        port.postMessage({ kind: 'error', message: err instanceof Error ? err.message : String(err), integrity } satisfies ReadAheadMessage);
        break;
      }
      if (events.length === 0) {
        done = true;
        port.postMessage({ kind: 'end' } satisfies ReadAheadMessage);
        break;
      }
      after = events[events.length - 1]!.position;
      credits--;
      port.postMessage({ kind: 'page', events } satisfies ReadAheadMessage);
      if (after >= upTo) {
        done = true;
        port.postMessage({ kind: 'end' } satisfies ReadAheadMessage);
      }
    }
    if (done) db.close();
  };
  port.on('message', () => {
    credits++;
    pump();
  });
  pump();
}

if (!isMainThread && (workerData as { kind?: unknown } | null)?.kind === 'log-read-ahead') run(workerData as ReadAheadWorkerData);
