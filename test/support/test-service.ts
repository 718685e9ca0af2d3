import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Clock } from '@svc/application';
import { loadConfig } from '@svc/config';
import { createApp } from '../../apps/api/src/bootstrap';
import { freePort } from '../../apps/cli/src/service-process';

/** A real service (HTTP on loopback, embedded event store, read store and ledger) for end-to-end tests. */
export interface TestService {
  app: NestFastifyApplication;
  baseUrl: string;
  rpcUrl: string;
  dataDir: string;
  /** Stops the service; the data directory stays (for restarts). */
  stop(): Promise<void>;
  /** Stops the service and deletes its data directory. */
  destroy(): Promise<void>;
}

export function tempDataDir(prefix = 'svc-e2e-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/**
 * Starts the service in this process on a free port, with `env` overriding the defaults. `beforeListen` may add
 * routes a test needs (the HTTP server accepts new routes until it listens).
 */
export async function startTestService(
  options: { dataDir?: string; port?: number; env?: Record<string, string>; clock?: Clock; beforeListen?: (app: NestFastifyApplication) => void } = {},
): Promise<TestService> {
  const dataDir = options.dataDir ?? tempDataDir();
  const port = options.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    LOG_LEVEL: 'warn',
    LEDGER_SLOT_MS: '100',
    ...options.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: baseUrl,
  });
  const app = await createApp(config, { clock: options.clock });
  options.beforeListen?.(app);
  await app.listen({ port, host: '127.0.0.1' });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await app.close();
  };
  return {
    app,
    baseUrl,
    rpcUrl: `${baseUrl}/rpc`,
    dataDir,
    stop,
    destroy: async () => {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
