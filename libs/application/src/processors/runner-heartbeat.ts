import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { EVENT_STORE, type EventIntegrityError, type EventIntegrityReason, type EventStore } from '@svc/event-store';
import { READ_STORE, type ProjectionFault, type ProjectionRunner, type ReadStore } from '@svc/read-store';
import { beatIsFresh, leaseHolderOf, RUNNER_HEARTBEAT_COLLECTION, RUNNER_HEARTBEAT_ID, type RunnerLease, type RunnerLeaseFields, type RunnerLeaseRole } from '../infrastructure/runner-lease';
import { INFRA_OPTIONS, PROJECTION_RUNNER, RUNNER_LEASE } from '../infrastructure/tokens';
import type { ProcessorFault } from './processor-runner';
import { Processors } from './processors.service';

export { RUNNER_HEARTBEAT_COLLECTION } from '../infrastructure/runner-lease';

/** A stored event refused on read by the runner's event store (as `/api/ready` lists it: docs/api.md "Service endpoints"). */
export interface EventLogFaultRecord {
  streamId: string;
  /** Global log position, decimal. */
  position: string;
  /** Revision in its stream, decimal. */
  revision: string;
  eventId: string;
  reason: EventIntegrityReason;
  detail: string;
}

/** The fields readiness lists of a refused stored event (positions and revisions as decimal strings). */
export function eventLogFaultRecord(f: EventIntegrityError): EventLogFaultRecord {
  return { streamId: f.streamId, position: f.position.toString(), revision: f.revision.toString(), eventId: f.eventId, reason: f.reason, detail: f.detail };
}

/** What the process running the projections and processors says of itself, every `intervalMs` (its lease's fields and its reports). */
export interface RunnerHeartbeatDoc extends RunnerLeaseFields {
  projectionFaults: ProjectionFault[];
  processorFaults: ProcessorFault[];
  eventLogFaults: EventLogFaultRecord[];
  [key: string]: unknown;
}

/** How a process that does not run them sees the runner (`/api/ready` of an API replica). */
export interface RunnerView {
  /** `up`: a beat came within three intervals and a second; `stale`: the last beat is older; `absent`: none stored. */
  state: 'up' | 'stale' | 'absent';
  /** What the holder does: `runner` (a service or worker running them) or `rebuild` (`svc rebuild-projections`); null when absent. */
  role: RunnerLeaseRole | null;
  pid: number | null;
  host: string | null;
  beatAt: string | null;
  /** Seconds since the last beat (null when none). */
  ageSeconds: number | null;
  projectionFaults: ProjectionFault[];
  processorFaults: ProcessorFault[];
  eventLogFaults: EventLogFaultRecord[];
}

/**
 * The heartbeat of the process that runs the projections and processors (the embedded default's API, or the worker
 * of the split topology; README "Production topology"). That process writes one document to the shared read store
 * every `RUNNER_HEARTBEAT_MS` (default 5,000 ms) with the faults that stopped any of its projections or processors
 * and the stored events its reads refused, and removes it when it stops cleanly. An API replica
 * (`RUN_PROJECTIONS=false`) reads it for `/api/ready`: with no beat within three intervals and a second, or with a
 * fault in it, the replica reports `projections` and `processors` down, since its reads go stale and its direct
 * acceptances wait for a relay that no process runs.
 *
 * Beats are compared with the reader's wall clock: hosts whose clocks differ by more than the margin (a second beyond
 * three intervals) see a live runner as stale.
 */
@Injectable()
export class RunnerHeartbeat implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('RunnerHeartbeat');
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly startedAt = new Date().toISOString();
  private warned = false;

  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(PROJECTION_RUNNER) private readonly projections: ProjectionRunner,
    @Inject(INFRA_OPTIONS) private readonly options: { runProjections: boolean },
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RUNNER_LEASE) private readonly lease: RunnerLease,
    private readonly processors: Processors,
  ) {}

  /** Writes the first beat, then one every interval (the timer does not keep the process alive). */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.options.runProjections) return;
    await this.beat();
    this.timer = setInterval(() => void this.beat(), this.config.runnerHeartbeatMs);
    this.timer.unref();
  }

  /**
   * Stops beating with reports. The lease keeps being renewed, and is released (the document removed, so replicas
   * see at once that no runner is left) only once the projections and processors have stopped (InfrastructureModule).
   */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.writing;
  }

  /**
   * The runner as the shared read store shows it, judged against this process's clock.
   * @throws Error when the read store cannot be read (readiness reports the read store down then).
   */
  async read(now: number = Date.now()): Promise<RunnerView> {
    const doc = await this.collection().findOne({ _id: RUNNER_HEARTBEAT_ID });
    if (!doc) return { state: 'absent', role: null, pid: null, host: null, beatAt: null, ageSeconds: null, projectionFaults: [], processorFaults: [], eventLogFaults: [] };
    const ageMs = Math.max(0, now - Date.parse(doc.beatAt));
    return {
      state: beatIsFresh(doc, now) ? 'up' : 'stale',
      role: leaseHolderOf(doc).role,
      pid: doc.pid,
      host: doc.host,
      beatAt: doc.beatAt,
      ageSeconds: Math.round(ageMs / 100) / 10,
      projectionFaults: doc.projectionFaults ?? [],
      processorFaults: doc.processorFaults ?? [],
      eventLogFaults: doc.eventLogFaults ?? [],
    };
  }

  private beat(): Promise<void> {
    this.writing = this.writing.then(async () => {
      const report = {
        startedAt: this.startedAt,
        projectionFaults: this.projections.faults(),
        processorFaults: this.processors.faults(),
        eventLogFaults: (this.eventStore.integrityFaults?.() ?? []).map(eventLogFaultRecord),
      };
      try {
        // A lost lease stops the process (InfrastructureModule); nothing more to write then.
        if (await this.lease.renew(report)) this.warned = false;
      } catch (err) {
        // Logged once per run of failures: the next beat retries.
        if (!this.warned) this.logger.warn(`writing the heartbeat failed: ${(err as Error).message}`);
        this.warned = true;
      }
    });
    return this.writing;
  }

  private collection() {
    return this.readStore.collection<RunnerHeartbeatDoc>(RUNNER_HEARTBEAT_COLLECTION);
  }
}
