/**
 * The events this process appended most recently, kept in memory in log order so that its live subscriptions
 * read them without a query per subscription and wake-up (docs/architecture.md "Events on disk"). They are the
 * events as written (validated on append and decoded as a read would serve them). Only a subscription that was
 * already running when an event was committed gets it from here (it reads it moments later); a subscription that
 * starts afterwards, a gap left by another process's appends, or events beyond the window are read from the file
 * as before, with their hash and schema checks. Served events are shared between subscribers: handlers must not
 * modify them.
 */
import type { StoredEvent } from './event-store.port';

/** Events kept; older ones are read from the file. */
const CAPACITY = 8192;

export class RecentEvents {
  private events: StoredEvent[] = [];
  /** Commit number of each kept event (same index as `events`). */
  private commits: number[] = [];
  private commitCount = 0;

  /** Number of the last commit seen; a subscription starting now is served only events of later commits. */
  get lastCommit(): number {
    return this.commitCount;
  }

  /** Adds the events of one commit (consecutive positions); a gap since the last ones restarts the window. */
  add(committed: readonly StoredEvent[]): void {
    this.commitCount += 1;
    if (committed.length === 0) return;
    const last = this.events[this.events.length - 1];
    if (last && committed[0]!.position !== last.position + 1n) this.clear();
    for (const e of committed) {
      this.events.push(e);
      this.commits.push(this.commitCount);
    }
    if (this.events.length > CAPACITY) {
      this.events = this.events.slice(this.events.length - CAPACITY / 2);
      this.commits = this.commits.slice(this.commits.length - CAPACITY / 2);
    }
  }

  /** Forgets every event (the file is the only source again). */
  clear(): void {
    this.events = [];
    this.commits = [];
  }

  /**
   * Up to `max` events after `after` of the given types, when the window holds every event from `after` to the
   * log's `head`, all committed after commit number `since` (the reader's start); otherwise null (read the file).
   */
  page(after: bigint, max: number, types: ReadonlySet<string> | undefined, head: bigint, since: number): StoredEvent[] | null {
    const first = this.events[0];
    const last = this.events[this.events.length - 1];
    if (!first || !last || last.position !== head || after < first.position - 1n) return null;
    const start = Number(after - first.position + 1n);
    if (start < this.events.length && this.commits[start]! <= since) return null;
    const out: StoredEvent[] = [];
    for (let i = start; i < this.events.length && out.length < max; i++) {
      const e = this.events[i]!;
      if (!types || types.has(e.type)) out.push(e);
    }
    return out;
  }
}
