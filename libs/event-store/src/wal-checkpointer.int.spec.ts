import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { startWalCheckpointer } from './wal-checkpointer';

const until = async (check: () => boolean, timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('startWalCheckpointer: WAL checkpoints from a worker thread', () => {
  let dir: string;
  let file: string;
  let db: Database.Database;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-wal-'));
    file = path.join(dir, 'data.sqlite');
    db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  });
  afterEach(() => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const write = (rows: number) => {
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    for (let i = 0; i < rows; i++) insert.run('x'.repeat(1000));
  };

  it('copies committed pages into the database file while the connection itself never checkpoints', async () => {
    const checkpointer = startWalCheckpointer(db, file, { intervalMs: 20 });
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const before = statSync(file).size;
    write(2_000);
    // The rows reach the database file (not only the WAL) without a checkpoint on this connection.
    await until(() => statSync(file).size > before + 1_000_000);
    await checkpointer.stop();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 2_000 });
  });

  it('without it, a connection whose automatic checkpoints are off leaves the rows in the WAL', async () => {
    db.pragma('wal_autocheckpoint = 0');
    const before = statSync(file).size;
    write(2_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(statSync(file).size).toBe(before);
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(1_000_000);
  });

  /**
   * Commits 10-row transactions back to back for `ms`, letting the event loop run every 50 of them (as a rebuild does
   * between pages); returns the largest WAL file seen and the bytes written.
   */
  const writeWithoutPause = async (ms: number) => {
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    const tx = db.transaction(() => {
      for (let i = 0; i < 10; i++) insert.run('x'.repeat(1000));
    });
    let largestWal = 0;
    let written = 0;
    for (const end = Date.now() + ms; Date.now() < end; ) {
      for (let i = 0; i < 50; i++) {
        tx();
        written += 10_000;
      }
      largestWal = Math.max(largestWal, statSync(`${file}-wal`).size);
      await new Promise((r) => setImmediate(r));
    }
    return { largestWal, written };
  };

  it('keeps the WAL bounded under commits that leave passive checkpoints no pause to catch up', async () => {
    const checkpointer = startWalCheckpointer(db, file, { intervalMs: 10, restartAboveFrames: 256 });
    const { largestWal, written } = await writeWithoutPause(1_500);
    await checkpointer.stop();
    expect(written).toBeGreaterThan(20_000_000);
    // The WAL is emptied whenever it passes 256 frames (1 MiB of 4 KiB pages) and the connection next yields; how far
    // past that it gets depends on the disk's sync time, but it stays a fraction of what was written.
    expect(largestWal).toBeLessThan(written / 2);
    expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: written / 1000 });
  });

  it('starts a WAL past the bound over in place: the next commit overwrites it from the start, cut back to the bound', async () => {
    const checkpointer = startWalCheckpointer(db, file, { intervalMs: 10, restartAboveFrames: 256 });
    const limit = 32 + 256 * (24 + 4096);
    expect(db.pragma('journal_size_limit', { simple: true })).toBe(limit);
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    const tx = db.transaction(() => {
      for (let i = 0; i < 5_000; i++) insert.run('x'.repeat(1000));
    });
    tx(); // about 1,250 pages of 4 KiB in one commit: about five times the bound
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(3 * limit);
    // The worker's pass sees the WAL past the bound and the connection runs the RESTART checkpoint on its event loop.
    await new Promise((r) => setTimeout(r, 300));
    write(1);
    const size = statSync(`${file}-wal`).size;
    expect(size).toBeGreaterThan(0);
    expect(size).toBeLessThanOrEqual(limit);
    await checkpointer.stop();
    expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 5_001 });
  });

  it('without the bound, the same commits grow the WAL well past what a checkpoint leaves', async () => {
    const checkpointer = startWalCheckpointer(db, file, { intervalMs: 10, restartAboveFrames: Number.MAX_SAFE_INTEGER });
    const { largestWal, written } = await writeWithoutPause(1_500);
    await checkpointer.stop();
    expect(written).toBeGreaterThan(20_000_000);
    // Each commit appends its pages and the WAL never starts over: the file outgrows everything written.
    expect(largestWal).toBeGreaterThan(written);
  });

  it('gives the connection its automatic checkpoints back, and says why, when the worker cannot run', async () => {
    const errors: string[] = [];
    startWalCheckpointer(db, path.join(dir, 'missing.sqlite'), { fallbackAutocheckpoint: 777, onError: (m) => errors.push(m) });
    await until(() => errors.length > 0);
    expect(errors[0]).toMatch(/background WAL checkpoints of .*missing\.sqlite stopped/);
    await until(() => db.pragma('wal_autocheckpoint', { simple: true }) === 777);
  });
});
