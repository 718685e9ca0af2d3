/**
 * Helpers of `ProjectionRunner.waitFor` (internal to the library): the answer without waiting of a
 * subscription, and the log scan of a process that does not run the projections itself.
 */
import type { EventStore, Subscription } from '@svc/event-store';

/** Whether `sub` has already handled everything up to `position` (answers without waiting). */
export async function isCaughtUpNow(sub: Subscription, position: bigint): Promise<boolean> {
  let reached = false;
  const probe = sub.caughtUpTo(position).then(
    () => {
      reached = true;
    },
    () => undefined,
  );
  await Promise.race([probe, new Promise<void>((resolve) => setImmediate(resolve))]);
  return reached;
}

/**
 * Whether the log holds no event of `types` in (after, upTo]; scans at most 2 000 events (answers
 * false beyond, so the caller keeps polling the checkpoint).
 */
export async function noEventOfTypes(
  eventStore: EventStore,
  types: ReadonlySet<string>,
  after: bigint | undefined,
  upTo: bigint,
): Promise<boolean> {
  const pageSize = 500;
  let cursor = after;
  for (let scanned = 0; scanned < 2_000; scanned += pageSize) {
    const page = await eventStore.readAll({ after: cursor, maxCount: pageSize });
    for (const event of page) {
      if (event.position > upTo) return true;
      if (types.has(event.type)) return false;
    }
    if (page.length < pageSize) return true; // reached the head (an event <= upTo not yet visible counts as absent)
    cursor = page[page.length - 1]!.position;
  }
  return false;
}

/** Resolves after `ms` milliseconds, or earlier when `interrupt` settles. */
export async function interruptibleSleep(ms: number, interrupt: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), interrupt]);
  clearTimeout(timer);
}

/** Lets the event loop run pending I/O (HTTP requests) between two batches of a long catch-up. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
