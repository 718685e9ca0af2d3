/**
 * Time slices for long chains of promises on the event loop (a catch-up page delivered, a projection batch applied):
 * a chain of promises runs to its end before any I/O callback, so HTTP requests waited for whole pages. Measured with
 * four processors catching up on 2.8 million events: public reads at 182/s (p99 1.9 s) without slices, 636/s
 * (p99 75 ms) with them (libs/event-store/README.md, "Subscriptions").
 */

/** Longest a chain runs before it lets the rest of the process run (milliseconds). */
export const SLICE_MS = 5;

/** Resolves on the next turn of the event loop, after pending I/O callbacks. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A clock of `sliceMs` slices started now: call it between two steps; it returns a promise of the next turn of the
 * event loop once the slice is used up (and starts a new slice then), undefined before that.
 */
export function timeSlices(sliceMs = SLICE_MS): () => Promise<void> | undefined {
  let started = performance.now();
  return () => {
    if (performance.now() - started <= sliceMs) return undefined;
    return nextTurn().then(() => {
      started = performance.now();
    });
  };
}
