/**
 * The application core shared by the API and the worker (docs/architecture.md "Layers"): infrastructure wiring
 * of the ports, the decision runner, cross-stream fact readers, and the processors that react to the log.
 */
export * from './infrastructure/clock';
export * from './infrastructure/command-context';
export * from './infrastructure/infrastructure.module';
export * from './infrastructure/key-files';
export * from './infrastructure/startup';
export * from './infrastructure/network.service';
export * from './infrastructure/tokens';
export * from './shared/acceptance-relay.service';
export * from './shared/decisions.service';
export * from './shared/event-log.service';
export * from './shared/ledger-history.service';
export * from './shared/organization-facts.service';
export * from './shared/quota-turns';
export * from './shared/relay-outcomes';
export * from './shared/secrets';
export * from './shared/shared.module';
export * from './shared/stored-events';
export * from './webhooks/public-address';
export * from './webhooks/webhook-secrets';
export * from './webhooks/webhook-signature';
export { ProcessorsModule } from './processors/processors.module';
export { Processors } from './processors/processors.service';
export { RunnerHeartbeat, RUNNER_HEARTBEAT_COLLECTION, eventLogFaultRecord, type RunnerView, type RunnerHeartbeatDoc, type EventLogFaultRecord } from './processors/runner-heartbeat';
export { describeHolder, leaseHolderOf, RUNNER_HEARTBEAT_ID, RunnerLease, RunnerLeaseHeldError, type RunnerLeaseFields, type RunnerLeaseHolder, type RunnerLeaseRole } from './infrastructure/runner-lease';
export { faultPoint, type FaultPoint } from './processors/fault-points';
export type { Processor } from './processors/processor';
export type { ProcessorFault } from './processors/processor-runner';
