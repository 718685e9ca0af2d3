import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Clock } from '@svc/application';
import { loadConfig } from '@svc/config';
import { createApp } from '../../apps/api/src/bootstrap';
import { freePort } from '../../apps/cli/src/service-process';
import { OpenApiDocument } from '../../apps/api/src/system/openapi.document';
import { ResponseChecker } from './openapi-responses';

/** A real service (HTTP on loopback, embedded event store, read store and ledger) for end-to-end tests. */
export interface TestService {
  app: NestFastifyApplication;
  baseUrl: string;
  rpcUrl: string;
  dataDir: string;
  /** Every answer that broke the OpenAPI description (also reported by `stop`); empty when the check is off. */
  responseViolations: string[];
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
 * routes a test needs (the HTTP server accepts new routes until it listens). Every answer is checked against the
 * served OpenAPI description (test/support/openapi-responses.ts) and `stop` fails listing the answers that broke it,
 * unless the suite turns the check off with its reason (`checkResponses: {off: why}`).
 */
export async function startTestService(
  options: {
    dataDir?: string;
    port?: number;
    env?: Record<string, string>;
    clock?: Clock;
    beforeListen?: (app: NestFastifyApplication) => void;
    /** On unless a suite says why its answers cannot be checked (`{off: reason}`). */
    checkResponses?: true | { off: string };
  } = {},
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
  const checker = options.checkResponses === undefined || options.checkResponses === true ? new ResponseChecker(app.get(OpenApiDocument).get() as never) : undefined;
  checker?.install(app.getHttpAdapter().getInstance() as never);
  await app.listen({ port, host: '127.0.0.1' });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await app.close();
    if (checker && checker.violations.length > 0) {
      throw new Error(`answers that break the OpenAPI description:\n${checker.violations.join('\n')}`);
    }
  };
  return {
    app,
    baseUrl,
    rpcUrl: `${baseUrl}/rpc`,
    dataDir,
    responseViolations: checker?.violations ?? [],
    stop,
    destroy: async () => {
      try {
        await stop();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
