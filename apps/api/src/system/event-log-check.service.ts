import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { EVENT_STORE, type EventIntegrityError, type EventStore } from '@svc/event-store';

/** How far the check of the whole event log made at start-up went (`GET /ready`, docs/api.md "Service endpoints"). */
export interface EventLogCheckStatus {
  /**
   * `off`: not configured or not offered by the store; `running`; `passed`: every event good; `failed`: one event or
   * more failed their check (see the faults; the check goes on past each); `error`: the log could not be read through (a damaged database page, an I/O
   * error; the reason is in `error` and the service's log).
   */
  state: 'off' | 'running' | 'passed' | 'failed' | 'error';
  /** Events checked and found good so far. */
  checked: number;
  /** Position of the last good event checked, decimal (`-1`: none yet). */
  through: string;
  /** With `error`: why the log could not be read. */
  error?: string;
}

/**
 * Checks every stored event of the log once after start-up (`CHECK_EVENT_LOG_ON_START`, default true), off the
 * event loop where the store can (SQLite: a worker thread using at most a quarter of one core), while the service
 * serves: an event edited, removed or
 * inserted where no projection or command reads any more is reported by readiness at every start, not only by a
 * rebuild (libs/event-store/README.md "Tamper evidence"). Faults met by any read are reported as well.
 */
@Injectable()
export class EventLogCheck implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('EventLogCheck');
  private current: EventLogCheckStatus = { state: 'off', checked: 0, through: '-1' };
  private readonly stop = new AbortController();
  private running: Promise<void> = Promise.resolve();

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.checkEventLogOnStart || !this.eventStore.checkLog) return;
    this.current = { state: 'running', checked: 0, through: '-1' };
    const started = performance.now();
    this.running = this.eventStore
      .checkLog({
        signal: this.stop.signal,
        onProgress: (checked, through) => {
          this.current = { state: 'running', checked, through: through.toString() };
        },
      })
      .then(
        ({ checked, through, faults }) => {
          this.current = { state: faults.length > 0 ? 'failed' : 'passed', checked, through: through.toString() };
          const seconds = ((performance.now() - started) / 1000).toFixed(1);
          if (faults.length === 0) this.logger.log(`event log checked: ${checked} events through position ${through} in ${seconds} s, every one good`);
          else {
            this.logger.error(`event log check failed (${seconds} s): ${faults.length} bad event${faults.length === 1 ? '' : 's'}, ${checked} good`);
            for (const fault of faults) this.logger.error(`event log check: ${fault.message}`);
          }
        },
        (err: unknown) => {
          if (this.stop.signal.aborted) return; // stopped at shutdown: no verdict
          const error = err instanceof Error ? err.message : String(err);
          this.current = { ...this.current, state: 'error', error };
          this.logger.error(`event log check could not read the log through (position ${this.current.through} was the last good one): ${error}`);
        },
      );
  }

  /** Stops a check still running (its thread and its connection end with it). */
  async beforeApplicationShutdown(): Promise<void> {
    this.stop.abort(new Error('the service is stopping'));
    await this.running;
  }

  /** The check's progress. */
  status(): EventLogCheckStatus {
    return this.current;
  }

  /** Whether the check ended without reading the log through (readiness reports the event log down). */
  unreadable(): boolean {
    return this.current.state === 'error';
  }

  /** Stored events refused by any read of this process or by the check (oldest first). */
  faults(): readonly EventIntegrityError[] {
    return this.eventStore.integrityFaults?.() ?? [];
  }
}
