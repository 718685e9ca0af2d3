/**
 * The shared replay of the projection runner (internal to the library): several projections reset to the start of
 * the log replay it from one read instead of one filtered subscription each (docs/architecture.md "Projections").
 */
import { timeSlices, type EventStore, type StoredEvent } from '@svc/event-store';
import type { ProjectionRunnerLogger } from './projection';
import { errMessage } from './projection-batches';
import { yieldToEventLoop } from './projection-polling';
import type { ProjectionState } from './projection-state';
import type { ReadStore } from './read-store.port';

export interface SharedReplayOptions {
  /** Events read from the log per page; each page is applied as one read-store transaction. */
  pageSize: number;
  /** Asked before each page: false ends the replay early (the runner is stopping). */
  proceed: () => boolean;
  logger?: ProjectionRunnerLogger;
}

/**
 * Replays the log from its start up to `head` (inclusive) into every projection of `states`, whose read models and
 * checkpoints must be empty. Each page of `pageSize` events is read once with `readAll` (every event checked
 * against its hash and chain) and applied by every projection to the events of its types, all of them inside one
 * read-store transaction when the store has `transaction` (SQLite) together with every projection's checkpoint,
 * which becomes the page's last position; without transactions each projection writes its events, then its
 * checkpoint.
 *
 * It never rejects. It stops at the first page it cannot read or apply (a stored event failing its integrity check, a
 * handler error), logs why, and leaves the rest to each projection's own subscription from its checkpoint, which
 * reports such an event or retries such a handler as it always does (only projections of that event's types stop).
 * @returns the position every projection has applied and checkpointed (`undefined` when no page was applied).
 */
export async function replayTogether(
  eventStore: EventStore,
  readStore: ReadStore,
  states: readonly ProjectionState[],
  head: bigint,
  options: SharedReplayOptions,
): Promise<bigint | undefined> {
  let applied: bigint | undefined;
  let after = -1n;
  while (after < head && options.proceed()) {
    let page: StoredEvent[];
    try {
      page = await eventStore.readAll({ after, maxCount: options.pageSize });
    } catch (err) {
      options.logger?.warn(`shared replay stopped after position ${String(after)}: ${errMessage(err)}; each projection continues on its own`);
      return applied;
    }
    const upTo = page.filter((e) => e.position <= head);
    if (upTo.length === 0) return applied;
    const last = upTo[upTo.length - 1]!.position;
    try {
      await applyPage(readStore, states, upTo, last);
    } catch (err) {
      // A handler failed: logged as the runner logs every failed batch; the projection's own subscription retries it.
      options.logger?.error(`shared replay stopped after position ${String(after)}: ${errMessage(err)}; each projection continues on its own`, err);
      return applied;
    }
    for (const s of states) s.markApplied(last);
    applied = last;
    after = last;
    await yieldToEventLoop(); // a replay inside the service lets HTTP requests through between pages
  }
  return applied;
}

/** One page: each projection's events of the page, then its checkpoint; all in one transaction when the store has them. */
async function applyPage(readStore: ReadStore, states: readonly ProjectionState[], page: readonly StoredEvent[], last: bigint): Promise<void> {
  const run = async (store: ReadStore) => {
    const slice = timeSlices(); // at most SLICE_MS of handlers before HTTP requests get a turn
    for (const s of states) {
      const scoped = s.storeFor(store);
      for (const event of page) {
        if (!s.types.has(event.type)) continue;
        await slice();
        await s.projection.handle(event, scoped);
      }
      await store.saveCheckpoint(s.key, last);
    }
  };
  if (readStore.transaction) await readStore.transaction(run);
  else await run(readStore);
}
