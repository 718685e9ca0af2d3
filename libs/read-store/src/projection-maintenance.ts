/**
 * Maintenance steps of the projection runner (internal to the library): ensuring a projection's
 * indexes, building them after a rebuild's replay, and recording a projection stopped by a bad event.
 */
import type { EventIntegrityError } from '@svc/event-store';
import type { ProjectionRunnerLogger } from './projection';
import { errMessage } from './projection-batches';
import type { ProjectionState } from './projection-state';
import type { ReadStore } from './read-store.port';

/** Ensures every index the projection declares (idempotent), a collection's indexes together. @throws the read store's error. */
export async function ensureIndexes(readStore: ReadStore, s: ProjectionState): Promise<void> {
  for (const [collection, specs] of Object.entries(s.projection.indexes)) await readStore.collection(collection).ensureIndexes(specs);
}

/**
 * Readies a projection's collections for a replay that its indexes will follow (`Collection.prepareIndexes`, where
 * the store has it). @throws the read store's error.
 */
export async function prepareIndexes(readStore: ReadStore, s: ProjectionState): Promise<void> {
  for (const [collection, specs] of Object.entries(s.projection.indexes)) await readStore.collection(collection).prepareIndexes?.(specs);
}

/**
 * After a rebuild: waits until the replay has applied the log up to `head`, then ensures the indexes.
 * Gives up when the projection is stopped or rebuilt again (the next start ensures them); a failed build
 * is logged and reported as a fault. Never rejects.
 */
export async function indexWhenCaughtUp(readStore: ReadStore, s: ProjectionState, generation: number, head: bigint, logger?: ProjectionRunnerLogger): Promise<void> {
  const sub = s.sub;
  if (!sub || !(await sub.caughtUpTo(head).then(() => true, () => false))) return;
  const target = s.delivered;
  while (generation === s.generation && target !== undefined && (s.applied === undefined || s.applied < target)) await s.whenApplied(target);
  if (generation !== s.generation) return;
  try {
    await ensureIndexes(readStore, s);
  } catch (err) {
    s.handlerFault = { projection: s.key, streamId: '', position: String(head), reason: `index build failed: ${errMessage(err)}` };
    logger?.error(`projection ${s.key}: building its indexes after the rebuild failed: ${errMessage(err)}`, err);
  }
}

/** Records that the subscription of `s` stopped on a bad stored event, and says so loudly. */
export function recordIntegrityFault(s: ProjectionState, generation: number, err: EventIntegrityError, logger?: ProjectionRunnerLogger): void {
  if (generation !== s.generation) return;
  s.fault = { projection: s.key, streamId: err.streamId, position: String(err.position), reason: `${err.reason}: ${err.detail}` };
  logger?.error(
    `projection ${s.key} stopped: the stored event at position ${String(err.position)} (stream ${err.streamId}) ` +
      `failed its integrity check (${err.reason}: ${err.detail}); nothing from it on is applied until the log ` +
      'is repaired and the projection restarted',
    err,
  );
  s.notify();
}
