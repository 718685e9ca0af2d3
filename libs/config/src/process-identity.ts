import { readFileSync, readlinkSync } from 'node:fs';

/**
 * Who a process is on this machine, beyond its pid, for the data directory's process records (data-dir.ts) and the
 * runner lease (libs/application, runner-lease.ts): a pid alone is reused once its process is gone, and two
 * containers given the same host name each have their own pid 1.
 *
 * On Linux, read from `/proc` (proc(5)); elsewhere every field is null and the lease falls back to host name and pid.
 */
export interface ProcessIdentity {
  /**
   * The machine and pid namespace this process sees pids in: the kernel's boot id (random at every boot) and the
   * pid namespace's inode (`/proc/self/ns/pid`), as `<boot id>/<inode>`. Two processes with the same value can look
   * each other's pids up; null when unknown.
   */
  pidSpace: string | null;
  /** This process's start time in clock ticks since boot (field 22 of `/proc/self/stat`), decimal; null when unknown. */
  startTicks: string | null;
}

function readOrNull<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}

/** The kernel's boot id (random at every boot), or null off Linux. */
export function bootId(): string | null {
  return readOrNull(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()) || null;
}

/** The pid space of this process (see {@link ProcessIdentity.pidSpace}), or null off Linux. */
export function currentPidSpace(): string | null {
  const boot = bootId();
  const ns = readOrNull(() => readlinkSync('/proc/self/ns/pid'));
  const inode = ns ? /^pid:\[(\d+)\]$/.exec(ns)?.[1] : undefined;
  return boot && inode ? `${boot}/${inode}` : null;
}

/**
 * The state and start time of a process from the text of its `/proc/<pid>/stat` (proc(5)): the command name, in
 * parentheses, may itself hold spaces and parentheses, so the fields are counted from the last `)`.
 * @returns `state` (one letter: `R`, `S`, `Z` for a zombie, …) and `startTicks` (field 22, decimal), or null when the
 *   text is not such a line.
 */
export function parseProcStat(text: string): { state: string; startTicks: string } | null {
  const end = text.lastIndexOf(')');
  if (end < 0) return null;
  const fields = text.slice(end + 1).trim().split(/\s+/);
  // fields[0] is field 3 (state), so field 22 (starttime) is fields[19].
  const state = fields[0];
  const startTicks = fields[19];
  return state && startTicks && /^\d+$/.test(startTicks) ? { state, startTicks } : null;
}

/**
 * The stat line of a pid of this pid space (or of this process, `self`), or null when it has none (no such process)
 * or `/proc` is not there.
 */
export function procStat(pid: number | 'self'): { state: string; startTicks: string } | null {
  const text = readOrNull(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return text === null ? null : parseProcStat(text);
}

/** This process's identity on its machine (`/proc/self`, which is this process even where `/proc` shows another pid namespace's numbers). */
export function currentProcessIdentity(): ProcessIdentity {
  return { pidSpace: currentPidSpace(), startTicks: procStat('self')?.startTicks ?? null };
}

/**
 * Whether the process a lease document names still runs, asked of this pid space.
 * @param pid its pid
 * @param startTicks its start time as it recorded it, when it did: a process with the same pid that started at
 *   another time is a later one that reused the pid
 * @returns false when no process has the pid, when it is a zombie (it has exited; its parent has not reaped it yet)
 *   or when it started at another time; true otherwise, also when the pid exists under another user (EPERM).
 */
export function processRuns(pid: number, startTicks: string | null | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(pid);
  if (!stat) return true; // no /proc here: the signal's answer is all there is
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return !startTicks || stat.startTicks === startTicks;
}
