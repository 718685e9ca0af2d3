import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { DomainEvent } from '@svc/domain';
import { EVENT_STORE, type EventStore } from '@svc/event-store';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { INFRA_OPTIONS } from '../infrastructure/tokens';
import { AppendAuditEntryWhenRecorded } from './audit/append-audit-entry-when-recorded.processor';
import { SendAuditAnchorWhenRequested } from './audit/send-audit-anchor-when-requested.processor';
import type { Processor } from './processor';
import { ProcessorRunner, type ProcessorFault } from './processor-runner';
import { RecordFinalityWhenRelayed } from './record-finality-when-relayed.processor';
import { RelayAcceptanceWhenSubmitted } from './relay-acceptance-when-submitted.processor';
import { AnchorBatchWhenClosed } from './anchor-batch-when-closed.processor';
import { BatchAcceptanceWhenSubmitted } from './batch-acceptance-when-submitted.processor';
import { DeliverWebhookWhenDue } from './deliver-webhook-when-due.processor';
import { ScheduleWebhookDeliveriesWhenRecorded } from './schedule-webhook-deliveries-when-recorded.processor';

/**
 * Starts every processor from its checkpoint once the application is up (in processes that run reactions:
 * the embedded default, or the worker), and stops them at shutdown with their checkpoints saved.
 */
@Injectable()
export class Processors implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Processors');
  private readonly runners: Pick<ProcessorRunner<DomainEvent>, 'name' | 'start' | 'stop' | 'failure' | 'caughtUpTo'>[];

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(READ_STORE) readStore: ReadStore,
    @Inject(INFRA_OPTIONS) private readonly options: { runProjections: boolean },
    relay: RelayAcceptanceWhenSubmitted,
    finality: RecordFinalityWhenRelayed,
    auditLog: AppendAuditEntryWhenRecorded,
    auditAnchor: SendAuditAnchorWhenRequested,
    scheduleWebhooks: ScheduleWebhookDeliveriesWhenRecorded,
    deliverWebhooks: DeliverWebhookWhenDue,
    batcher: BatchAcceptanceWhenSubmitted,
    anchorBatch: AnchorBatchWhenClosed,
  ) {
    const run = <E extends DomainEvent>(processor: Processor<E>) => new ProcessorRunner(processor, store, readStore);
    this.runners = [run(relay), run(finality), run(auditLog), run(auditAnchor), run(scheduleWebhooks), run(deliverWebhooks), run(batcher), run(anchorBatch)];
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.options.runProjections) return;
    await Promise.all(this.runners.map((r) => r.start()));
    this.logger.log(`running ${this.runners.map((r) => r.name).join(', ')}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop()));
  }

  /** Processors stopped on an unreadable stored event (readiness reports them). */
  faults(): ProcessorFault[] {
    return this.runners.flatMap((r) => (r.failure ? [r.failure] : []));
  }

  /** Resolves once every processor has handled the log up to `position` (tests, tools). */
  async caughtUpTo(position: bigint): Promise<void> {
    await Promise.all(this.runners.map((r) => r.caughtUpTo(position)));
  }
}
