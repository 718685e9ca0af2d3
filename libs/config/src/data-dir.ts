import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { bootId, procStat } from './process-identity';

/** Mode of the data directory: owner only (read, write, search). */
export const DATA_DIR_MODE = 0o700;
/** Process umask while the service runs: files it creates are owner-only (0600), directories 0700. */
export const OWNER_ONLY_UMASK = 0o077;

/**
 * Makes the data directory private before anything is written in it: sets the process umask to 0077, so
 * every file created afterwards (event store, read store, ledger journal, keys, logs) is 0600 and every
 * directory 0700, then creates `dataDir` (0700) or tightens an existing one to 0700, which closes whatever
 * an older release left readable inside it. See README "Configuration" (`DATA_DIR`).
 * @throws Error from node:fs when the directory cannot be created or its mode changed (not its owner).
 */
export function secureDataDir(dataDir: string): void {
  process.umask(OWNER_ONLY_UMASK);
  mkdirSync(dataDir, { recursive: true, mode: DATA_DIR_MODE });
  chmodSync(dataDir, DATA_DIR_MODE);
}

/**
 * Which of these key files other users of the machine could read: those whose mode gives the group or others any
 * permission (`mode & 0o077`), as `path (mode 0644)`. Files the service creates are 0600; a key file placed by an
 * operator (`RELAYER_KEYPAIR`, `ATTESTOR_KEYPAIR`, `WEBHOOK_SECRETS_KEY_FILE`), outside `DATA_DIR` or copied in
 * with a looser mode, is the case this finds. Missing files are skipped. Never reads a file's content.
 */
export function keyFilesReadableByOthers(files: readonly string[]): string[] {
  const loose: string[] = [];
  for (const file of files) {
    let mode: number;
    try {
      mode = statSync(file).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) !== 0) loose.push(`${file} (mode ${mode.toString(8).padStart(4, '0')})`);
  }
  return loose;
}

/** Directory of `DATA_DIR` where each process using it leaves a file named after its pid. */
const PROCESSES_DIR = 'processes';

/**
 * Records that this process uses `dataDir` (a file `processes/<pid>` inside it), so that offline tools such as
 * `svc rebuild-projections` can refuse to run beside it. The record is removed by the returned function (call it
 * when the service closes) and, as a fallback, when the process exits; one left by a killed process is recognised
 * as stale by {@link otherProcessesUsing}. `processors`: this process runs the projections and processors;
 * `offline`: an offline tool (`svc rebuild-projections`) works on the stores, and no service may start meanwhile.
 * @returns the function that removes the record.
 */
export function claimDataDir(dataDir: string, options: { processors?: boolean; offline?: boolean } = {}): () => void {
  const dir = path.join(dataDir, PROCESSES_DIR);
  mkdirSync(dir, { recursive: true, mode: DATA_DIR_MODE });
  const file = path.join(dir, String(process.pid));
  // The second line says whether this process runs the projections and processors ({@link processorRunnersUsing});
  // a role held by another service of this process is kept (a file left by an earlier process with this pid is not
  // asked). The third says which process this is, beyond its pid ({@link processIdentity}).
  const held = claims.get(file);
  const role = options.offline ? OFFLINE_ROLE : options.processors || held?.role === PROCESSORS_ROLE ? PROCESSORS_ROLE : 'api';
  writeFileSync(file, `${new Date().toISOString()}\n${role}\n${processIdentity('self') ?? ''}\n`);
  claims.set(file, { count: (held?.count ?? 0) + 1, role });
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // Another service of this process (tests run several) may still hold the same data directory.
    const entry = claims.get(file);
    if (entry && entry.count > 1) entry.count--;
    else {
      claims.delete(file);
      rmSync(file, { force: true });
    }
  };
}

/**
 * Which process `pid` is, beyond its number (Linux): the boot it runs in and its start time in clock ticks since
 * boot (process-identity.ts). A pid that names another process since (a reboot, pids wrapped around) shows a
 * different identity. Null where `/proc` cannot tell.
 */
function processIdentity(pid: number | 'self'): string | null {
  const boot = bootId();
  const start = procStat(pid)?.startTicks;
  return boot && start ? `${boot}:${start}` : null;
}

const PROCESSORS_ROLE = 'processors';
const OFFLINE_ROLE = 'offline';

/** Pids of the other live processes using `dataDir` in `role`. */
function othersInRole(dataDir: string, role: string): number[] {
  return otherProcessesUsing(dataDir).filter((pid) => {
    try {
      return readFileSync(path.join(dataDir, PROCESSES_DIR, String(pid)), 'utf8').split('\n')[1] === role;
    } catch {
      return false; // gone meanwhile
    }
  });
}

/**
 * Pids of the other live processes that run the projections and processors on `dataDir` (claimed with
 * `processors: true`). Two of them would each send every webhook and act on every event.
 */
export function processorRunnersUsing(dataDir: string): number[] {
  return othersInRole(dataDir, PROCESSORS_ROLE);
}

/** Records this process holds: how many of its services hold each, and the role written. */
const claims = new Map<string, { count: number; role: string }>();
process.once('exit', () => {
  for (const file of claims.keys()) rmSync(file, { force: true });
});

/**
 * Pids of the other live processes that use `dataDir` (see {@link claimDataDir}); records of processes that no
 * longer exist are removed.
 */
export function otherProcessesUsing(dataDir: string): number[] {
  const dir = path.join(dataDir, PROCESSES_DIR);
  if (!existsSync(dir)) return [];
  const live: number[] = [];
  for (const name of readdirSync(dir)) {
    const pid = Number(name);
    if (!Number.isSafeInteger(pid) || pid <= 0) continue;
    if (pid === process.pid) continue;
    const record = path.join(dir, name);
    let alive: boolean;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch (err) {
      // ESRCH: no such process (a record left by a killed service). EPERM: alive, another user's.
      alive = (err as NodeJS.ErrnoException).code === 'EPERM';
    }
    // A live pid is the recorded process only if it is the same one (not a later process given the same number), and
    // a process that has exited but not been reaped yet (a zombie, just after SIGKILL) no longer uses anything.
    if (alive && (!sameProcess(record, pid) || exitedUnreaped(pid))) alive = false;
    if (alive) live.push(pid);
    else rmSync(record, { force: true });
  }
  return live;
}

/** Pids of the other live offline tools (`svc rebuild-projections`) working on `dataDir`. */
export function offlineToolsUsing(dataDir: string): number[] {
  return othersInRole(dataDir, OFFLINE_ROLE);
}

/** Whether `pid` has exited and waits to be reaped by its parent (Linux: state `Z` in `/proc/<pid>/stat`). */
function exitedUnreaped(pid: number): boolean {
  return procStat(pid)?.state === 'Z';
}

/** Whether the record of `pid` was written by the process that has that pid now (true when either side cannot tell). */
function sameProcess(record: string, pid: number): boolean {
  let recorded: string | undefined;
  try {
    recorded = readFileSync(record, 'utf8').split('\n')[2];
  } catch {
    return true; // gone meanwhile: the caller's next look settles it
  }
  if (!recorded) return true; // written by a release that did not record it, or where /proc cannot tell
  const now = processIdentity(pid);
  return now === null || now === recorded;
}

/** A service would start while an offline tool rebuilds its read models. */
export class OfflineWorkRunningError extends Error {
  override readonly name = 'OfflineWorkRunningError';
}

/**
 * Refuses to start a service (API or worker) on a data directory an offline tool is working on (`svc
 * rebuild-projections` resets and refills the read models: a service would serve, and write, them half-built). Call
 * it right after {@link claimDataDir}; on refusal the claim is released. A service and the tool starting at the same
 * moment may both be refused, never both admitted (the tool claims before it looks for services).
 * @throws OfflineWorkRunningError naming the tool's process.
 */
export function refuseDuringOfflineWork(dataDir: string, release: () => void): void {
  const tools = offlineToolsUsing(dataDir);
  if (tools.length === 0) return;
  release();
  throw new OfflineWorkRunningError(`an offline tool (pid ${tools.join(', ')}) is rebuilding the read models on ${dataDir}: start the service once it has finished`);
}

/** A second process would run the projections and processors on a data directory that one already runs them on. */
export class SecondProcessorRunnerError extends Error {
  override readonly name = 'SecondProcessorRunnerError';
}

/**
 * Refuses to start a second process that runs the projections and processors on the data directory (the embedded
 * default; README "Production topology"): two would each deliver every webhook and act on every event. Call it
 * right after {@link claimDataDir}; on refusal the claim is released. Processes starting at the same moment may
 * both be refused (start them again one after the other), never both admitted.
 * @throws SecondProcessorRunnerError naming the other process.
 */
export function refuseSecondProcessorRunner(config: { dataDir: string; runProjections: boolean }, release: () => void): void {
  if (!config.runProjections) return;
  const others = processorRunnersUsing(config.dataDir);
  if (others.length === 0) return;
  release();
  throw new SecondProcessorRunnerError(
    `another process (pid ${others.join(', ')}) already runs the projections and processors on ${config.dataDir}: ` +
      'run one per data directory (an API with RUN_PROJECTIONS=true, or apps/worker), API replicas beside it with RUN_PROJECTIONS=false',
  );
}
