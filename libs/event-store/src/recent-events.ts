/**
 * The events this process appended most recently, kept in memory in log order so that its live subscriptions
 * read them without a query per subscription and wake-up (docs/architecture.md "Events on disk"). They are the
 * events as written (validated on append, current schema version); anything this window cannot answer for
 * certain (a gap left by another process's appends, events beyond it) is read from the file as before, with its
 * hash and schema checks. Served events are shared between subscribers: handlers must not modify them.
 */
import type { StoredEvent } from './event-store.port';

/** Events kept; older ones are read from the file. */
const CAPACITY = 8192;

export class RecentEvents {
  private events: StoredEvent[] = [];

  /** Adds committed events (consecutive positions); a gap since the last ones restarts the window. */
  add(committed: readonly StoredEvent[]): void {
    if (committed.length === 0) return;
    const last = this.events[this.events.length - 1];
    if (last && committed[0]!.position !== last.position + 1n) this.events = [];
    for (const e of committed) this.events.push(e);
    if (this.events.length > CAPACITY) this.events = this.events.slice(this.events.length - CAPACITY / 2);
  }

  /** Forgets every event (the file is the only source again). */
  clear(): void {
    this.events = [];
  }

  /**
   * Up to `max` events after `after` of the given types, when the window holds every event from `after` to the
   * log's `head`; otherwise null (read from the file).
   */
  page(after: bigint, max: number, types: ReadonlySet<string> | undefined, head: bigint): StoredEvent[] | null {
    const first = this.events[0];
    const last = this.events[this.events.length - 1];
    if (!first || !last || last.position !== head || after < first.position - 1n) return null;
    const out: StoredEvent[] = [];
    for (let i = Number(after - first.position + 1n); i < this.events.length && out.length < max; i++) {
      const e = this.events[i]!;
      if (!types || types.has(e.type)) out.push(e);
    }
    return out;
  }
}
