import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '@svc/event-store';
import { ProjectionLagError, type ProjectionRunner } from '@svc/read-store';
import { PROJECTION_RUNNER } from '../infrastructure/tokens';

/**
 * Read-your-writes for command handlers: waits until the projections have applied what a command appended
 * (stream reads and appends go through `Decisions`).
 */
@Injectable()
export class EventLog {
  private readonly logger = new Logger('EventLog');

  constructor(
    @Inject(PROJECTION_RUNNER) private readonly projections: ProjectionRunner,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  /**
   * Resolves once every projection has applied the log up to `position` (a global log position; negative: no-op).
   * The write itself is already durable, so a projection that lags beyond the runner's bound is logged rather than
   * turned into an error for a caller whose command succeeded.
   */
  async settled(position: bigint): Promise<void> {
    if (position < 0n) return;
    try {
      await this.projections.waitFor(position);
    } catch (err) {
      if (!(err instanceof ProjectionLagError)) throw err;
      this.logger.warn(`read models lag behind position ${position}: ${err.message}`);
    }
  }

  /**
   * Resolves once every projection has applied the log as it stands now. For a command decided as a no-op because
   * another caller recorded the same thing a moment ago: its events are in the log, perhaps not yet in the read
   * models the answer is read from.
   */
  async settledAtHead(): Promise<void> {
    await this.settled(await this.events.headPosition());
  }

  /**
   * What a command handler awaits before it reads its answer from a read model: the position of what its decision
   * appended, or, when the decision was a no-op (the thing was recorded already, perhaps a moment ago by a concurrent
   * request), the log's head, so that the answer shows that record and not the state before it.
   */
  async settledAfter(appended: { position: bigint } | null | undefined): Promise<void> {
    if (appended) await this.settled(appended.position);
    else await this.settledAtHead();
  }
}
