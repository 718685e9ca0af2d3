import type { AppConfig } from '@svc/config';
import type { EventStore } from '@svc/event-store';
import { EventLogCheck } from './event-log-check.service';

type CheckLog = NonNullable<EventStore['checkLog']>;

/** A store whose whole-log check is the given function (the rest of the port is not used by EventLogCheck). */
const storeWith = (checkLog: CheckLog) => ({ checkLog, integrityFaults: () => [] }) as unknown as EventStore;
const config = { checkEventLogOnStart: true } as AppConfig;
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('EventLogCheck (start-up check of the whole log)', () => {
  it('reports a log it could not read through as `error`, with the reason, and readiness as not passed', async () => {
    const check = new EventLogCheck(
      storeWith(async (options) => {
        options?.onProgress?.(1000, 999n);
        throw new Error('SQLITE_CORRUPT: database disk image is malformed');
      }),
      config,
    );
    check.onApplicationBootstrap();
    await settle();
    expect(check.status()).toEqual({ state: 'error', checked: 1000, through: '999', error: 'SQLITE_CORRUPT: database disk image is malformed' });
    expect(check.unreadable()).toBe(true);
  });

  it('stops a running check at shutdown without a verdict', async () => {
    let seen: AbortSignal | undefined;
    const check = new EventLogCheck(
      storeWith(
        (options) =>
          new Promise((_resolve, reject) => {
            seen = options?.signal;
            options?.signal?.addEventListener('abort', () => reject(options.signal!.reason));
          }),
      ),
      config,
    );
    check.onApplicationBootstrap();
    await check.beforeApplicationShutdown();
    expect(seen?.aborted).toBe(true);
    expect(check.status().state).toBe('running');
    expect(check.unreadable()).toBe(false);
  });
});
