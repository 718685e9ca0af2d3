import type { EventStore } from '@svc/event-store';
import type { Checkpoint, ReadStore } from './read-store.port';

/**
 * The stored checkpoints (projections' and processors') that name a log position beyond the event log's head, with
 * that head. Every checkpoint is a position of the log (an applied event, or a head read from the log), so one
 * beyond the head means the log lost events after it had served them: its tail was cut, or it was restored from a
 * copy older than the read store (docs/architecture.md "Events on disk"). The hash chain cannot see such a loss (no
 * link breaks), the checkpoints can.
 */
export async function checkpointsBeyondHead(eventStore: Pick<EventStore, 'headPosition'>, readStore: Pick<ReadStore, 'listCheckpoints'>): Promise<{ head: bigint; beyond: Checkpoint[] }> {
  const [head, checkpoints] = await Promise.all([eventStore.headPosition(), readStore.listCheckpoints()]);
  return { head, beyond: checkpoints.filter((c) => c.position > head) };
}

/**
 * Refusal to run projections and processors over a log that ends before their checkpoints: they would skip the
 * events appended at the positions the lost ones held (an acceptance answered `confirmed` would never be shown, a
 * submission never relayed), and the read models would go on serving what the log no longer holds.
 */
export class EventLogBehindCheckpointsError extends Error {
  override readonly name = 'EventLogBehindCheckpointsError';

  constructor(
    readonly head: bigint,
    readonly beyond: readonly Checkpoint[],
  ) {
    const listed = beyond.map((c) => `${c.projection} at ${c.position}`).join(', ');
    super(
      `the event log ends at position ${head}, but checkpoints name later positions (${listed}): the log lost events it had ` +
        'already served (its tail was removed, or it was restored from a copy older than the read store). Restore the log ' +
        'that goes with this read store, or rebuild the read models from the log as it is with `svc rebuild-projections` ' +
        '(which also moves the processors back to the head)',
    );
  }
}
