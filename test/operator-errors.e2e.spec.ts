/**
 * What an operator sees when a start or a command goes wrong (README "Configuration", "The svc command line"): one
 * line naming the cause and the setting, an exit status of 2 for a refused start, no stack trace, never a password;
 * and readiness probes that do not fill the log with stack traces.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { apiMain, cliMain } from '../apps/cli/src/paths';
import { freePort } from '../apps/cli/src/service-process';
import { tempDataDir } from './support/test-service';

const exec = promisify(execFile);
const built = existsSync(apiMain()) && existsSync(cliMain());

/** Runs the compiled API until it exits (it must: every case here is a refused start). */
function startApi(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [apiMain()], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs the compiled CLI; resolves with its exit status and output either way. */
function svc(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return exec(process.execPath, [cliMain(), ...args], { env: process.env }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
}

const noStack = /\n\s+at /;

(built ? describe : describe.skip)(`what an operator sees when a start or a command goes wrong${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = tempDataDir('svc-operator-');
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('a port in use stops the start in one line naming PORT', async () => {
    const busy = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => busy.listen(port, '127.0.0.1', resolve));
    try {
      const started = await startApi({ DATA_DIR: dataDir(), PORT: String(port), HOST: '127.0.0.1' });
      expect(started.code).toBe(2);
      expect(started.stderr.trim().split('\n')).toEqual([`start-up failed: cannot listen on 127.0.0.1:${port}: the port is in use by another process (PORT)`]);
    } finally {
      busy.close();
    }
  });

  it('a host name that does not resolve stops the start in one line naming HOST', async () => {
    const started = await startApi({ DATA_DIR: dataDir(), PORT: String(await freePort()), HOST: 'no-such-host.invalid' });
    expect(started.code).toBe(2);
    expect(started.stderr).toMatch(/^start-up failed: cannot listen on no-such-host\.invalid:\d+: that host name (does not resolve|could not be resolved now) \(HOST\)\n$/);
  });

  it('settings out of range or of the wrong kind are refused before anything starts, a MongoDB password never repeated', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ SIGNIN_NONCE_TTL_SECONDS: '-5' }, /SIGNIN_NONCE_TTL_SECONDS: must be a whole number from 1 to 86400/],
      [{ FRESH_SIGNATURE_SECONDS: '0' }, /FRESH_SIGNATURE_SECONDS: must be a whole number from 1 to 86400/],
      [{ AUDIT_ANCHOR_SECONDS: '-1' }, /AUDIT_ANCHOR_SECONDS: must be a whole number from 0 to 31536000/],
      [{ PUBLIC_BASE_URL: 'ftp://x.example' }, /PUBLIC_BASE_URL: must be an http or https URL/],
      [{ PUBLIC_RPC_URLS: 'notaurl,https://rpc.example' }, /PUBLIC_RPC_URLS: entries must be an http or https URL, got "notaurl"/],
      [{ MONGODB_URL: 'mongodb://admin:s3cr3tpw@db.example:99999/svc' }, /MONGODB_URL: is a connection string the MongoDB driver refuses/],
      [{ MONGODB_URL: 'mongodb+srv://admin:s3cr3tpw@cluster.example:27017/svc' }, /MONGODB_URL: is a connection string the MongoDB driver refuses/],
    ];
    for (const [env, reason] of cases) {
      const started = await startApi({ DATA_DIR: dataDir(), PORT: String(await freePort()), ...env });
      expect({ env, code: started.code }).toEqual({ env, code: 2 });
      expect(started.stderr).toMatch(reason);
      expect(started.stderr.trim().split('\n')).toHaveLength(1);
      expect(started.stderr).not.toContain('s3cr3tpw');
      expect(started.stderr).not.toMatch(noStack);
    }
  });

  it('a key file of the wrong form stops the start in one line naming its variable, before anything starts', async () => {
    const dir = dataDir();
    const notJson = path.join(dir, 'not-a-key-pair.json');
    const shortKey = path.join(dir, 'short.key');
    writeFileSync(notJson, 'relayer\n');
    writeFileSync(shortKey, `${Buffer.alloc(16).toString('base64')}\n`);
    const cases: Array<[Record<string, string>, string]> = [
      [{ RELAYER_KEYPAIR: notJson }, `invalid configuration: RELAYER_KEYPAIR: Key pair file ${notJson} is not JSON`],
      [{ ATTESTOR_KEYPAIR: notJson }, `invalid configuration: ATTESTOR_KEYPAIR: Key pair file ${notJson} is not JSON`],
      [{ RELAYER_KEYPAIR: dir }, 'invalid configuration: RELAYER_KEYPAIR: cannot read the key file: EISDIR'],
      [{ WEBHOOK_SECRETS_KEY_FILE: shortKey }, `invalid configuration: WEBHOOK_SECRETS_KEY_FILE: webhook secrets key file ${shortKey} does not hold the base64 of 32 bytes`],
    ];
    for (const [env, line] of cases) {
      const started = await startApi({ DATA_DIR: path.join(dir, 'data'), PORT: String(await freePort()), ...env });
      expect({ env, code: started.code, stderr: started.stderr }).toEqual({ env, code: 2, stderr: `${line}\n` });
    }
    // Refused before anything started: the data directory was never made.
    expect(existsSync(path.join(dir, 'data'))).toBe(false);
  });

  it('a store file that is not a database stops the start in one line naming the data directory and its files, without Nest\'s start-up lines', async () => {
    const dir = dataDir();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(dir, 'read.sqlite'), Buffer.alloc(64 * 1024, 0x5a), { mode: 0o600 });
    const started = await startApi({ DATA_DIR: dir, PORT: String(await freePort()) });
    expect(started.code).toBe(2);
    expect(started.stderr).toBe(
      `start-up failed: a store file in DATA_DIR (${dir}) cannot be used: file is not a database (SQLITE_NOTADB); the files are events.sqlite (the event log), read.sqlite (read models and checkpoints) and ledger/ (the embedded ledger): check the disk and the files' owner and mode, or restore the damaged one from a backup\n`,
    );
    expect(started.stdout).toBe('');
  });

  it('a MongoDB read store or an EventStoreDB log out of reach stops the start in one line naming its variable, never its password', async () => {
    const closed = await freePort();
    const mongo = await startApi({ DATA_DIR: dataDir(), PORT: String(await freePort()), MONGODB_URL: `mongodb://auditor:s3cr3t-pw@127.0.0.1:${closed}/svc?serverSelectionTimeoutMS=500` });
    expect(mongo.code).toBe(2);
    expect(mongo.stderr).toMatch(
      new RegExp(`^start-up failed: the MongoDB read store \\(MONGODB_URL\\) cannot be used: connect ECONNREFUSED 127\\.0\\.0\\.1:${closed} \\(MongoServerSelectionError\\); check that the server runs .*\n$`),
    );
    const esdb = await startApi({ DATA_DIR: dataDir(), PORT: String(await freePort()), EVENTSTORE_URL: `esdb://auditor:s3cr3t-pw@127.0.0.1:${closed}?tls=false` });
    expect(esdb.code).toBe(2);
    expect(esdb.stderr).toMatch(/^start-up failed: the EventStoreDB event log \(EVENTSTORE_URL\) cannot be used: .*ECONNREFUSED.* \(unavailable\); check that the server runs .*\n$/);
    for (const started of [mongo, esdb]) {
      expect(started.stderr).not.toMatch(noStack);
      expect(`${started.stdout}${started.stderr}`).not.toContain('s3cr3t-pw');
    }
  });

  it('readiness answered 503 by an API replica with no runner is logged without a stack trace', async () => {
    const port = await freePort();
    const replica = spawn(process.execPath, [apiMain()], {
      env: { ...process.env, DATA_DIR: dataDir(), PORT: String(port), HOST: '127.0.0.1', RUN_PROJECTIONS: 'false', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let log = '';
    replica.stdout!.on('data', (c: Buffer) => (log += c.toString()));
    try {
      const ready = async () => (await fetch(`http://127.0.0.1:${port}/api/ready`)).status;
      for (let listening = false; !listening; ) {
        listening = await ready().then(
          () => true,
          () => new Promise<boolean>((r) => setTimeout(() => r(false), 100)),
        );
      }
      for (let i = 0; i < 3; i++) expect(await ready()).toBe(503);
      await new Promise((r) => setTimeout(r, 300));
      const lines = log.split('\n').filter((l) => l.includes('"url":"/api/ready"'));
      expect(lines.length).toBeGreaterThanOrEqual(3);
      for (const line of lines) {
        const entry = JSON.parse(line) as { res?: { statusCode?: number }; err?: unknown };
        expect(entry.res?.statusCode).toBe(503);
        expect(entry.err).toBeUndefined();
      }
    } finally {
      replica.kill('SIGKILL');
    }
  });

  it('a busy PORT+1 (the ledger websocket web3.js looks for) is a warning in the log, and the service serves', async () => {
    const port = await freePort();
    const busy = createServer();
    await new Promise<void>((resolve, reject) => {
      busy.once('error', reject);
      busy.listen(port + 1, '127.0.0.1', resolve);
    });
    const service = spawn(process.execPath, [apiMain()], {
      env: { ...process.env, DATA_DIR: dataDir(), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let log = '';
    service.stdout!.on('data', (c: Buffer) => (log += c.toString()));
    try {
      for (let status = 0; status !== 200; ) {
        status = await fetch(`http://127.0.0.1:${port}/api/ready`).then(
          (r) => r.status,
          () => 0,
        );
        if (status !== 200) await new Promise((r) => setTimeout(r, 150));
      }
      expect(log).toContain(`ledger PubSub websocket not served on port ${port + 1} (EADDRINUSE)`);
    } finally {
      service.kill('SIGKILL');
      busy.close();
    }
  });

  it('svc keygen never overwrites a key pair file, and says so in a line', async () => {
    const dir = dataDir();
    const file = path.join(dir, 'org.json');
    expect((await svc(['keygen', '--out', file])).code).toBe(0);
    const again = await svc(['keygen', '--out', file]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(`error: ${file} exists already: a key pair file is never overwritten (choose another path, or remove it first)`);
    const json = await svc(['keygen', '--out', file, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'file_exists', message: `${file} exists already: a key pair file is never overwritten (choose another path, or remove it first)` },
    });
  });

  it('svc verify refuses an --rpc that is not an http(s) URL before reading anything (exit 2: no verdict)', async () => {
    const dir = dataDir();
    const file = path.join(dir, 'receipt.json');
    writeFileSync(file, '{}');
    for (const rpc of ['notaurl', 'ftp://ledger.example']) {
      const refused = await svc(['verify', file, '--rpc', rpc]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/option '--rpc <url>' argument '.*' is invalid\. must be an http or https URL/);
      expect(refused.stdout).not.toContain('INCONCLUSIVE');
    }
  });

  it('a second svc rebuild-projections names the rebuild already at work, not a service', async () => {
    const dir = dataDir();
    // A live process standing for the first rebuild: its record says it works offline on the stores.
    const tool = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      mkdirSync(path.join(dir, 'processes'), { recursive: true });
      writeFileSync(path.join(dir, 'events.sqlite'), '');
      writeFileSync(path.join(dir, 'processes', String(tool.pid)), `${new Date().toISOString()}\noffline\n\n`);
      const second = await svc(['rebuild-projections', '--data-dir', dir]);
      expect(second.code).toBe(1);
      expect(second.stderr.trim()).toBe(`error: another rebuild (pid ${tool.pid}) is working on ${dir}: wait for it to finish`);
    } finally {
      tool.kill('SIGKILL');
    }
  });
});
