/** Optimistic concurrency rules shared by the adapters (the port's `ExpectedRevision`). */
import type { ExpectedRevision } from './event-store.port';

/** Whether a stream whose last revision is `current` satisfies `expected`. */
export function expectationHolds(expected: ExpectedRevision, current: bigint | 'no_stream'): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === 'no_stream';
  if (expected === 'stream_exists') return current !== 'no_stream';
  return current === expected;
}

/** Whether an append made with `expected` could have stored its first event at `revision`. */
export function firstRevisionFits(expected: ExpectedRevision, revision: bigint): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return revision === 0n;
  if (expected === 'stream_exists') return revision > 0n;
  return revision === expected + 1n;
}
