/**
 * The shared replay of the projection runner (internal to the library): several projections reset to the start of
 * the log replay it from one read instead of one filtered subscription each (docs/architecture.md "Projections").
 */
import { EventIntegrityError, timeSlices, type EventStore, type StoredEvent } from '@svc/event-store';
import type { ProjectionRunnerLogger } from './projection';
import { errMessage } from './projection-batches';
import { yieldToEventLoop } from './projection-polling';
import type { ProjectionState } from './projection-state';
import type { ReadStore } from './read-store.port';

export interface SharedReplayOptions {
  /** Events read from the log per page. */
  pageSize: number;
  /** Events applied per read-store transaction (whole pages: a transaction ends after the page that reaches it). */
  commitEvents: number;
  /** Read the log on another thread ahead of the projections, when the event store can (`readAllAhead`). */
  readAhead?: boolean;
  /** Asked before each page: false ends the replay early (the runner is stopping). */
  proceed: () => boolean;
  logger?: ProjectionRunnerLogger;
}

/**
 * Replays the log from its start up to `head` (inclusive) into every projection of `states`, whose read models and
 * checkpoints must be empty. Each page of `pageSize` events is read once (every event checked against its hash and
 * chain), with `readAll`, or with `readAllAhead` on the store's reader thread when `readAhead` is set and the store
 * has one, and applied by every projection to the events of its types. Pages are applied in
 * read-store transactions of about `commitEvents` events when the store has `transaction` (SQLite), each ending
 * with every projection's checkpoint at its last position; without transactions each projection writes its events,
 * and the checkpoints follow each group of pages.
 *
 * It never rejects. It stops at the first page it cannot read (after committing the pages before it) or apply (the
 * transaction holding that page is rolled back), logs why, and leaves the rest to each projection's own subscription
 * from its checkpoint, which reports such an event or retries such a handler as it always does (only projections of
 * that event's types stop).
 * @returns the position every projection has applied and checkpointed (`undefined` when no page was applied).
 */
export async function replayTogether(
  eventStore: EventStore,
  readStore: ReadStore,
  states: readonly ProjectionState[],
  head: bigint,
  options: SharedReplayOptions,
): Promise<bigint | undefined> {
  const ahead = options.readAhead ? eventStore.readAllAhead?.({ after: -1n, upTo: head, pageSize: options.pageSize }) : null;
  const pages = ahead?.[Symbol.asyncIterator]();
  // The next page after `after`: from the reader ahead (whose pages follow each other as this loop takes them), or
  // read here.
  const nextPage = async (after: bigint): Promise<StoredEvent[]> => (pages ? ((await pages.next()).value ?? []) : eventStore.readAll({ after, maxCount: options.pageSize }));
  try {
    return await replayPages(readStore, states, head, options, nextPage);
  } finally {
    await pages?.return?.();
  }
}

async function replayPages(
  readStore: ReadStore,
  states: readonly ProjectionState[],
  head: bigint,
  options: SharedReplayOptions,
  nextPage: (after: bigint) => Promise<StoredEvent[]>,
): Promise<bigint | undefined> {
  let applied: bigint | undefined;
  let after = -1n;
  let ended = false;
  while (!ended && after < head && options.proceed()) {
    const from = after;
    // Pages from `from` until `commitEvents` events were read, the head is reached or a page cannot be read; then the
    // checkpoints. @returns the last position applied (undefined: nothing was).
    const group = async (store: ReadStore): Promise<bigint | undefined> => {
      let reached: bigint | undefined;
      let read = 0;
      while (read < options.commitEvents && (reached ?? from) < head && (read === 0 || options.proceed())) {
        let page: StoredEvent[];
        try {
          page = await nextPage(reached ?? from);
        } catch (err) {
          // The good events read with a bad one are applied before the replay ends (it then stops after them).
          const before = err instanceof EventIntegrityError ? err.checkedBefore?.filter((e) => e.position <= head) : undefined;
          if (before && before.length > 0) {
            await applyPage(store, states, before);
            reached = before[before.length - 1]!.position;
          }
          const at = reached ?? (from < 0n ? 'the start of the log' : `position ${String(from)}`);
          options.logger?.warn(`shared replay stopped after ${String(at)}: ${errMessage(err)}; each projection continues on its own`);
          ended = true;
          break;
        }
        const upTo = page.filter((e) => e.position <= head);
        if (upTo.length === 0) {
          ended = true;
          break;
        }
        await applyPage(store, states, upTo);
        reached = upTo[upTo.length - 1]!.position;
        read += page.length;
      }
      if (reached !== undefined) for (const s of states) await store.saveCheckpoint(s.key, reached);
      return reached;
    };
    let reached: bigint | undefined;
    try {
      reached = readStore.transaction ? await readStore.transaction(group) : await group(readStore);
    } catch (err) {
      // A handler failed: logged as the runner logs every failed batch; the projection's own subscription retries it.
      options.logger?.error(`shared replay stopped after position ${String(from)}: ${errMessage(err)}; each projection continues on its own`, err);
      return applied;
    }
    if (reached === undefined) return applied;
    for (const s of states) s.markApplied(reached);
    applied = reached;
    after = reached;
    await yieldToEventLoop(); // a replay inside the service lets HTTP requests through between transactions
  }
  return applied;
}

/** Each projection's events of one page (its checkpoint is saved by the caller). */
async function applyPage(store: ReadStore, states: readonly ProjectionState[], page: readonly StoredEvent[]): Promise<void> {
  const slice = timeSlices(); // at most SLICE_MS of handlers before HTTP requests get a turn
  for (const s of states) {
    const scoped = s.storeFor(store);
    for (const event of page) {
      if (!s.types.has(event.type)) continue;
      await slice();
      await s.projection.handle(event, scoped);
    }
  }
}
