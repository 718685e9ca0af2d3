/**
 * WAL checkpoints off the event loop (docs/architecture.md "Events on disk"). With `synchronous = NORMAL` a SQLite
 * commit in WAL mode writes its pages to the WAL without a sync; the cost is in the checkpoints, which copy the
 * pages back into the database file and sync both files. SQLite runs them inside whichever commit crosses
 * `wal_autocheckpoint`, so on the service's one event loop every request waited, on average, for a share of them
 * (measured on this machine: about 170 µs per one-row commit with automatic checkpoints, 70 µs without).
 *
 * The checkpointer turns automatic checkpoints off on the service's connection and runs them from a worker thread
 * on a connection of its own, every `intervalMs`, in PASSIVE mode: it copies what it can without waiting for (or
 * blocking) readers and writers, and SQLite starts the WAL over once a checkpoint caught up; when writes leave it no
 * pause to catch up, a TRUNCATE checkpoint bounds the file (`truncateAboveFrames`). Durability is
 * unchanged (the same commits, the same syncs, done elsewhere). If the worker cannot run, the connection's
 * automatic checkpoints are turned back on and `onError` is told why.
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/**
 * The worker: its own connection to the file, a PASSIVE checkpoint per tick, a last one when told to stop. Past
 * `truncateAboveFrames` it asks the service's connection for a TRUNCATE checkpoint and pauses until told it ran.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
let handedOver = false;
const passive = () => {
  try { return db.pragma('wal_checkpoint(PASSIVE)')[0]; } catch (err) { parentPort.postMessage({ error: String((err && err.message) || err) }); }
};
const tick = () => {
  if (handedOver) return;
  const state = passive();
  if (state && state.log > workerData.truncateAboveFrames) {
    handedOver = true;
    parentPort.postMessage({ truncate: state.log });
  }
};
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'truncated') handedOver = false;
  if (message !== 'stop') return;
  clearInterval(timer);
  passive();
  db.close();
  parentPort.close();
});
`;

export interface WalCheckpointerOptions {
  /** Milliseconds between checkpoints; default 500. */
  intervalMs?: number;
  /** `wal_autocheckpoint` restored on the connection when the worker stops or fails (pages); default 1000. */
  fallbackAutocheckpoint?: number;
  /**
   * WAL frames (pages) above which the service's connection runs a TRUNCATE checkpoint; default 16,384. A passive
   * checkpoint never waits, so under commits without a pause (a rebuild commits page after page) it never catches up
   * with the end of the WAL, SQLite never starts the WAL over, and the file grows without bound (measured: tens of GB
   * for a million acceptances). A checkpoint from the worker cannot stop that, since the writer takes its lock back
   * within microseconds of each commit; the connection itself runs it between two of its transactions, on the event
   * loop, where it only copies what the last passive pass left (one tick of commits) and empties the file.
   */
  truncateAboveFrames?: number;
  /** Milliseconds that TRUNCATE checkpoint waits for other connections (busy timeout) before it is left to a later tick; default 200. */
  truncateWaitMs?: number;
  /**
   * Asked before the connection runs a TRUNCATE checkpoint: true puts it off (retried every 50 ms), e.g. while another
   * connection of the process holds the write lock for a long transaction, which the checkpoint would only wait for.
   */
  deferTruncate?: () => boolean;
  /** Told when the worker fails (the connection then checkpoints by itself again). */
  onError?: (message: string) => void;
}

export interface WalCheckpointer {
  /** Runs a last checkpoint, stops the worker and gives the connection its automatic checkpoints back. */
  stop(): Promise<void>;
}

/**
 * Starts background checkpoints for `db`, a connection in WAL mode to `file` (not `:memory:`).
 * @throws Error when the worker thread cannot be created (nothing is changed then).
 */
export function startWalCheckpointer(db: Database.Database, file: string, options: WalCheckpointerOptions = {}): WalCheckpointer {
  const fallback = Math.max(1, Math.floor(options.fallbackAutocheckpoint ?? 1000));
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      module: require.resolve('better-sqlite3'),
      file,
      intervalMs: Math.max(10, Math.floor(options.intervalMs ?? 500)),
      truncateAboveFrames: Math.max(1, Math.floor(options.truncateAboveFrames ?? 16_384)),
    },
  });
  worker.unref();
  db.pragma('wal_autocheckpoint = 0');
  let running = true;
  const giveBack = () => {
    if (!running) return;
    running = false;
    if (db.open) db.pragma(`wal_autocheckpoint = ${fallback}`);
  };
  const truncateWaitMs = Math.max(0, Math.floor(options.truncateWaitMs ?? 200));
  // Asked by the worker when the WAL is past `truncateAboveFrames`; runs between two transactions of the connection.
  const truncate = () => {
    if (!running || !db.open) return;
    if (db.inTransaction) {
      setTimeout(truncate, 1).unref();
      return;
    }
    if (options.deferTruncate?.()) {
      setTimeout(truncate, 50).unref();
      return;
    }
    const busyTimeout = db.pragma('busy_timeout', { simple: true }) as number;
    try {
      db.pragma(`busy_timeout = ${truncateWaitMs}`);
      db.pragma('wal_checkpoint(TRUNCATE)');
    } catch (err) {
      options.onError?.(`WAL checkpoint (TRUNCATE) of ${file} failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      db.pragma(`busy_timeout = ${busyTimeout}`);
      worker.postMessage('truncated');
    }
  };
  worker.on('message', (message: { error?: string; truncate?: number }) => {
    if (message.error) options.onError?.(`background WAL checkpoint of ${file} failed: ${message.error}`);
    if (message.truncate !== undefined) truncate();
  });
  worker.on('error', (err) => {
    giveBack();
    options.onError?.(`background WAL checkpoints of ${file} stopped: ${err.message}; the connection checkpoints by itself again`);
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  void exited.then(giveBack);
  return {
    async stop() {
      if (!running) return;
      // Held while stopping: an unreferenced worker would let the process end before its last checkpoint (and
      // before whatever the caller does after stop).
      worker.ref();
      worker.postMessage('stop');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(() => resolve(), 5_000);
      });
      await Promise.race([exited, late]);
      clearTimeout(timer);
      if (running) await worker.terminate();
      giveBack();
    },
  };
}
