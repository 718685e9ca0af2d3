/**
 * The service under measurement: the compiled API (`dist/apps/api/src/main.js`, found relative to this
 * compiled file so that the benchmark can run from any build directory) hosted by `service-host.js` in its
 * own process, on the embedded default (SQLite event store, embedded read store, LiteSVM ledger).
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { freePort } from '../../apps/cli/src/service-process';
import { firstMessage, rssMb, stopChild } from './children';
import type { HostCommand, HostReply } from './protocol';

/** Rate limits out of the way: the benchmark measures throughput, not the limiter (spec §8 limits stay the default elsewhere). */
export const UNLIMITED_RATES: Record<string, string> = {
  RATE_LIMIT_GENERAL_PER_MINUTE: '100000000',
  RATE_LIMIT_ACCEPTANCE_PER_MINUTE: '100000000',
  RATE_LIMIT_SIGNIN_PER_MINUTE: '100000000',
};

/** A running service process. */
export interface BenchService {
  /** `http://127.0.0.1:<port>` (the API is under `/api`, the ledger's JSON-RPC at `/rpc`). */
  origin: string;
  rpcUrl: string;
  pid: number | undefined;
  /** Milliseconds from the spawn of the process to its first `200` on `GET /api/ready`. */
  readyMs: number;
  /** Milliseconds from the spawn until `GET <path>` first answers 200 (polled every 25 ms). @throws Error on timeout. */
  untilOk(pathname: string, timeoutMs: number): Promise<number>;
  /** Current resident set size in MB (null where unreadable). */
  rssMb(): number | null;
  /** Starts a CPU profile of the service. */
  startProfile(): Promise<void>;
  /** Stops the profile and writes it (`.cpuprofile` JSON) to `file`. */
  stopProfile(file: string): Promise<void>;
  /** SIGTERM (graceful shutdown), SIGKILL after 10 s. */
  stop(): Promise<void>;
}

const serviceMain = () => path.resolve(__dirname, '..', '..', 'apps', 'api', 'src', 'main.js');

async function status(url: string): Promise<number> {
  try {
    const res = await fetch(url);
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/**
 * Starts the service on `dataDir` and waits until it is ready (`GET /api/ready` 200, spec §4.1).
 * @throws Error when the process exits or is not ready within `readyTimeoutMs` (default 10 minutes).
 */
export async function launchService(options: { dataDir: string; env?: Record<string, string>; readyTimeoutMs?: number }): Promise<BenchService> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const launched = process.hrtime.bigint();
  const child: ChildProcess = fork(path.join(__dirname, 'service-host.js'), [serviceMain()], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...UNLIMITED_RATES, ...options.env, DATA_DIR: options.dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: origin },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const stderr: string[] = [];
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr.push(chunk);
    if (stderr.length > 100) stderr.shift();
  });
  const sinceLaunch = () => Number(process.hrtime.bigint() - launched) / 1e6;
  const untilOk = async (pathname: string, timeoutMs: number): Promise<number> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the service exited: ${stderr.join('').slice(-2000)}`);
      if ((await status(`${origin}${pathname}`)) === 200) return sinceLaunch();
      if (Date.now() > deadline) throw new Error(`GET ${pathname} did not answer 200 within ${timeoutMs} ms: ${stderr.join('').slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const command = async (cmd: HostCommand, expected: HostReply['kind']): Promise<void> => {
    const reply = firstMessage<HostReply>(child, 'the service');
    child.send(cmd);
    const answer = await reply;
    if (answer.kind === 'error') throw new Error(`service profiler: ${answer.message}`);
    if (answer.kind !== expected) throw new Error(`service host answered ${answer.kind}, expected ${expected}`);
  };
  let readyMs: number;
  try {
    readyMs = await untilOk('/api/ready', options.readyTimeoutMs ?? 10 * 60_000);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  return {
    origin,
    rpcUrl: `${origin}/rpc`,
    pid: child.pid,
    readyMs,
    untilOk,
    rssMb: () => rssMb(child.pid),
    startProfile: () => command({ kind: 'profile:start' }, 'profile:started'),
    stopProfile: (file) => command({ kind: 'profile:stop', file }, 'profile:stopped'),
    stop: () => stopChild(child),
  };
}
