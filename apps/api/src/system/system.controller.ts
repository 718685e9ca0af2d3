import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { EVENT_STORE, type EventStore } from '@svc/event-store';
import { LEDGER, LedgerErrorCode, type Ledger, type LedgerHealth } from '@svc/ledger';
import { READ_STORE, type ProjectionFault, type ProjectionRunner, type ReadStore } from '@svc/read-store';
import { eventLogFaultRecord, INFRA_OPTIONS, NetworkService, Processors, PROJECTION_RUNNER, RunnerHeartbeat, type NetworkInfo, type ProcessorFault, type RunnerView } from '@svc/application';
import { EventLogCheck } from './event-log-check.service';
import { OpenApiDocument } from './openapi.document';
import { HealthResponse, NetworkResponse, ReadyResponse } from './system.responses';

/** Service and network endpoints (spec §4.1). */
@ApiTags('service')
@Controller()
export class SystemController {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(LEDGER) private readonly ledger: Ledger,
    @Inject(PROJECTION_RUNNER) private readonly projections: ProjectionRunner,
    private readonly network: NetworkService,
    private readonly openApi: OpenApiDocument,
    private readonly processors: Processors,
    private readonly logCheck: EventLogCheck,
    private readonly heartbeat: RunnerHeartbeat,
    @Inject(INFRA_OPTIONS) private readonly options: { runProjections: boolean },
  ) {}

  /** Liveness: the process answers. Body `{status: "ok"}`. */
  @Get('health')
  @ApiOkResponse({ type: HealthResponse })
  health(): HealthResponse {
    return { status: 'ok' };
  }

  /**
   * Readiness: the event store, the read store and the ledger answer, no stored event was refused by a read or by
   * the check of the whole log made at start-up, and no projection or processor has stopped on a bad stored event
   * or a persistently failing handler. 200 with every component `up`, otherwise 503 with the same body naming the
   * component that is `down`; `eventLogFaults`, `projectionFaults` and `processorFaults` list each refused event or
   * stopped component with the stream, log position (decimal string) and reason; `eventLogCheck` says how far the
   * start-up check went; `runner` names the process running the projections and processors: `self`, or in an API
   * replica (`RUN_PROJECTIONS=false`) that process as its heartbeat shows it (`up`, `stale`, `absent`, or
   * `rebuilding` while `svc rebuild-projections` holds the lease: projections and processors are `down` unless `up`, and its faults are listed with this process's); `ledgerProblem` says why the
   * ledger is `down` (`{code, message}`: a ledger error code such as `Unavailable` or `Timeout`, and the failure in
   * words, never the endpoint's URL), null while it is up. docs/api.md "Service endpoints".
   */
  @Get('ready')
  @HttpCode(200)
  @ApiOkResponse({ type: ReadyResponse, description: 'Every component `up`' })
  @ApiResponse({ status: 503, type: ReadyResponse, description: 'A component is `down`' })
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    // Each answer within 3 seconds, or taken as failed (a hanging store must not hang the probe).
    const within = <T>(p: Promise<T>, failed: T) => Promise.race([p.catch(() => failed), new Promise<T>((r) => setTimeout(() => r(failed), 3_000).unref())]);
    const check = (p: Promise<boolean>) => within(p, false);
    const noLedgerAnswer: LedgerHealth = { up: false, code: LedgerErrorCode.Timeout, message: 'the ledger did not answer within 3 s' };
    const [eventStore, readStore, ledgerHealth, remote] = await Promise.all([
      check(this.eventStore.ping()),
      check(this.readStore.ping()),
      within(this.ledger.health(), noLedgerAnswer),
      this.options.runProjections ? undefined : within<RunnerView | undefined>(this.heartbeat.read(), undefined),
    ]);
    const projectionFaults: ProjectionFault[] = [...this.projections.faults(), ...(remote?.projectionFaults ?? [])];
    const processorFaults: ProcessorFault[] = [...this.processors.faults(), ...(remote?.processorFaults ?? [])];
    // A rebuild holding the lease is no runner: the read models are being rewritten and no processor runs.
    const runnerUp = this.options.runProjections || (remote?.state === 'up' && remote.role !== 'rebuild');
    const projections = runnerUp && projectionFaults.length === 0;
    const processors = runnerUp && processorFaults.length === 0;
    const eventLogFaults = this.logCheck.faults().map(eventLogFaultRecord);
    for (const f of remote?.eventLogFaults ?? []) {
      if (!eventLogFaults.some((g) => g.eventId === f.eventId && g.reason === f.reason)) eventLogFaults.push(f);
    }
    const eventLog = eventLogFaults.length === 0 && !this.logCheck.unreadable();
    const ledger = ledgerHealth.up;
    const ok = eventStore && eventLog && readStore && ledger && projections && processors;
    if (!ok) void reply.status(503);
    const state = (b: boolean) => (b ? 'up' : 'down');
    return {
      status: ok ? 'ready' : 'not_ready',
      components: { eventStore: state(eventStore), eventLog: state(eventLog), readStore: state(readStore), ledger: state(ledger), projections: state(projections), processors: state(processors) },
      eventLogCheck: this.logCheck.status(),
      eventLogFaults,
      projectionFaults,
      processorFaults,
      ledgerProblem: ledgerHealth.up ? null : { code: ledgerHealth.code, message: ledgerHealth.message },
      runner: this.runner(remote),
    };
  }

  private runner(remote: RunnerView | undefined) {
    // No host name: readiness is public, and the pid with the beat's age is enough to tell the worker by.
    if (this.options.runProjections) return { state: 'self', pid: process.pid, beatAt: null, ageSeconds: null };
    if (!remote) return { state: 'absent', pid: null, beatAt: null, ageSeconds: null };
    const state = remote.state === 'up' && remote.role === 'rebuild' ? 'rebuilding' : remote.state;
    return { state, pid: remote.pid, beatAt: remote.beatAt, ageSeconds: remote.ageSeconds };
  }

  /** Network info (spec §2.1). */
  @Get('v1/network')
  @ApiOkResponse({ type: NetworkResponse })
  networkInfo(): NetworkInfo {
    return this.network.network;
  }

  /** The OpenAPI 3 description of this API (version 1.0.0). */
  @Get('v1/openapi.json')
  @ApiOkResponse({ description: 'This document: an OpenAPI 3.0 description of the API', schema: { type: 'object', required: ['openapi', 'info', 'paths'] } })
  openapi(): ReturnType<OpenApiDocument['get']> {
    return this.openApi.get();
  }
}
