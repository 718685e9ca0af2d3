/**
 * Index builds of the SQLite read store off the event loop (docs/architecture.md "Read models on disk"). Filling a
 * new indexed column and sorting it into an index touch every row of the collection: at a million acceptance records
 * that is tens of seconds of synchronous SQLite work, during which a service running it on its event loop answered
 * nothing. A build on a large collection therefore runs on a connection of its own in a worker thread, while the
 * store's connection goes on answering reads from its WAL snapshot and the store holds its writes back (see
 * `SqliteReadStore`).
 */
import { Worker } from 'node:worker_threads';

/** One SQL statement of a build, with its parameters. */
export interface IndexBuildStatement {
  sql: string;
  params?: ReadonlyArray<string | number>;
}

/** What building one index takes: checks that must find nothing, then statements run in one transaction. */
export interface IndexBuildPlan {
  /** Queries answering one value (a document `_id`) when the build must not run; empty when nothing is to check. */
  checks: readonly string[];
  /** Run in order in one write transaction. */
  statements: readonly IndexBuildStatement[];
}

/** How a plan ended: built, or refused by its check number `check` on document `found`. */
export type IndexBuildOutcome = { built: true } | { built: false; check: number; found: string };

/** The thread: opens the file, runs the checks, then the statements in one transaction, and says how it went. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
let db;
try {
  db = new Database(workerData.file, { fileMustExist: true });
  db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -' + workerData.cacheSizeKiB);
  db.pragma('threads = ' + workerData.sorterThreads);
  let refused = null;
  workerData.plan.checks.forEach((sql, check) => {
    if (refused) return;
    const found = db.prepare(sql).pluck().get();
    if (found !== undefined) refused = { built: false, check, found: String(found) };
  });
  if (refused) parentPort.postMessage({ outcome: refused });
  else {
    let statement = -1;
    try {
      db.transaction(() => workerData.plan.statements.forEach((s, i) => { statement = i; db.prepare(s.sql).run(...(s.params || [])); }))();
    } catch (err) {
      err.statement = statement;
      throw err;
    }
    parentPort.postMessage({ outcome: { built: true } });
  }
} catch (err) {
  parentPort.postMessage({ error: { message: String((err && err.message) || err), code: err && err.code, statement: err && err.statement } });
} finally {
  if (db && db.open) db.close();
}
`;

/**
 * A failed build, with SQLite's error code (e.g. `SQLITE_CONSTRAINT_UNIQUE`) when it had one and the number of the
 * plan's statement that failed (undefined when none had started).
 */
export class IndexBuildError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly statement?: number,
  ) {
    super(message);
    this.name = 'IndexBuildError';
  }
}

export interface IndexBuildOptions {
  /** The database file (the store's own; not `:memory:`). */
  file: string;
  /** How long the thread's connection waits for a lock, in milliseconds. */
  busyTimeoutMs: number;
  /** Page cache of the thread's connection, in KiB. */
  cacheSizeKiB: number;
  /** Helper threads of SQLite's sorter on that connection (`PRAGMA threads`). */
  sorterThreads: number;
}

/**
 * Runs `plan` on a connection of its own in a worker thread; the caller keeps other writers of the file away until it
 * settles (its connection may read meanwhile).
 * @returns whether the index was built, or which check refused it.
 * @throws IndexBuildError with SQLite's code and the statement's number when one fails (the transaction is rolled
 *   back); Error when the
 *   thread could not run.
 */
export function buildOffThread(plan: IndexBuildPlan, options: IndexBuildOptions): Promise<IndexBuildOutcome> {
  return new Promise<IndexBuildOutcome>((resolve, reject) => {
    let settled = false;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { module: require.resolve('better-sqlite3'), file: options.file, busyTimeoutMs: options.busyTimeoutMs, cacheSizeKiB: options.cacheSizeKiB, sorterThreads: options.sorterThreads, plan },
    });
    worker.once('message', (message: { outcome?: IndexBuildOutcome; error?: { message: string; code?: string; statement?: number } }) => {
      settled = true;
      if (message.outcome) resolve(message.outcome);
      else {
        const statement = message.error?.statement;
        reject(new IndexBuildError(message.error?.message ?? 'index build failed', message.error?.code, statement === undefined || statement < 0 ? undefined : statement));
      }
    });
    worker.once('error', (err) => {
      if (settled) return;
      settled = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (settled) return;
      settled = true;
      reject(new Error(`the index build thread exited (code ${code}) without an answer`));
    });
  });
}
