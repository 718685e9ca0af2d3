/**
 * The worker side of {@link readLogAhead} (log-read-ahead.ts): reads the global log of an embedded event store on
 * a connection of its own, checks every row (hash, link, schema at its stored version) exactly as a read on the
 * service's connection does, and posts the pages to the thread that started it, a few pages ahead of what that
 * thread has taken. Upcasting is left to the receiving thread (an upcaster is code, which cannot be sent here).
 *
 * Loaded only as a worker (`workerData.kind === 'log-read-ahead'`); requiring it elsewhere does nothing.
 */
import Database from 'better-sqlite3';
import { constants, setPriority } from 'node:os';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { EventIntegrityError } from './event-store.port';
import { EventSchemaRegistry, type EventSchemaSource } from './event-schema-registry';
import { checkedRun, checkLogChain, predecessorLookups, selectChainColumns, type EventRow } from './sqlite-rows';
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
  /** Check only each row's hash and link, and report how far the check went (`checked`), not the events. */
  verifyOnly?: boolean;
  /** Verify-only: false runs flat out instead of at most a quarter of a core (an offline command). */
  throttle?: boolean;
}

/** A message of the worker: a page, the end of the range, or why it stopped. */
export type ReadAheadMessage =
  | { kind: 'page'; events: StoredEvent[] }
  /** Verify-only: `count` events found good so far, through position `through` (decimal). */
  | { kind: 'checked'; count: number; through: string }
  | { kind: 'end' }
  /** Verify-only: a stored event that failed its check (the check goes on past it). */
  | { kind: 'fault'; integrity: IntegrityFields }
  | {
      kind: 'error';
      message: string;
      /** Set when a stored event failed its check: the fields of its EventIntegrityError. */
      integrity?: IntegrityFields;
    };

/** The fields of an EventIntegrityError, as they cross between threads. */
export interface IntegrityFields {
  streamId: string;
  position: bigint;
  revision: bigint;
  eventId: string;
  reason: EventIntegrityError['reason'];
  detail: string;
}

/** The fields of `fault` to post to the starting thread. */
function integrityFields(fault: EventIntegrityError): IntegrityFields {
  return { streamId: fault.streamId, position: fault.position, revision: fault.revision, eventId: fault.eventId, reason: fault.reason, detail: fault.detail };
}

/** An error's text for the starting thread, with SQLite's code (a thrown SqliteError reaches it without its message). */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
}

function run(data: ReadAheadWorkerData): void {
  const port = parentPort!;
  let db: Database.Database;
  try {
    db = new Database(data.file, { readonly: true, fileMustExist: true });
  } catch (err) {
    port.postMessage({ kind: 'error', message: `cannot open ${data.file}: ${describe(err)}` } satisfies ReadAheadMessage);
    return;
  }
  const path = { schemas: new EventSchemaRegistry(data.sources) };
  const lookups = predecessorLookups(db);
  const page = db.prepare<[number | bigint, number], EventRow>(selectChainColumns('WHERE e.position > ? ORDER BY e.position ASC LIMIT ?'));
  const upTo = BigInt(data.upTo);
  let after = BigInt(data.after);
  let credits = data.pagesAhead;
  let done = false;
  const emit = (events: StoredEvent[]) => port.postMessage({ kind: 'page', events } satisfies ReadAheadMessage);
  const pump = () => {
    while (credits > 0 && !done) {
      let events: StoredEvent[];
      try {
        events = checkedRun(page.all(after, data.pageSize), 'log', path, lookups).filter((e) => e.position <= upTo);
      } catch (err) {
        done = true;
        // The good events read with the bad one go first, as a page of their own.
        const before = err instanceof EventIntegrityError ? err.checkedBefore?.filter((e) => e.position <= upTo) : undefined;
        if (before && before.length > 0) emit(before);
        const integrity = err instanceof EventIntegrityError ? integrityFields(err) : undefined;
        port.postMessage({ kind: 'error', message: describe(err), integrity } satisfies ReadAheadMessage);
        break;
      }
      if (events.length === 0) {
        done = true;
        port.postMessage({ kind: 'end' } satisfies ReadAheadMessage);
        break;
      }
      after = events[events.length - 1]!.position;
      credits--;
      emit(events);
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

/** Share of one core the verify-only check uses at most: it sleeps three times as long as each page took. */
const CHECK_DUTY = 0.25;

/** Verify-only: every row's hash and link, in pages, reporting progress; nothing is decoded or posted but counts. */
function check(data: ReadAheadWorkerData): void {
  const port = parentPort!;
  // A background check gives way to the service: on Linux the nice value is per thread, so only this one drops.
  if (data.throttle !== false) {
    try {
      setPriority(constants.priority.PRIORITY_LOW);
    } catch {
      // not permitted here: the check runs at normal priority
    }
  }
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let db: Database.Database | undefined;
  try {
    db = new Database(data.file, { readonly: true, fileMustExist: true });
    const pages = checkLogChain(db, BigInt(data.upTo), data.pageSize);
    let posted = 0;
    for (;;) {
      const started = performance.now();
      const step = pages.next();
      if (step.done) {
        port.postMessage({ kind: 'end' } satisfies ReadAheadMessage);
        return;
      }
      for (const fault of step.value.faults.slice(posted)) port.postMessage({ kind: 'fault', integrity: integrityFields(fault) } satisfies ReadAheadMessage);
      posted = step.value.faults.length;
      port.postMessage({ kind: 'checked', count: step.value.checked, through: String(step.value.through) } satisfies ReadAheadMessage);
      // At most CHECK_DUTY of one core: the priority alone did not keep it from slowing the service's reads.
      if (data.throttle !== false) Atomics.wait(pause, 0, 0, ((performance.now() - started) * (1 - CHECK_DUTY)) / CHECK_DUTY);
    }
  } catch (err) {
    // The file cannot be read (a damaged page, an I/O error): not a verdict on an event, but the check did not pass.
    port.postMessage({ kind: 'error', message: describe(err) } satisfies ReadAheadMessage);
  } finally {
    db?.close();
  }
}

if (!isMainThread && (workerData as { kind?: unknown } | null)?.kind === 'log-read-ahead') {
  const data = workerData as ReadAheadWorkerData;
  if (data.verifyOnly) check(data);
  else run(data);
}
