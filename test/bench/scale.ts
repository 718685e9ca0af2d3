/**
 * Scale figures: the service's data directory grown by N synthesized acceptances (`synthesize.ts`), then
 * - a catch-up launch: the projections and process managers meet the synthesized events for the first time (as a
 *   new replica would), seconds from launch to the first `200` on `GET /api/ready` and on the public summary of the
 *   last synthesized acceptance, and RSS then;
 * - seconds to rebuild every read model from the log with `svc rebuild-projections`, its events/s and peak RSS;
 * - a restart with every read model and checkpoint up to date (the usual restart of a service holding N
 *   acceptances): the same start-up figures;
 * - public summary reads/s at that size, against the same figure on the small data set (reads must not slow down
 *   as data grows);
 * - a first launch with no read model at all (the read store's files removed, as for a new replica of the log):
 *   every projection replays the whole log and then builds its indexes while the service answers; seconds to the
 *   first `/api/ready`, to the first read of the last acceptance and until idle, and the longest answer to
 *   `GET /api/health` meanwhile (the service must keep answering).
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { SQLITE_READ_FILE } from '@svc/read-store';
import { runLoad, untilIdle, withPeakRss } from './children';
import { launchService, type BenchService } from './service';
import { synthesizeAcceptances, type SynthesisTarget } from './synthesize';
import type { Row } from './table';

export interface ScaleInput {
  dataDir: string;
  target: SynthesisTarget;
  count: number;
  connections: number;
  seconds: number;
  /** Public summary reads/s measured on the small data set (the ceiling of the scaled figure). */
  smallReadsPerSecond: number;
  /** Progress lines (stderr). */
  log: (line: string) => void;
}

/** Target: reads at scale keep at least this percent of the small-data-set figure. */
export const SCALE_READ_TARGET_PERCENT = 90;
/** How long one start-up may take before the run gives up: 15 minutes plus 4 ms per synthesized acceptance. */
const startTimeoutMs = (count: number) => 15 * 60_000 + 4 * count;

const cliMain = () => path.resolve(__dirname, '..', '..', 'apps', 'cli', 'src', 'main.js');

/**
 * Runs `svc rebuild-projections --data-dir <dir>` in its own process.
 * @returns its seconds and peak RSS.
 * @throws Error when the command fails.
 */
async function rebuild(dataDir: string): Promise<{ seconds: number; peakRssMb: number | null }> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [cliMain(), 'rebuild-projections', '--data-dir', dataDir], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err = (err + c).slice(-4000)));
  const { value: code, peakRssMb } = await withPeakRss(child.pid, () => new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c))));
  if (code !== 0) throw new Error(`svc rebuild-projections exited with ${code}: ${err}`);
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, peakRssMb };
}

/**
 * Seconds from `launchedAt` (a `performance.now()`) until `/api/ready` says the check of the whole log made at
 * start-up ended (`passed` or `failed`); null when it did not within `timeoutS` or is off.
 */
async function untilLogChecked(origin: string, launchedAt: number, timeoutS: number): Promise<number | null> {
  const deadline = performance.now() + timeoutS * 1000;
  while (performance.now() < deadline) {
    const res = await fetch(`${origin}/api/ready`).catch(() => null);
    const state = res ? ((await res.json()) as { eventLogCheck?: { state?: string } }).eventLogCheck?.state : undefined;
    if (state === 'passed' || state === 'failed') return (performance.now() - launchedAt) / 1000;
    if (state === 'off') return null;
    await new Promise((r) => setTimeout(r, 250));
  }
  return null;
}

/** Launches the service and times its first ready answer and its first read of `lastId`. */
async function timedStart(
  dataDir: string,
  lastId: string,
  timeoutMs: number,
): Promise<{ service: BenchService; launchedAt: number; readyS: number; firstReadS: number; rssMb: number | null }> {
  const launchedAt = performance.now();
  const service = await launchService({ dataDir, readyTimeoutMs: timeoutMs });
  try {
    const firstReadMs = await service.untilOk(`/api/v1/public/acceptances/${lastId}`, timeoutMs);
    return { service, launchedAt, readyS: service.readyMs / 1000, firstReadS: firstReadMs / 1000, rssMb: service.rssMb() };
  } catch (err) {
    await service.stop();
    throw err;
  }
}

/**
 * Launches the service on `dataDir` without its read store (the files are removed first) and, while the projections
 * replay the log and build their indexes, asks `GET /api/health` one request at a time (a pause of 50 ms between
 * them) until the service is idle.
 * @returns seconds to the first ready answer, to the first read of `lastId` and until idle (null: not within the
 *   timeout), the longest health answer in milliseconds, and RSS once idle.
 * @throws Error when the service does not start or never serves `lastId` (it is stopped first).
 */
async function launchWithoutReadModels(dataDir: string, lastId: string, timeoutMs: number): Promise<{ readyS: number; firstReadS: number; idleS: number | null; longestHealthMs: number; rssMb: number | null }> {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path.join(dataDir, `${SQLITE_READ_FILE}${suffix}`), { force: true });
  // Its idle figure is the replay and the index build: the start-up check of the log is timed at the restart.
  const service = await launchService({ dataDir, readyTimeoutMs: timeoutMs, env: { CHECK_EVENT_LOG_ON_START: 'false' } });
  let polling = true;
  let longestHealthMs = 0;
  const poll = (async () => {
    while (polling) {
      const started = process.hrtime.bigint();
      await fetch(`${service.origin}/api/health`).then((r) => r.arrayBuffer(), () => undefined);
      longestHealthMs = Math.max(longestHealthMs, Number(process.hrtime.bigint() - started) / 1e6);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    const firstReadMs = await service.untilOk(`/api/v1/public/acceptances/${lastId}`, timeoutMs);
    const idleAfterS = await untilIdle(service.pid, timeoutMs / 1000);
    return {
      readyS: service.readyMs / 1000,
      firstReadS: firstReadMs / 1000,
      idleS: idleAfterS === null ? null : firstReadMs / 1000 + idleAfterS,
      longestHealthMs,
      rssMb: service.rssMb(),
    };
  } finally {
    polling = false;
    await poll;
    await service.stop();
  }
}

/**
 * Grows the (stopped) service's data directory by `count` synthesized acceptances and measures it.
 * @returns the scale rows of the table.
 * @throws Error when a step fails (the service is stopped first).
 */
export async function measureScale(input: ScaleInput): Promise<Row[]> {
  const n = input.count.toLocaleString('en-US');
  const rows: Row[] = [];
  input.log(`scale: synthesizing ${n} acceptances (synthesized, not relayed)…`);
  const progress = input.count >= 10_000 ? (done: number) => input.log(`  ${done.toLocaleString('en-US')} written`) : undefined;
  const synth = await synthesizeAcceptances(input.dataDir, input.target, input.count, 5_000, progress);
  rows.push({ figure: `scale ${n}: synthesize acceptances (synthesized, not relayed; 3 events each)`, perSecond: synth.acceptances / synth.seconds, seconds: synth.seconds });

  input.log('scale: catch-up launch (projections and process managers meet the synthesized events)…');
  const first = await timedStart(input.dataDir, synth.lastAcceptanceId, startTimeoutMs(input.count));
  await first.service.stop();
  rows.push({ figure: `scale ${n}: catch-up launch (log unseen by projections and processors) → first /api/ready`, seconds: first.readyS });
  rows.push({ figure: `scale ${n}: catch-up launch → first public read of the last one`, seconds: first.firstReadS, rssMb: first.rssMb });

  input.log('scale: svc rebuild-projections…');
  const rebuilt = await rebuild(input.dataDir);
  rows.push({ figure: `scale ${n}: svc rebuild-projections (events/s; RSS of the rebuild)`, perSecond: synth.logEvents / rebuilt.seconds, seconds: rebuilt.seconds, rssMb: rebuilt.peakRssMb });

  input.log('scale: restart on the rebuilt read models…');
  const second = await timedStart(input.dataDir, synth.lastAcceptanceId, startTimeoutMs(input.count));
  try {
    rows.push({ figure: `scale ${n}: restart (read models up to date) → first /api/ready`, seconds: second.readyS });
    rows.push({ figure: `scale ${n}: restart → first public read`, seconds: second.firstReadS, rssMb: second.rssMb });
    const paths = synth.sampleIds.map((id) => `/api/v1/public/acceptances/${id}`);
    // The check of the whole log that each start makes runs in the background for a while at this size: reads while
    // it runs are a figure of their own, then reads at steady state once it ended and the service is idle.
    input.log('scale: public reads while the start-up check of the log runs…');
    const during = await runLoad({ kind: 'http', origin: second.service.origin, paths, connections: input.connections, seconds: input.seconds });
    const checkState = ((await (await fetch(`${second.service.origin}/api/ready`)).json()) as { eventLogCheck?: { state?: string } }).eventLogCheck?.state;
    rows.push({
      figure: `scale ${n}: GET /v1/public/acceptances/{id} while the start-up log check runs (check ${checkState ?? 'unknown'} at the end)`,
      perSecond: during.ok / during.seconds,
      ceiling: input.smallReadsPerSecond,
      p50Ms: during.latency.p50,
      p99Ms: during.latency.p99,
    });
    input.log('scale: waiting for the start-up check of the whole log…');
    const checkedS = await untilLogChecked(second.service.origin, second.launchedAt, startTimeoutMs(input.count) / 1000);
    rows.push({ figure: `scale ${n}: restart → start-up check of the whole event log done (background thread, at most a quarter of a core)`, seconds: checkedS });
    // Processors that met the synthesized events at the catch-up launch may still be working through them: reads are
    // measured once the service is idle, at steady state (the wait is a figure of its own).
    input.log('scale: waiting until the restarted service is idle (processors caught up)…');
    const settledS = await untilIdle(second.service.pid, startTimeoutMs(input.count) / 1000);
    rows.push({ figure: `scale ${n}: restart → projections and processors caught up, log check done (service idle)`, seconds: settledS === null ? null : (performance.now() - second.launchedAt) / 1000 });
    if (settledS === null) input.log('  the service did not become idle; reads measured anyway');
    input.log('scale: public reads at this size…');
    const { value: load, peakRssMb } = await withPeakRss(second.service.pid, () => runLoad({ kind: 'http', origin: second.service.origin, paths, connections: input.connections, seconds: input.seconds }));
    rows.push({
      figure: `scale ${n}: GET /v1/public/acceptances/{id} (vs. small data set)`,
      perSecond: load.ok / load.seconds,
      ceiling: input.smallReadsPerSecond,
      targetPercent: SCALE_READ_TARGET_PERCENT,
      p50Ms: load.latency.p50,
      p99Ms: load.latency.p99,
      rssMb: peakRssMb,
    });
    const failed = Object.values(load.failures).reduce((a, b) => a + b, 0);
    if (failed > 0) input.log(`  scaled reads: ${failed} answers did not count (${JSON.stringify(load.failures)})`);
  } finally {
    await second.service.stop();
  }

  input.log('scale: first launch with no read model (every projection replays the log, then builds its indexes)…');
  const bare = await launchWithoutReadModels(input.dataDir, synth.lastAcceptanceId, startTimeoutMs(input.count));
  rows.push({ figure: `scale ${n}: first launch, no read models → first /api/ready`, seconds: bare.readyS });
  rows.push({ figure: `scale ${n}: first launch, no read models → first public read of the last one`, seconds: bare.firstReadS });
  rows.push({ figure: `scale ${n}: first launch, no read models → indexes built, service idle`, seconds: bare.idleS, rssMb: bare.rssMb });
  rows.push({ figure: `scale ${n}: first launch, no read models: longest GET /api/health answer meanwhile`, seconds: bare.longestHealthMs / 1000 });
  return rows;
}
