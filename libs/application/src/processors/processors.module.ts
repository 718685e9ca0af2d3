import { Module } from '@nestjs/common';
import { SharedModule } from '../shared/shared.module';
import { DeliverWebhookWhenDue } from './deliver-webhook-when-due.processor';
import { ScheduleWebhookDeliveriesWhenRecorded } from './schedule-webhook-deliveries-when-recorded.processor';
import { WebhookClient } from '../webhooks/webhook-client';
import { AppendAuditEntryWhenRecorded } from './audit/append-audit-entry-when-recorded.processor';
import { AuditAnchors } from './audit/audit-anchors';
import { SendAuditAnchorWhenRequested } from './audit/send-audit-anchor-when-requested.processor';
import { FinalityWatcher } from './finality-watcher';
import { Processors } from './processors.service';
import { AnchorBatchWhenClosed } from './anchor-batch-when-closed.processor';
import { BatchAcceptanceWhenSubmitted } from './batch-acceptance-when-submitted.processor';
import { RecordFinalityWhenRelayed } from './record-finality-when-relayed.processor';
import { RelayAcceptanceWhenSubmitted } from './relay-acceptance-when-submitted.processor';
import { RunnerHeartbeat } from './runner-heartbeat';

/**
 * Every reaction of the service (docs/architecture.md "Processors"). Imported by the API (embedded default)
 * and by the worker; processors run only where `RUN_PROJECTIONS` is on.
 */
@Module({
  imports: [SharedModule],
  providers: [
    RelayAcceptanceWhenSubmitted,
    BatchAcceptanceWhenSubmitted,
    AnchorBatchWhenClosed,
    RecordFinalityWhenRelayed,
    FinalityWatcher,
    AppendAuditEntryWhenRecorded,
    SendAuditAnchorWhenRequested,
    AuditAnchors,
    ScheduleWebhookDeliveriesWhenRecorded,
    DeliverWebhookWhenDue,
    WebhookClient,
    Processors,
    RunnerHeartbeat,
  ],
  exports: [Processors, AuditAnchors, RunnerHeartbeat],
})
export class ProcessorsModule {}
