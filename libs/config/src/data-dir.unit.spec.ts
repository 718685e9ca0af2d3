/**
 * Claims on a data directory (`processes/<pid>` records): who uses it, and who runs the projections and processors
 * (README "Production topology").
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { claimDataDir, otherProcessesUsing, processorRunnersUsing } from './data-dir';

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
