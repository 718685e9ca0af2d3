import { Injectable } from '@nestjs/common';
import { acceptanceDecider, type EventOf } from '@svc/domain';
import { reactionContext } from '../infrastructure/command-context';
import { Decisions } from '../shared/decisions.service';
import type { StoredDomainEvent } from '../shared/stored-events';
import { faultPoint } from './fault-points';
import { FinalityWatcher } from './finality-watcher';
import type { Processor } from './processor';

type Relayed = EventOf<'AcceptanceRelayed'>;

/**
 * Records `AcceptanceFinalized` once the ledger finalizes a relayed acceptance's transaction (spec §3: the
 * commitment moves from `confirmed` to `finalized`). Waits are long (about 32 slots), so the window is wide; the
 * checkpoint stays below the oldest unfinalized acceptance, and a restart waits for those again.
 */
@Injectable()
export class RecordFinalityWhenRelayed implements Processor<Relayed> {
  readonly name = 'record-finality';
  readonly eventTypes = ['AcceptanceRelayed'] as const satisfies readonly Relayed['type'][];
  readonly concurrency = 100_000;

  constructor(
    private readonly decisions: Decisions,
    private readonly finality: FinalityWatcher,
  ) {}

  key(event: StoredDomainEvent<Relayed>): string {
    return event.streamId;
  }

  stop(): void {
    this.finality.close();
  }

  async handle(event: StoredDomainEvent<Relayed>): Promise<void> {
    const { acceptanceId, transactionSignature, commitment } = event.data;
    if (commitment === 'finalized') return;
    // On a replay (after a restart, or on a log written elsewhere) most acceptances are finalized already: no wait.
    const { state } = await this.decisions.load(event.streamId, acceptanceDecider, { cached: true });
    if (state.finalized || state.relayed?.transactionSignature !== transactionSignature) return;
    const slot = await this.finality.finalized(transactionSignature, event.data.slot);
    faultPoint('finality:before-record');
    await this.decisions.handle(
      event.streamId,
      acceptanceDecider,
      { kind: 'RecordFinalized', finalized: { acceptanceId, transactionSignature, slot } },
      reactionContext(event, 'service:finality'),
    );
  }
}
