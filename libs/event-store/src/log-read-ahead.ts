/**
 * Reading the embedded store's global log on another thread, a few pages ahead of its consumer
 * (docs/architecture.md "Projections"): a replay of the whole log spends about half its time reading and checking
 * events, and this lets that half run on the other core while the projections apply the pages already read.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { upcastStored, type ReadPath } from './event-decoding';
import { EventIntegrityError, type MAX_INTEGRITY_FAULTS, type StoredEvent } from './event-store.port';
import type { ReadAheadMessage, ReadAheadWorkerData } from './log-read-ahead-thread';

/** The worker's module as built; absent when the code runs from its TypeScript sources (tests). */
const THREAD_MODULE = path.join(__dirname, 'log-read-ahead-thread.js');

/** Pages the worker may have read that the consumer has not taken yet. */
const PAGES_AHEAD = 3;

/** Whether this build can read ahead (its worker module was compiled to JavaScript). */
export function canReadLogAhead(): boolean {
  return existsSync(THREAD_MODULE);
}

/**
 * The log of the SQLite file `file` after position `after` up to `upTo` (inclusive), in pages of `pageSize`
 * events, read and checked by a worker thread while the consumer handles the page before. Each event is checked
 * as {@link SqliteEventStore.readAll} checks it, then upcast here with `readPath`. Leaving the loop early stops the
 * worker.
 * @throws EventIntegrityError at the page holding a stored event that fails its check (the pages before it are
 *   yielded first); Error when the worker cannot open the file.
 */
export async function* readLogAhead(
  file: string,
  readPath: ReadPath,
  range: { after: bigint; upTo: bigint; pageSize: number },
): AsyncGenerator<StoredEvent[], void, undefined> {
  const data: ReadAheadWorkerData = {
    kind: 'log-read-ahead',
    file,
    sources: readPath.schemas.sources,
    after: range.after.toString(),
    upTo: range.upTo.toString(),
    pageSize: range.pageSize,
    pagesAhead: PAGES_AHEAD,
  };
  const worker = new Worker(THREAD_MODULE, { workerData: data });
  const inbox: ReadAheadMessage[] = [];
  let wake: (() => void) | undefined;
  const deliver = (message: ReadAheadMessage) => {
    inbox.push(message);
    wake?.();
  };
  worker.on('message', deliver);
  worker.on('error', (err) => deliver({ kind: 'error', message: `the log reader thread failed: ${err.message}` }));
  worker.on('exit', (code) => deliver({ kind: 'error', message: `the log reader thread exited (code ${code})` }));
  try {
    for (;;) {
      while (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const message = inbox.shift()!;
      if (message.kind === 'end') return;
      if (message.kind === 'error') {
        const i = message.integrity;
        throw i ? new EventIntegrityError(i.streamId, i.position, i.revision, i.eventId, i.reason, i.detail) : new Error(message.message);
      }
      if (message.kind !== 'page') continue;
      worker.postMessage('more');
      yield readPath.upcast ? message.events.map((e) => upcastStored(e, readPath)) : message.events;
    }
  } finally {
    worker.removeAllListeners();
    await worker.terminate();
  }
}

/** Options of a check of the whole log. */
export interface LogCheckOptions {
  /** Called after each page with the events found good so far and the position of the last of them. */
  onProgress?: (checked: number, through: bigint) => void;
  /** Run flat out at normal priority (an offline command) instead of at most a quarter of a core at the lowest. */
  flatOut?: boolean;
  /** Stops the check (its thread ends): the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** How far a check of the whole log went ({@link verifyLogOnThread}). */
export interface LogCheckOutcome {
  /**
   * Events found good: each one's hash matches and the next one links to it (the last of the log has no next one).
   * The event before a broken link is not counted: it may be the edited one, its hash recomputed.
   */
  checked: number;
  /** Position of the last good event (`-1n`: none). */
  through: bigint;
  /**
   * The events that failed their check, in log order (none: every event is good). The check goes on past each one,
   * and stops at the {@link MAX_INTEGRITY_FAULTS}th (16).
   */
  faults: EventIntegrityError[];
}

/**
 * Checks every event of the SQLite file `file` up to position `upTo` (inclusive) on a worker thread with its own
 * read-only connection, by each row's hash and its link to the row before it: the whole chain, so an edit, removal
 * or insertion anywhere shows. Events are not decoded (their schemas were checked when they were appended, and a
 * row changed since fails its hash or a link). The thread runs at the lowest scheduling priority (Linux: per
 * thread) and uses at most a quarter of one core (it sleeps three times as long as each page took) unless
 * `flatOut`: a background check must not slow the service's reads (docs/performance.md). Reports only the outcome;
 * `onProgress` is called after each page of 1,000 events. 3,000,000 events (8.8 GB) take 67 s of CPU on the development machine.
 * @throws Error when the worker cannot open or read the file (a damaged page: SQLite's code and message) or dies;
 *   the signal's reason when `options.signal` aborts.
 */
export async function verifyLogOnThread(
  file: string,
  readPath: ReadPath,
  upTo: bigint,
  options: LogCheckOptions = {},
): Promise<LogCheckOutcome> {
  const data: ReadAheadWorkerData = {
    kind: 'log-read-ahead',
    file,
    sources: readPath.schemas.sources,
    after: '-1',
    upTo: upTo.toString(),
    pageSize: 1_000,
    pagesAhead: 1,
    verifyOnly: true,
    throttle: !options.flatOut,
  };
  const worker = new Worker(THREAD_MODULE, { workerData: data });
  let checked = 0;
  let through = -1n;
  const faults: EventIntegrityError[] = [];
  try {
    return await new Promise<LogCheckOutcome>((resolve, reject) => {
      worker.on('message', (message: ReadAheadMessage) => {
        if (message.kind === 'checked') {
          checked = message.count;
          through = BigInt(message.through);
          options.onProgress?.(checked, through);
        } else if (message.kind === 'fault') {
          const i = message.integrity;
          faults.push(new EventIntegrityError(i.streamId, i.position, i.revision, i.eventId, i.reason, i.detail));
        } else if (message.kind === 'end') resolve({ checked, through, faults });
        else if (message.kind === 'error') reject(new Error(message.message));
      });
      worker.on('error', (err) => reject(new Error(`the log checker thread failed: ${err.message}`)));
      worker.on('exit', (code) => reject(new Error(`the log checker thread exited (code ${code})`)));
      const signal = options.signal;
      if (signal?.aborted) reject(signal.reason);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  } finally {
    worker.removeAllListeners();
    await worker.terminate();
  }
}
