/**
 * An API replica (`RUN_PROJECTIONS=false`) reports whether a process runs the projections and processors on its
 * stores (README "Production topology"; docs/api.md "Service endpoints"): not ready while none does, ready once a
 * worker beats, not ready again when the worker is killed (its beats stop) or stops (it removes its beat).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { RunnerLease } from '@svc/application';
import { SqliteReadStore } from '@svc/read-store';
import { projectRoot } from '../apps/cli/src/paths';
import { freePort } from '../apps/cli/src/service-process';
import { startTestService, tempDataDir, type TestService } from './support/test-service';

const workerMain = path.join(projectRoot(), 'dist', 'apps', 'worker', 'src', 'main.js');
const built = existsSync(workerMain);

interface ReadyBody {
  status: string;
  components: Record<string, string>;
  runner: { state: string; pid: number | null; beatAt: string | null; ageSeconds: number | null };
}

async function ready(service: TestService): Promise<{ status: number; body: ReadyBody }> {
  const res = await fetch(`${service.baseUrl}/api/ready`);
  return { status: res.status, body: (await res.json()) as ReadyBody };
}

/** Polls `/api/ready` until `accept` holds (at most `seconds`); returns that answer or fails naming the last one. */
async function readyUntil(service: TestService, accept: (r: { status: number; body: ReadyBody }) => boolean, seconds = 20) {
  const until = Date.now() + seconds * 1000;
  let last = await ready(service);
  while (!accept(last)) {
    if (Date.now() > until) throw new Error(`readiness never matched; last answer ${last.status} ${JSON.stringify(last.body)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await ready(service);
  }
  return last;
}

function startWorker(dataDir: string, rpcUrl: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [workerMain], {
      env: { ...process.env, DATA_DIR: dataDir, LEDGER_RPC_URL: rpcUrl, LOG_LEVEL: 'warn', RUNNER_HEARTBEAT_MS: '200' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('worker running')) resolve(child);
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`worker exited with ${code}: ${stderr}`)));
  });
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

(built ? describe : describe.skip)(`readiness of an API replica${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  let dataDir: string;
  let replica: TestService;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    dataDir = tempDataDir('svc-heartbeat-');
    // The replica owns the embedded ledger; the worker reaches it through /rpc.
    replica = await startTestService({ dataDir, env: { RUN_PROJECTIONS: 'false', RUNNER_HEARTBEAT_MS: '200', RATE_LIMIT_RPC_CALLS_PER_MINUTE: '100000' } });
  }, 30_000);

  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await replica?.destroy();
  });

  it('is not ready while no process runs the projections and processors, and says so', async () => {
    const { status, body } = await ready(replica);
    expect(status).toBe(503);
    expect(body.status).toBe('not_ready');
    expect(body.components).toMatchObject({ eventStore: 'up', readStore: 'up', ledger: 'up', projections: 'down', processors: 'down' });
    expect(body.runner).toEqual({ state: 'absent', pid: null, beatAt: null, ageSeconds: null });
  });

  it('is ready while a worker beats, naming it', async () => {
    const worker = await startWorker(dataDir, replica.rpcUrl);
    workers.push(worker);
    const { body } = await readyUntil(replica, (r) => r.status === 200);
    expect(body.components).toMatchObject({ projections: 'up', processors: 'up' });
    expect(body.runner.state).toBe('up');
    expect(body.runner.pid).toBe(worker.pid);
    expect(body.runner.ageSeconds).toBeLessThan(1.6);
  }, 30_000);

  it('is not ready once the killed worker has missed three beats', async () => {
    const worker = workers[workers.length - 1]!;
    worker.kill('SIGKILL');
    await exited(worker);
    const killedAt = Date.now();
    const { body } = await readyUntil(replica, (r) => r.status === 503);
    // Three intervals of 200 ms and a second of margin, from the last beat (before the kill).
    expect(Date.now() - killedAt).toBeLessThan(2_000 + 1_000);
    expect(body.components).toMatchObject({ projections: 'down', processors: 'down' });
    expect(body.runner.state).toBe('stale');
    expect(body.runner.pid).toBe(worker.pid);
    expect(body.runner.ageSeconds).toBeGreaterThanOrEqual(1.6);
  }, 30_000);

  it('is not ready at once when the worker stops cleanly (it removes its beat and its claim)', async () => {
    const worker = await startWorker(dataDir, replica.rpcUrl);
    workers.push(worker);
    await readyUntil(replica, (r) => r.status === 200 && r.body.runner.pid === worker.pid);
    worker.kill('SIGTERM');
    await exited(worker);
    const { status, body } = await ready(replica);
    expect(status).toBe(503);
    expect(body.runner.state).toBe('absent');
    // Its claim on the data directory went with it (offline tools and the next worker need not wait for a sweep).
    expect(existsSync(path.join(dataDir, 'processes', String(worker.pid)))).toBe(false);
    expect(worker.signalCode).toBe('SIGTERM');
  }, 30_000);

  it('is not ready while a rebuild on another host holds the lease, and says it is rebuilding', async () => {
    // What `svc rebuild-projections` writes while it runs, from a host sharing the stores (a connection of its own).
    const ops = new SqliteReadStore({ file: path.join(dataDir, 'read.sqlite') });
    const rebuild = new RunnerLease(ops, 200, { host: 'ops-host', pid: 4242, role: 'rebuild' });
    try {
      await rebuild.claim();
      const { status, body } = await readyUntil(replica, (r) => r.body.runner.state !== 'absent');
      expect(status).toBe(503);
      expect(body.components).toMatchObject({ projections: 'down', processors: 'down' });
      expect(body.runner).toMatchObject({ state: 'rebuilding', pid: 4242 });
      // Nor may a worker start meanwhile: it waits once for the holder's beat, which keeps coming, then is refused.
      const worker = await startWorker(dataDir, replica.rpcUrl).then(
        (w) => {
          workers.push(w);
          return 'started';
        },
        (err: Error) => err.message,
      );
      expect(worker).toMatch(/svc rebuild-projections \(pid 4242 on host ops-host\) is rebuilding the read models on these stores, its last beat [\d.]+ s ago: start this process once it has finished/);
    } finally {
      await rebuild.release();
      await ops.close();
    }
    expect((await ready(replica)).body.runner.state).toBe('absent');
  }, 30_000);

  it('a worker started before the ledger owner says so in one line and exits 2', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}/rpc`;
    const child = spawn(process.execPath, [workerMain], { env: { ...process.env, DATA_DIR: tempDataDir('svc-early-worker-'), LEDGER_RPC_URL: nobody, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([expect.stringMatching(/^worker start-up failed: ledger RPC unreachable: .*: start the process that owns the ledger first, or check LEDGER_RPC_URL$/)]);
  }, 30_000);
});
