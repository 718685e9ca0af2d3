/**
 * Helpers of `ProjectionRunner.waitFor` (internal to the library): the answer without waiting of a
 * subscription, and interruptible pauses.
 */
import type { Subscription } from '@svc/event-store';

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

/**
 * Longest a projection applies events without letting the rest of the process run (milliseconds). A page or a
 * batch of up to 1,000 events is applied as one chain of promises (inside one read-store transaction with SQLite,
 * whose other writers wait for it anyway), so without a bound HTTP requests waited for whole pages during a
 * catch-up. The event store's subscriptions deliver in the same slices (libs/event-store, `DELIVERY_SLICE_MS`).
 */
export const APPLY_SLICE_MS = 5;

/**
 * A clock of {@link APPLY_SLICE_MS} slices started now: call it between two events; it returns a promise of the
 * next turn of the event loop once the slice is used up, and undefined before that.
 */
export function applySlices(sliceMs = APPLY_SLICE_MS): () => Promise<void> | undefined {
  let started = performance.now();
  return () => {
    if (performance.now() - started <= sliceMs) return undefined;
    return yieldToEventLoop().then(() => {
      started = performance.now();
    });
  };
}
