/**
 * Claims on a data directory (`processes/<pid>` records): who uses it, and who runs the projections and processors
 * (README "Production topology").
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { claimDataDir, keyFilesReadableByOthers, otherProcessesUsing, processorRunnersUsing } from './data-dir';

const linux = existsSync('/proc/self/stat');

describe('data directory claims', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-claims-'));
    mkdirSync(path.join(dataDir, 'processes'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const record = (pid: number, lines: string[]) => writeFileSync(path.join(dataDir, 'processes', String(pid)), `${lines.join('\n')}\n`);

  it('does not take the role of a record an earlier process with this pid left behind', () => {
    record(process.pid, [new Date().toISOString(), 'processors', '']);
    const release = claimDataDir(dataDir);
    try {
      expect(readFileSync(path.join(dataDir, 'processes', String(process.pid)), 'utf8').split('\n')[1]).toBe('api');
    } finally {
      release();
    }
    expect(existsSync(path.join(dataDir, 'processes', String(process.pid)))).toBe(false);
  });

  it('keeps the processors role while another service of this process holds it', () => {
    const runner = claimDataDir(dataDir, { processors: true });
    const replica = claimDataDir(dataDir);
    const file = path.join(dataDir, 'processes', String(process.pid));
    expect(readFileSync(file, 'utf8').split('\n')[1]).toBe('processors');
    replica();
    expect(existsSync(file)).toBe(true);
    runner();
    expect(existsSync(file)).toBe(false);
  });

  it('forgets the record of a process that no longer exists', () => {
    record(2 ** 22 + 12345, [new Date().toISOString(), 'processors', '']);
    expect(processorRunnersUsing(dataDir)).toEqual([]);
    expect(existsSync(path.join(dataDir, 'processes', String(2 ** 22 + 12345)))).toBe(false);
  });

  (linux ? it : it.skip)(`forgets a record whose pid now names another process${linux ? '' : ' (skipped: needs /proc)'}`, () => {
    // The parent process is alive, but it is not the process that wrote this record (another boot, another start).
    record(process.ppid, [new Date().toISOString(), 'processors', '00000000-0000-0000-0000-000000000000:1']);
    expect(otherProcessesUsing(dataDir)).toEqual([]);
    expect(existsSync(path.join(dataDir, 'processes', String(process.ppid)))).toBe(false);
    // A record that does not say which process wrote it is taken at its pid's word.
    record(process.ppid, [new Date().toISOString(), 'processors', '']);
    expect(processorRunnersUsing(dataDir)).toEqual([process.ppid]);
  });
});

describe('data directory claims of exited processes', () => {
  (existsSync('/proc/self/stat') ? it : it.skip)(`forgets the record of a process that exited but is not reaped yet${existsSync('/proc/self/stat') ? '' : ' (skipped: needs /proc)'}`, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-claims-'));
    mkdirSync(path.join(dataDir, 'processes'));
    // A child that exits at once; its parent (this process) does not reap it while the event loop is held.
    const child = spawn('sh', ['-c', 'exit 0'], { stdio: 'ignore' });
    try {
      const pid = child.pid!;
      writeFileSync(path.join(dataDir, 'processes', String(pid)), `${new Date().toISOString()}\nprocessors\n\n`);
      const until = Date.now() + 5_000;
      while (Date.now() < until && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ')) {
        // wait (synchronously) for the exit; the zombie stays until the loop turns
      }
      expect(readFileSync(`/proc/${pid}/stat`, 'utf8')).toContain(') Z ');
      expect(processorRunnersUsing(dataDir)).toEqual([]);
    } finally {
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('key files readable by others', () => {
  it('names the files whose mode lets the group or others in, with the mode, and skips owner-only and missing ones', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-keymodes-'));
    try {
      const file = (name: string, mode: number) => {
        const p = path.join(dir, name);
        writeFileSync(p, 'key', { mode });
        chmodSync(p, mode);
        return p;
      };
      const ownerOnly = file('relayer.json', 0o600);
      const worldReadable = file('attestor.json', 0o644);
      const groupReadable = file('webhook-secrets.key', 0o640);
      expect(keyFilesReadableByOthers([ownerOnly, worldReadable, groupReadable, path.join(dir, 'missing.json')])).toEqual([
        `${worldReadable} (mode 0644)`,
        `${groupReadable} (mode 0640)`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
