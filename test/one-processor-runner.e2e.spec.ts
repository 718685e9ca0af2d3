/**
 * One process at a time runs the projections and processors on a data directory (README "Production topology"):
 * a worker started beside a service that runs them is refused at once with a one-line reason, before it acts on
 * any event (two would each deliver every webhook), and starts once that service has stopped.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { projectRoot } from '../apps/cli/src/paths';
import { startTestService, tempDataDir } from './support/test-service';

const workerMain = path.join(projectRoot(), 'dist', 'apps', 'worker', 'src', 'main.js');
const built = existsSync(workerMain);

/** Starts the worker; resolves with its exit code and output, or with `running` once it says it runs (then stops it). */
function runWorker(dataDir: string): Promise<{ code: number | null; stderr: string; running: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [workerMain], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let running = false;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      if (!running && chunk.toString().includes('worker running')) {
        running = true;
        child.kill('SIGTERM');
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr, running }));
  });
}

(built ? describe : describe.skip)(`one processor runner per data directory${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  it('refuses a worker beside a service running the processors, and starts it once the service stopped', async () => {
    const dataDir = tempDataDir('svc-one-runner-');
    const service = await startTestService({ dataDir });
    let refused: Awaited<ReturnType<typeof runWorker>>;
    try {
      refused = await runWorker(dataDir);
    } finally {
      await service.stop();
    }
    expect(refused.code).toBe(2);
    expect(refused.running).toBe(false);
    expect(refused.stderr.trim()).toBe(
      `another process (pid ${process.pid}) already runs the projections and processors on ${dataDir}: ` +
        'run one per data directory (an API with RUN_PROJECTIONS=true, or apps/worker), API replicas beside it with RUN_PROJECTIONS=false',
    );
    const alone = await runWorker(dataDir);
    expect(alone.running).toBe(true);
  });

  it('admits API replicas that do not run them beside it', async () => {
    const dataDir = tempDataDir('svc-one-runner-');
    const service = await startTestService({ dataDir });
    try {
      const replica = await startTestService({ dataDir, env: { RUN_PROJECTIONS: 'false', LEDGER_RPC_URL: service.rpcUrl } });
      await replica.destroy();
    } finally {
      await service.stop();
    }
  });
});
