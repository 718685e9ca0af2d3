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
 * pause to catch up, a RESTART checkpoint bounds the file (`restartAboveFrames`). Durability is
 * unchanged (the same commits, the same syncs, done elsewhere). If the worker cannot run, the connection's
 * automatic checkpoints are turned back on and `onError` is told why.
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/**
 * The worker: its own connection to the file, a PASSIVE checkpoint per tick, a last one when told to stop. Past
 * `restartAboveFrames` it asks the service's connection for a RESTART checkpoint and pauses until told it ran. A
 * RESTART leaves the WAL's frame count as it was until the next write starts the file over, so the worker asks
 * again only once the count has changed since the last one it asked about (an idle store is asked once).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
let handedOver = false;
let askedAt = -1;
const passive = () => {
  try { return db.pragma('wal_checkpoint(PASSIVE)')[0]; } catch (err) { parentPort.postMessage({ error: String((err && err.message) || err) }); }
};
const tick = () => {
  if (handedOver) return;
  const state = passive();
  if (!state || state.log <= workerData.restartAboveFrames || state.log === askedAt) return;
  // A second pass at once copies and syncs what was committed during the first, so that the connection's RESTART
  // is left only the frames of that moment, not those of a whole tick.
  const last = passive() || state;
  handedOver = true;
  askedAt = last.log;
  parentPort.postMessage({ restart: last.log });
};
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'restarted') handedOver = false;
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
   * WAL frames (pages) above which the service's connection runs a RESTART checkpoint; default 16,384. A passive
   * checkpoint never waits, so under commits without a pause (a rebuild commits page after page) it never catches up
   * with the end of the WAL, SQLite never starts the WAL over, and the file grows without bound (measured: tens of GB
   * for a million acceptances). A checkpoint from the worker cannot stop that, since the writer takes its lock back
   * within microseconds of each commit; the connection itself runs it between two of its transactions, on the event
   * loop, where it only copies what the last passive pass left (one tick of commits), and its next commit writes
   * the WAL from the start again.
   *
   * RESTART rather than TRUNCATE: the file keeps its blocks and is overwritten in place. Truncating a WAL of 16,384
   * pages of 16 KiB held the event loop for 80 to 105 ms, against 1 to 5 ms for the RESTART once the worker's second
   * pass has copied all but the last moment's frames (measured under direct acceptances). The connection's
   * `journal_size_limit` is set to this many frames, so a file that grew past it (by the tick before the restart) is
   * cut back to that size when the WAL starts over.
   */
  restartAboveFrames?: number;
  /** Milliseconds that RESTART checkpoint waits for other connections (busy timeout) before it is left to a later tick; default 200. */
  restartWaitMs?: number;
  /**
   * Asked before the connection runs a RESTART checkpoint: true puts it off (retried every 50 ms), e.g. while another
   * connection of the process holds the write lock for a long transaction, which the checkpoint would only wait for.
   */
  deferRestart?: () => boolean;
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
  const restartAboveFrames = Math.max(1, Math.floor(options.restartAboveFrames ?? 16_384));
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      module: require.resolve('better-sqlite3'),
      file,
      intervalMs: Math.max(10, Math.floor(options.intervalMs ?? 500)),
      restartAboveFrames,
    },
  });
  worker.unref();
  db.pragma('wal_autocheckpoint = 0');
  // A WAL header of 32 bytes, then frames of a 24-byte header and one page.
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  db.pragma(`journal_size_limit = ${Math.min(Number.MAX_SAFE_INTEGER, 32 + restartAboveFrames * (24 + pageSize))}`);
  let running = true;
  const giveBack = () => {
    if (!running) return;
    running = false;
    if (db.open) db.pragma(`wal_autocheckpoint = ${fallback}`);
  };
  const restartWaitMs = Math.max(0, Math.floor(options.restartWaitMs ?? 200));
  // Asked by the worker when the WAL is past `restartAboveFrames`; runs between two transactions of the connection.
  const restart = () => {
    if (!running || !db.open) return;
    if (db.inTransaction) {
      setTimeout(restart, 1).unref();
      return;
    }
    if (options.deferRestart?.()) {
      setTimeout(restart, 50).unref();
      return;
    }
    const busyTimeout = db.pragma('busy_timeout', { simple: true }) as number;
    try {
      db.pragma(`busy_timeout = ${restartWaitMs}`);
      db.pragma('wal_checkpoint(RESTART)');
    } catch (err) {
      options.onError?.(`WAL checkpoint (RESTART) of ${file} failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      db.pragma(`busy_timeout = ${busyTimeout}`);
      worker.postMessage('restarted');
    }
  };
  worker.on('message', (message: { error?: string; restart?: number }) => {
    if (message.error) options.onError?.(`background WAL checkpoint of ${file} failed: ${message.error}`);
    if (message.restart !== undefined) restart();
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
