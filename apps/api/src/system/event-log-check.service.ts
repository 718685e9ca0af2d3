import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { EVENT_STORE, type EventIntegrityError, type EventStore } from '@svc/event-store';

/** How far the check of the whole event log made at start-up went (`GET /ready`, docs/api.md "Service endpoints"). */
export interface EventLogCheckStatus {
  /** `off`: not configured or not offered by the store; `running`; `passed`: every event good; `failed`: see faults. */
  state: 'off' | 'running' | 'passed' | 'failed';
  /** Events checked and found good so far. */
  checked: number;
  /** Position of the last good event checked, decimal (`-1`: none yet). */
  through: string;
}

/**
 * Checks every stored event of the log once after start-up (`CHECK_EVENT_LOG_ON_START`, default true), off the
 * event loop where the store can (SQLite: a worker thread using at most a quarter of one core), while the service
 * serves: an event edited, removed or
 * inserted where no projection or command reads any more is reported by readiness at every start, not only by a
 * rebuild (libs/event-store/README.md "Tamper evidence"). Faults met by any read are reported as well.
 */
@Injectable()
export class EventLogCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('EventLogCheck');
  private current: EventLogCheckStatus = { state: 'off', checked: 0, through: '-1' };

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.checkEventLogOnStart || !this.eventStore.checkLog) return;
    this.current = { state: 'running', checked: 0, through: '-1' };
    const started = performance.now();
    this.eventStore
      .checkLog({
        onProgress: (checked, through) => {
          this.current = { state: 'running', checked, through: through.toString() };
        },
      })
      .then(
        ({ checked, through, fault }) => {
          this.current = { state: fault ? 'failed' : 'passed', checked, through: through.toString() };
          const seconds = ((performance.now() - started) / 1000).toFixed(1);
          if (fault) this.logger.error(`event log check failed after ${checked} good events (${seconds} s): ${fault.message}`);
          else this.logger.log(`event log checked: ${checked} events through position ${through} in ${seconds} s, every one good`);
        },
        (err: unknown) => {
          this.current = { ...this.current, state: 'off' };
          this.logger.warn(`event log check could not run: ${err instanceof Error ? err.message : String(err)}`);
        },
      );
  }

  /** The check's progress. */
  status(): EventLogCheckStatus {
    return this.current;
  }

  /** Stored events refused by any read of this process or by the check (oldest first). */
  faults(): readonly EventIntegrityError[] {
    return this.eventStore.integrityFaults?.() ?? [];
  }
}
