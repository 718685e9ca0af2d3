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

