/**
 * `svc rebuild-projections` against the data of a stopped service: read-model documents deleted or
 * corrupted behind the service's back (checkpoints untouched, so only a real rebuild can repair them)
 * come back exactly; a tampered stored event makes the rebuild fail loudly and `/api/ready` answer 503.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { generateKeyPairSigner } from '@solana/kit';
import { RUNNER_HEARTBEAT_COLLECTION, RUNNER_HEARTBEAT_ID, type RunnerLeaseFields } from '@svc/application';
import { currentPidSpace } from '@svc/config';
import { ALL_PROJECTIONS, COLLECTIONS } from '@svc/projections';
import { SqliteReadStore, type Doc } from '@svc/read-store';
import { ApiClient } from '../apps/cli/src/api-client';
import { acceptAsWallet } from '../apps/cli/src/operations';
import { cliMain, projectRoot } from '../apps/cli/src/paths';
import { eventually, publishedDocument } from './support/fixtures';
import { startTestService, tempDataDir } from './support/test-service';

/** The checkpoint key of the acceptances projection (`<name>.v<version>`), as faults name it. */
const ACCEPTANCES_KEY = `acceptances.v${ALL_PROJECTIONS.find((p) => p.name === 'acceptances')!.version}`;

const exec = promisify(execFile);
/** The compiled CLI (`npm run build`); SVC_CLI_MAIN may name another build of it. */
const cli = process.env['SVC_CLI_MAIN'] ?? cliMain();
const built = existsSync(cli);

/** Every document of every read model, sorted, straight from the read store file. */
async function readModels(dataDir: string): Promise<Record<string, Doc[]>> {
  const store = new SqliteReadStore({ file: path.join(dataDir, 'read.sqlite') });
  try {
    const out: Record<string, Doc[]> = {};
    for (const p of ALL_PROJECTIONS) for (const name of Object.keys(p.indexes)) out[name] = await store.collection(name).find({}, { sort: { _id: 1 } });
    return out;
  } finally {
    await store.close();
  }
}

/** A service's data directory with a published document and one acceptance; the service is stopped. */
async function stoppedServiceData() {
  const dataDir = tempDataDir();
  const service = await startTestService({ dataDir });
  const doc = await publishedDocument(service, [1, 2]);
  const client = new ApiClient(service.baseUrl);
  const accepted = await acceptAsWallet(client, await generateKeyPairSigner(), { organization: doc.organization.address, document: doc.document.address, origin: 'https://a.example' });
  const acceptanceBefore = await client.request('GET', `/v1/public/acceptances/${accepted.acceptanceId}`);
  const { chainId } = (await client.request('GET', '/v1/network')) as { chainId: string };
  const port = Number(new URL(service.baseUrl).port);
  await service.stop();
  return { dataDir, port, doc, accepted, acceptanceBefore, chainId };
}

(built ? describe : describe.skip)(`svc rebuild-projections${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  it('restores read-model documents deleted or corrupted behind the service, exactly as the log says', async () => {
    const { dataDir, port, accepted, acceptanceBefore } = await stoppedServiceData();
    const built = await readModels(dataDir);
    expect(built[COLLECTIONS.acceptances]).toHaveLength(1);

    const store = new SqliteReadStore({ file: path.join(dataDir, 'read.sqlite') });
    const checkpoints = await store.listCheckpoints();
    await store.collection(COLLECTIONS.acceptances).deleteMany({ _id: accepted.acceptanceId });
    await store.collection(COLLECTIONS.documents).updateMany({}, { $set: { title: 'corrupted', currentVersion: null } });
    await store.collection(COLLECTIONS.contents).deleteMany({});
    await store.collection(COLLECTIONS.versions).insertOne({ _id: 'stray-version' });
    await store.close();
    expect(await readModels(dataDir)).not.toEqual(built);

    const { stdout } = await exec(process.execPath, [cli, 'rebuild-projections', '--data-dir', dataDir, '--json'], { env: process.env });
    const rebuilt = (JSON.parse(stdout) as { rebuilt: { projection: string }[] }).rebuilt.map((r) => r.projection);
    // Every projection the service runs, in its order.
    expect(rebuilt).toEqual(ALL_PROJECTIONS.map((p) => p.name));
    expect(await readModels(dataDir)).toEqual(built);

    const after = new SqliteReadStore({ file: path.join(dataDir, 'read.sqlite') });
    expect((await after.listCheckpoints()).map((c) => [c.projection, c.position])).toEqual(checkpoints.map((c) => [c.projection, c.position]));
    await after.close();

    // The service serves the restored records.
    const second = await startTestService({ dataDir, port });
    try {
      const again = new ApiClient(second.baseUrl);
      const acceptanceAfter = await again.request<{ acceptance: { commitment: string } }>('GET', `/v1/public/acceptances/${accepted.acceptanceId}`);
      // Finality may be recorded once the service runs again; everything else is identical.
      const sameButCommitment = (v: { acceptance: { commitment: string } }) => ({ ...v, acceptance: { ...v.acceptance, commitment: 'x' } });
      expect(sameButCommitment(acceptanceAfter)).toEqual(sameButCommitment(acceptanceBefore as typeof acceptanceAfter));
    } finally {
      await second.destroy();
    }
  });

  it('a tampered stored event: the rebuild fails naming it, and /api/ready answers 503 naming the projection', async () => {
    const { dataDir, port, accepted } = await stoppedServiceData();
    const log = new Database(path.join(dataDir, 'events.sqlite'));
    const row = log.prepare("SELECT position, stream_id AS streamId, data FROM events WHERE type = 'AcceptanceSubmitted'").get() as { position: number; streamId: string; data: string };
    const data = JSON.parse(row.data) as Record<string, unknown>;
    log.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify({ ...data, requestDomain: 'evil.example' }), row.position);
    // A second one further on: the check of the whole log names it too.
    const last = log.prepare('SELECT position, metadata FROM events ORDER BY position DESC LIMIT 1').get() as { position: number; metadata: string };
    log.prepare('UPDATE events SET metadata = ? WHERE position = ?').run(JSON.stringify({ ...JSON.parse(last.metadata), actor: 'someone:else' }), last.position);
    log.close();
    expect(last.position).toBeGreaterThan(row.position);

    const rebuild = (...extra: string[]) =>
      exec(process.execPath, [cli, 'rebuild-projections', 'acceptances', '--data-dir', dataDir, '--json', ...extra], { env: process.env }).then(
        () => undefined,
        (err: { code?: number; stderr?: string; stdout?: string }) => err,
      );
    // By default the chain of the whole log is checked first, and nothing is reset when it fails.
    const before = await readModels(dataDir);
    const refused = await rebuild();
    expect(refused?.code).toBe(1);
    expect(refused?.stderr).toMatch(new RegExp(`fails its check, so no read model was touched: .*position ${row.position}\\) refused: hash_mismatch`));
    expect(refused?.stderr).toContain(`(and 1 more bad event after it, at positions ${last.position})`);
    expect(await readModels(dataDir)).toEqual(before);
    // Told to skip that check, the replay itself stops at the event.
    const failed = await rebuild('--skip-log-check');
    expect(failed?.code).not.toBe(0);
    expect(`${failed?.stderr ?? ''}${failed?.stdout ?? ''}`).toMatch(new RegExp(`${ACCEPTANCES_KEY.replace('.', '\\.')}.*position ${row.position}`));

    const service = await startTestService({ dataDir, port });
    try {
      const res = await fetch(`${service.baseUrl}/api/ready`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { status: string; components: Record<string, string>; projectionFaults: { projection: string; streamId: string; position: string; reason: string }[] };
      expect(body.status).toBe('not_ready');
      expect(body.components['projections']).toBe('down');
      expect(body.projectionFaults).toContainEqual({ projection: ACCEPTANCES_KEY, streamId: row.streamId, position: String(row.position), reason: expect.stringMatching(/hash/) });
      expect(accepted.acceptanceId).toBeTruthy();
    } finally {
      await service.destroy();
    }
  });

  it('a stored event removed from the middle of the log: the rebuild fails naming where, and readiness reports the log', async () => {
    const { dataDir, port, accepted } = await stoppedServiceData();
    const log = new Database(path.join(dataDir, 'events.sqlite'));
    const row = log.prepare("SELECT position FROM events WHERE type = 'AcceptanceSubmitted'").get() as { position: number };
    log.prepare('DELETE FROM events WHERE position = ?').run(row.position);
    log.close();

    const failed = await exec(process.execPath, [cli, 'rebuild-projections', '--data-dir', dataDir, '--skip-log-check'], { env: process.env }).then(
      () => undefined,
      (err: { code?: number; stderr?: string }) => err,
    );
    // Even without the check first, the replay's own read of the whole log meets the gap, and the command fails.
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(new RegExp(`position ${row.position + 1}\\b.*broken_link`));

    const service = await startTestService({ dataDir, port });
    try {
      const body = await eventually(async () => {
        const res = await fetch(`${service.baseUrl}/api/ready`);
        const ready = (await res.json()) as { components: Record<string, string>; eventLogCheck: { state: string }; eventLogFaults: { position: string; reason: string }[] };
        return res.status === 503 && ready.eventLogCheck.state === 'failed' ? ready : undefined;
      }, 20_000);
      expect(body.components['eventLog']).toBe('down');
      expect(body.eventLogFaults).toContainEqual(expect.objectContaining({ position: String(row.position + 1), reason: 'broken_link' }));
      expect(accepted.acceptanceId).toBeTruthy();
    } finally {
      await service.destroy();
    }
  });

  it('events removed from the tail of the log: the service refuses to start; a rebuild of every projection lets it serve what the log says and handle new events', async () => {
    const { dataDir, port, doc, accepted } = await stoppedServiceData();
    // The acceptance's events are the last ones of the log: removing them breaks no link, only the checkpoints know.
    const log = new Database(path.join(dataDir, 'events.sqlite'));
    const first = log.prepare("SELECT MIN(position) AS position FROM events WHERE type = 'AcceptanceChallengeIssued'").get() as { position: number };
    const removed = log.prepare('DELETE FROM events WHERE position >= ?').run(first.position).changes;
    const head = first.position - 1;
    log.close();
    expect(removed).toBeGreaterThanOrEqual(3);

    const refusal = /the event log ends at position (\d+), but checkpoints name later positions \((.+)\): the log lost events/;
    const startError = await startTestService({ dataDir, port }).then(
      (service) => service.destroy().then(() => 'started'),
      (err: Error) => err.message,
    );
    expect(startError).toMatch(refusal);
    const [, named, listed] = refusal.exec(startError)!;
    expect(Number(named)).toBe(head);
    // The projection that showed the acceptance and the processor that relayed it are among those named.
    expect(listed).toContain(ACCEPTANCES_KEY);
    expect(listed).toContain('processor.relay');
    // An API replica that does not run them is refused too: the writes it took would land at the lost positions and
    // carry the head past the checkpoints, and the runner would then start and skip them.
    const replicaError = await startTestService({ dataDir, port, env: { RUN_PROJECTIONS: 'false' } }).then(
      (service) => service.destroy().then(() => 'started'),
      (err: Error) => err.message,
    );
    expect(replicaError).toMatch(refusal);
    expect(Number(refusal.exec(replicaError)![1])).toBe(head);

    // Only some projections rebuilt would leave the others serving what the log lost: refused, nothing touched.
    const before = await readModels(dataDir);
    const partial = await exec(process.execPath, [cli, 'rebuild-projections', 'acceptances', '--data-dir', dataDir], { env: process.env }).then(
      () => undefined,
      (err: { code?: number; stderr?: string }) => err,
    );
    expect(partial?.code).toBe(1);
    expect(partial?.stderr).toMatch(/every projection must be rebuilt/);
    expect(await readModels(dataDir)).toEqual(before);

    await exec(process.execPath, [cli, 'rebuild-projections', '--data-dir', dataDir], { env: process.env });
    const checkpoints = new SqliteReadStore({ file: path.join(dataDir, 'read.sqlite') });
    expect((await checkpoints.listCheckpoints()).filter((c) => c.position > head)).toEqual([]);
    await checkpoints.close();

    const service = await startTestService({ dataDir, port });
    try {
      expect((await fetch(`${service.baseUrl}/api/ready`)).status).toBe(200);
      const client = new ApiClient(service.baseUrl);
      // The log is the truth: the acceptance it lost is not served.
      expect((await fetch(`${service.baseUrl}/api/v1/public/acceptances/${accepted.acceptanceId}`)).status).toBe(404);
      // A new acceptance, appended at the positions the lost events held, is relayed and shown.
      const again = await acceptAsWallet(client, await generateKeyPairSigner(), { organization: doc.organization.address, document: doc.document.address, origin: 'https://a.example' });
      expect(again.status).toBe('confirmed');
      const shown = await client.request<{ acceptance: { transactionSignature: string } }>('GET', `/v1/public/acceptances/${again.acceptanceId}`);
      expect(shown.acceptance.transactionSignature).toBe(again.transactionSignature);
    } finally {
      await service.destroy();
    }
  });

  it('refuses to rebuild beside a running service, and rebuilds once it has stopped', async () => {
    const dataDir = tempDataDir();
    const service = await startTestService({ dataDir });
    const rebuild = () =>
      exec(process.execPath, [cli, 'rebuild-projections', 'organizations', '--data-dir', dataDir], { env: process.env }).then(
        () => ({ code: 0, stderr: '' }),
        (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
      );
    try {
      const refused = await rebuild();
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`the service is running on ${dataDir} (pid ${process.pid}): stop it first`);
      expect((await fetch(`${service.baseUrl}/api/ready`)).status).toBe(200);
    } finally {
      await service.stop();
    }
    expect((await rebuild()).code).toBe(0);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a service is refused while an offline tool holds the data directory', async () => {
    const dataDir = tempDataDir();
    // A live process standing for a rebuild in progress: its record says it works offline on the stores.
    const tool = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      mkdirSync(path.join(dataDir, 'processes'), { recursive: true });
      writeFileSync(path.join(dataDir, 'processes', String(tool.pid)), `${new Date().toISOString()}\noffline\n\n`);
      await expect(startTestService({ dataDir })).rejects.toThrow(
        `an offline tool (pid ${tool.pid}) is rebuilding the read models on ${dataDir}: start the service once it has finished`,
      );
      // The refused start left no claim of its own behind.
      expect(existsSync(path.join(dataDir, 'processes', String(process.pid)))).toBe(false);
    } finally {
      tool.kill('SIGKILL');
    }
    await new Promise((resolve) => tool.once('exit', resolve));
    const service = await startTestService({ dataDir });
    await service.destroy();
  });

  it('holds the runner lease while it runs, and refuses to run while a runner on another host holds it', async () => {
    const { dataDir } = await stoppedServiceData();
    const file = path.join(dataDir, 'read.sqlite');
    const watcher = new SqliteReadStore({ file });
    const leases = watcher.collection<RunnerLeaseFields>(RUNNER_HEARTBEAT_COLLECTION);
    try {
      const child = spawn(process.execPath, [cli, 'rebuild-projections', '--data-dir', dataDir], { env: process.env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      let running = true;
      void exit.then(() => (running = false));
      // What a runner starting on any host meanwhile would find: the rebuild's own lease.
      const seen: RunnerLeaseFields[] = [];
      while (running) {
        const doc = await leases.findOne({ _id: RUNNER_HEARTBEAT_ID });
        if (doc && !seen.some((d) => d.runnerId === doc.runnerId)) seen.push(doc);
        await new Promise((r) => setTimeout(r, 2));
      }
      expect({ code: await exit, stderr }).toEqual({ code: 0, stderr: '' });
      // Known by its pid space and start time as well as its pid: this machine's, as this test process sees it.
      expect(seen).toEqual([expect.objectContaining({ pid: child.pid, holder: expect.objectContaining({ role: 'rebuild', pidSpace: currentPidSpace(), startTicks: expect.stringMatching(/^\d+$/) }) })]);
      // Released at the end.
      expect(await leases.findOne({ _id: RUNNER_HEARTBEAT_ID })).toBeNull();

      // A worker on another host sharing the stores, beating: the rebuild is refused and leaves its lease alone.
      const at = new Date().toISOString();
      await leases.insertOne({
        _id: RUNNER_HEARTBEAT_ID,
        runnerId: 'worker-b-run',
        pid: 202,
        host: 'worker-b',
        holder: { runnerId: 'worker-b-run', pidSpace: 'other-boot/1', startTicks: '5', role: 'runner' },
        startedAt: at,
        beatAt: at,
        intervalMs: 60_000,
      });
      const refused = await exec(process.execPath, [cli, 'rebuild-projections', '--data-dir', dataDir], { env: process.env }).then(
        () => ({ code: 0, stderr: '' }),
        (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`pid 202 on host worker-b runs the projections and processors on these stores (last beat ${at}): stop it first`);
      expect(await leases.findOne({ _id: RUNNER_HEARTBEAT_ID })).toMatchObject({ runnerId: 'worker-b-run' });
    } finally {
      await watcher.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('stops and fails at once when another process takes the lease over during the rebuild, leaving that lease alone', async () => {
    const { dataDir, doc, chainId } = await stoppedServiceData();
    // A log long enough for the rebuild to outlast a few renewals: 3,000 synthesized acceptances (the bench's own
    // synthesizer: valid, signed event chains appended to the stopped service's log).
    const { synthesizeAcceptances, synthesisTarget } = (await import(path.join(projectRoot(), 'dist', 'test', 'bench', 'synthesize.js'))) as typeof import('./bench/synthesize');
    await synthesizeAcceptances(dataDir, synthesisTarget(doc, doc.versions[doc.versions.length - 1]!, chainId, 'a.example'), 3_000);
    const watcher = new SqliteReadStore({ file: path.join(dataDir, 'read.sqlite') });
    const leases = watcher.collection<RunnerLeaseFields>(RUNNER_HEARTBEAT_COLLECTION);
    try {
      const child = spawn(process.execPath, [cli, 'rebuild-projections', '--data-dir', dataDir], { env: { ...process.env, RUNNER_HEARTBEAT_MS: '100' }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      let running = true;
      void exit.then(() => (running = false));
      // As soon as the rebuild holds the lease, another process takes it over (as one whose clock ran ahead would).
      let takenOver = false;
      while (running && !takenOver) {
        const doc = await leases.findOne({ _id: RUNNER_HEARTBEAT_ID });
        if (doc) {
          await leases.updateOne({ _id: RUNNER_HEARTBEAT_ID }, { $set: { runnerId: 'usurper', pid: 202, host: 'worker-b', holder: { runnerId: 'usurper', pidSpace: 'other/1', startTicks: '5', role: 'runner' } } });
          takenOver = true;
        } else {
          await new Promise((r) => setTimeout(r, 2));
        }
      }
      if (!takenOver) throw new Error(`the rebuild ended (${await exit}) before it was seen holding the lease: ${stderr}`);
      expect(await exit).toBe(1);
      expect(stderr).toContain("the runner's lease was lost during the rebuild (another process took the lease over");
      expect(await leases.findOne({ _id: RUNNER_HEARTBEAT_ID })).toMatchObject({ runnerId: 'usurper' });
      // It stopped writing when it learnt of the loss, not at the end of the replay (3,001 acceptances).
      expect((await watcher.collection(COLLECTIONS.acceptances).find({})).length).toBeLessThan(3_001);
    } finally {
      await watcher.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a data directory without an event log, and a projection it does not know, as a command line it cannot run (exit 2)', async () => {
    const wrong = path.join(tmpdir(), `svc-no-log-${process.pid}-${Date.now()}`);
    const rebuild = (...args: string[]) =>
      exec(process.execPath, [cli, 'rebuild-projections', ...args, '--data-dir', wrong], { env: process.env }).then(
        () => undefined,
        (err: { code?: number; stderr?: string }) => err,
      );
    const failed = await rebuild();
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toMatch(/no event log at .*events\.sqlite/);
    expect(existsSync(path.join(wrong, 'events.sqlite'))).toBe(false);
    const unknown = await rebuild('acceptancez');
    expect(unknown?.code).toBe(2);
    expect(unknown?.stderr).toMatch(/^error: unknown projection\(s\) acceptancez; known: /);
  });
});
