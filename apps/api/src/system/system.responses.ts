import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ADDR } from '@svc/http';
import { LedgerErrorCode } from '@svc/ledger';

/** `{status: "ok"}` */
export class HealthResponse {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
}

/** The state of each dependency of readiness. */
export class ReadyComponentsView {
  @ApiProperty({ enum: ['up', 'down'] }) eventStore!: string;
  @ApiProperty({ enum: ['up', 'down'], description: 'down: a stored event failed its hash, chain or schema check (see eventLogFaults)' }) eventLog!: string;
  @ApiProperty({ enum: ['up', 'down'] }) readStore!: string;
  @ApiProperty({ enum: ['up', 'down'] }) ledger!: string;
  @ApiProperty({ enum: ['up', 'down'], description: 'down: a projection stopped on an event' }) projections!: string;
  @ApiProperty({ enum: ['up', 'down'], description: 'down: a processor stopped on an event' }) processors!: string;
}

/** A stored event refused by a read or by the start-up check of the log (libs/event-store/README.md "Tamper evidence"). */
export class EventLogFaultView {
  @ApiProperty({ type: String }) streamId!: string;
  @ApiProperty({ type: String, pattern: '^-?[0-9]+$', description: 'Global log position, decimal (-1: unknown)' }) position!: string;
  @ApiProperty({ type: String, pattern: '^-?[0-9]+$', description: 'Revision in its stream, decimal' }) revision!: string;
  @ApiProperty({ type: String }) eventId!: string;
  @ApiProperty({ enum: ['hash_mismatch', 'broken_link', 'schema'] }) reason!: string;
  @ApiProperty({ type: String }) detail!: string;
}

/** How far the check of the whole log made at start-up went. */
export class EventLogCheckView {
  @ApiProperty({
    enum: ['off', 'running', 'passed', 'failed', 'error'],
    description: 'failed: an event failed its check (eventLogFaults); error: the log could not be read through (damaged file, I/O error), see `error`',
  })
  state!: string;
  @ApiProperty({ type: Number, description: 'Events checked and found good' }) checked!: number;
  @ApiProperty({ type: String, pattern: '^-?[0-9]+$', description: 'Position of the last good event checked, decimal (-1: none)' }) through!: string;
  @ApiPropertyOptional({ type: String, description: 'With state error: why the log could not be read' }) error?: string;
}

/** A projection stopped on a stored event it cannot apply. */
export class ProjectionFaultView {
  @ApiProperty({ type: String, example: 'acceptances.v1' }) projection!: string;
  @ApiProperty({ type: String }) streamId!: string;
  @ApiProperty({ type: String, pattern: '^-?[0-9]+$', description: 'Global log position, decimal (-1: unknown)' }) position!: string;
  @ApiProperty({ type: String }) reason!: string;
}

/** A processor stopped on an event it keeps failing to handle. */
export class ProcessorFaultView {
  @ApiProperty({ type: String }) processor!: string;
  @ApiProperty({ type: String }) streamId!: string;
  @ApiProperty({ type: String, pattern: '^-?[0-9]+$', description: 'Global log position, decimal' }) position!: string;
  @ApiProperty({ type: String }) reason!: string;
}

/** The process that runs the projections and processors, as readiness sees it. */
export class ReadyRunnerView {
  @ApiProperty({
    enum: ['self', 'up', 'stale', 'absent', 'rebuilding'],
    description:
      'self: this process runs the projections and processors; otherwise (an API replica) that process as its heartbeat in the read store shows it: up (a beat within three intervals and a second), stale (older), absent (none: no process runs them, or it stopped), rebuilding (svc rebuild-projections holds the lease and is rewriting the read models: projections and processors are down)',
  })
  state!: string;
  @ApiProperty({ type: Number, nullable: true }) pid!: number | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Time of the last heartbeat (null for self or absent)' }) beatAt!: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Seconds since the last heartbeat' }) ageSeconds!: number | null;
}

/** Why the ledger is `down`. */
export class LedgerProblemView {
  @ApiProperty({
    enum: Object.values(LedgerErrorCode),
    description:
      'A ledger error code (libs/ledger/README.md "Errors"); in practice Unavailable (the endpoint cannot be reached, refused the call with an HTTP status, or says it is unhealthy), Timeout (no answer within 3 s) or RpcError (another JSON-RPC error)',
  })
  code!: string;
  @ApiProperty({ type: String, description: "The failure in words (the node's own message where it gave one); never the endpoint's URL", example: 'Node is unhealthy; behind by 42 slots' })
  message!: string;
}

/** Readiness: the same body with 200 (`ready`) and 503 (`not_ready`). */
export class ReadyResponse {
  @ApiProperty({ enum: ['ready', 'not_ready'] }) status!: string;
  @ApiProperty({ type: ReadyComponentsView }) components!: ReadyComponentsView;
  @ApiProperty({ type: EventLogCheckView }) eventLogCheck!: EventLogCheckView;
  @ApiProperty({ type: [EventLogFaultView] }) eventLogFaults!: EventLogFaultView[];
  @ApiProperty({ type: [ProjectionFaultView] }) projectionFaults!: ProjectionFaultView[];
  @ApiProperty({ type: [ProcessorFaultView] }) processorFaults!: ProcessorFaultView[];
  @ApiProperty({ type: LedgerProblemView, nullable: true, description: 'Why the ledger is down; null while it is up' }) ledgerProblem!: LedgerProblemView | null;
  @ApiProperty({ type: ReadyRunnerView }) runner!: ReadyRunnerView;
}

/** The ledger network the service records on (spec §2.1). */
export class NetworkResponse {
  @ApiProperty({ type: String, example: 'devnet' }) cluster!: string;
  @ApiProperty({ type: String, pattern: '^solana:[1-9A-HJ-NP-Za-km-z]{32}$', description: 'CAIP-2: `solana:` + the first 32 characters of the genesis hash' }) chainId!: string;
  @ApiProperty({ type: String }) label!: string;
  @ApiProperty({ type: String, description: 'Wallet Standard chain for wallet discovery: solana:mainnet, solana:devnet, solana:testnet, or solana:localnet for any other ledger (docs/api.md "Service endpoints")' }) walletChain!: string;
  @ApiProperty({ type: String, pattern: ADDR.source, description: 'The program carrying the records (Memo v2)' }) programId!: string;
  @ApiProperty({ type: String, pattern: ADDR.source, description: 'Fee payer of relayed acceptances' }) relayer!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) attestor!: string;
  @ApiProperty({ type: String }) hostedAcceptDomain!: string;
  @ApiProperty({ type: [String], description: 'JSON-RPC endpoints of the ledger' }) publicRpcUrls!: string[];
  @ApiProperty({ type: String, format: 'uri', description: 'Base of the public content routes, ending in /v1/public/content/' }) contentMirror!: string;
}
