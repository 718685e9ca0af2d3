import { spawn } from 'node:child_process';
import { currentPidSpace, currentProcessIdentity, parseProcStat, processRuns, procStat } from './process-identity';

const onLinux = process.platform === 'linux';

describe('process identity', () => {
  it('reads the state and start time of a stat line whose command name holds spaces and parentheses', () => {
    // Fields 1–22 of proc(5) and a few after; the command name is "a) (b c".
    const line = '4242 (a) (b c) Z 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 987654 1000 50 18446744073709551615';
    expect(parseProcStat(line)).toEqual({ state: 'Z', startTicks: '987654' });
    expect(parseProcStat('no parentheses here')).toBeNull();
    expect(parseProcStat('12 (short) S 1 2')).toBeNull();
  });

  (onLinux ? it : it.skip)(`knows this process by its pid space and start time${onLinux ? '' : ' (skipped: /proc is Linux only)'}`, () => {
    const own = currentProcessIdentity();
    expect(own.pidSpace).toMatch(/^[0-9a-f-]{36}\/\d+$/);
    expect(own.pidSpace).toBe(currentPidSpace());
    expect(own.startTicks).toMatch(/^\d+$/);
    expect(processRuns(process.pid, own.startTicks)).toBe(true);
    expect(processRuns(process.pid, null)).toBe(true);
    // The same pid started at another time is a later process that reused it.
    expect(processRuns(process.pid, String(BigInt(own.startTicks!) + 1n))).toBe(false);
  });

  it('says a process that has exited no longer runs', async () => {
    const child = spawn(process.execPath, ['-e', '']);
    const pid = child.pid!;
    await new Promise((resolve) => child.once('exit', resolve));
    expect(processRuns(pid, null)).toBe(false);
  });

  (onLinux ? it : it.skip)(`says a zombie (exited, not reaped by its parent) no longer runs${onLinux ? '' : ' (skipped: /proc is Linux only)'}`, async () => {
    // The shell starts a child that exits at once, then becomes a \`sleep\` that never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 20'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()))));
      // Wait until the kernel shows it as a zombie: \`kill(pid, 0)\` still succeeds then.
      let zombie = false;
      for (let i = 0; i < 100 && !zombie; i++) {
        zombie = procStat(pid)?.state === 'Z';
        if (!zombie) await new Promise((r) => setTimeout(r, 20));
      }
      expect(zombie).toBe(true);
      expect(() => process.kill(pid, 0)).not.toThrow();
      expect(processRuns(pid, null)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
