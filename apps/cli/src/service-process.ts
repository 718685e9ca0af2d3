import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { apiMain } from './paths';

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether `port` on the loopback interface can be listened on now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The service started as a child process on its embedded default. */
export interface RunningService {
  baseUrl: string;
  rpcUrl: string;
  process: ChildProcess;
  /** Lines the service wrote to stderr (for diagnostics when it fails to start). */
  stderr: string[];
  /** Everything the service logged to stdout, when started with `captureLogs` (else empty). */
  stdout: string[];
  stop(): Promise<void>;
}

/**
 * Starts `dist/apps/api/src/main.js` with `DATA_DIR` and `PORT`, and waits until `GET /api/ready` answers 200
 * (bounded by `timeoutMs`). With `captureLogs`, its stdout (the structured log) is kept in `stdout`.
 * @throws Error when the port is in use (whatever answers there is not the service started here), when the service
 *   exits, or when it is not ready in time.
 */
export async function startService(options: { dataDir: string; port?: number; env?: Record<string, string>; timeoutMs?: number; captureLogs?: boolean }): Promise<RunningService> {
  if (options.port !== undefined && !(await portFree(options.port))) {
    throw new Error(`port ${options.port} is in use on 127.0.0.1: stop what listens there or choose another port`);
  }
  const port = options.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [apiMain()], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...options.env, DATA_DIR: options.dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: baseUrl },
    stdio: ['ignore', options.captureLogs ? 'pipe' : 'ignore', 'pipe'],
  });
  const stdout: string[] = [];
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => stdout.push(chunk));
  const stderr: string[] = [];
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr.push(chunk);
    if (stderr.length > 200) stderr.shift();
  });
  let exited: number | null = null;
  child.on('exit', (code) => {
    exited = code ?? -1;
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (exited !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    });
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (exited !== null) throw new Error(`the service exited with code ${exited}: ${stderr.join('').slice(-2000)}`);
    try {
      const res = await fetch(`${baseUrl}/api/ready`);
      // Only while the child runs: a process that took the port meanwhile could answer in its place.
      if (res.status === 200 && exited === null) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the service was not ready within ${options.timeoutMs ?? 60_000} ms: ${stderr.join('').slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  return { baseUrl, rpcUrl: `${baseUrl}/rpc`, process: child, stderr, stdout, stop };
}
