/**
 * Group commit for the SQLite event store: the appends requested during one turn of the event loop are written in
 * one SQLite transaction (one commit, one WAL sync point), each inside its own savepoint, so a refused append (a
 * wrong expected revision, a duplicate id) rolls back alone and the others are committed. Every caller still gets
 * its own result or error, and an append is answered only after the transaction holding it committed.
 */
import type Database from 'better-sqlite3';
import type { AppendResult } from './event-store.port';

interface Pending<T> {
  request: T;
  resolve: (result: AppendResult) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: AppendResult } | { err: unknown };

export class AppendBatcher<T> {
  private queue: Pending<T>[] = [];
  private scheduled = false;
  private readonly writeAll: { immediate(requests: readonly T[]): Outcome[] };

  /**
   * @param write appends one request inside the current transaction (throws to refuse it).
   * @param settled called after each batch: `true` once it committed, `false` when the transaction failed.
   */
  constructor(
    db: Database.Database,
    write: (request: T) => AppendResult,
    private readonly settled: (committed: boolean) => void,
  ) {
    // Called inside the outer transaction, a transaction function runs in a savepoint (better-sqlite3).
    const one = db.transaction(write);
    this.writeAll = db.transaction((requests: readonly T[]): Outcome[] =>
      requests.map((request) => {
        try {
          return { ok: one(request) };
        } catch (err) {
          return { err };
        }
      }),
    );
  }

  /** Queues an append for the next batch; resolves once it is committed. */
  submit(request: T): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  /** Writes everything queued now (also called before the store closes). */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    let outcomes: Outcome[];
    try {
      outcomes = this.writeAll.immediate(batch.map((p) => p.request));
    } catch (err) {
      this.settled(false);
      for (const p of batch) p.reject(err);
      return;
    }
    this.settled(true);
    outcomes.forEach((outcome, i) => ('ok' in outcome ? batch[i]!.resolve(outcome.ok) : batch[i]!.reject(outcome.err)));
  }
}
