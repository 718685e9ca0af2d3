/**
 * Parent side of the benchmark's child processes: the load generator and the bare Fastify server.
 * Each runs in its own Node process so that no two measured parties share an event loop.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { AcceptanceLoadJob, AcceptanceLoadResult, ChildFailure, HttpLoadJob, HttpLoadResult, ListeningMessage, LoadJob, LoadResult } from './protocol';

/**
 * Resident set size of a process in MB (MiB), read from `/proc/<pid>/status` (`VmRSS`, Linux).
 * @returns null where `/proc` is absent or the process is gone.
 */
export function rssMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc; null when unreadable. */
export function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // Fields after the command name (which may hold spaces, so split after its closing parenthesis): utime is the
    // 12th, stime the 13th, in clock ticks (100 per second on Linux).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * Waits until a process is idle: less than `busyFraction` of a core over one second (the service's projections and
 * processors have caught up with the log). @returns seconds waited, or null when it never settled within `timeoutS`.
 */
export async function untilIdle(pid: number | undefined, timeoutS: number, busyFraction = 0.1): Promise<number | null> {
  const started = Date.now();
  let before = cpuSeconds(pid);
  if (before === null) return null;
  while (Date.now() - started < timeoutS * 1000) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = cpuSeconds(pid);
    if (now === null) return null;
    if (now - before < busyFraction) return (Date.now() - started) / 1000;
    before = now;
  }
  return null;
}

/** Highest RSS of a process seen while a task runs, sampled every 200 ms (MB; null when unreadable). */
export async function withPeakRss<T>(pid: number | undefined, task: () => Promise<T>): Promise<{ value: T; peakRssMb: number | null }> {
  let peak: number | null = rssMb(pid);
  const sample = () => {
    const now = rssMb(pid);
    if (now !== null && (peak === null || now > peak)) peak = now;
  };
  const timer = setInterval(sample, 200);
  try {
    const value = await task();
    sample();
    return { value, peakRssMb: peak };
  } finally {
    clearInterval(timer);
  }
}

/** Resolves with the first IPC message of a child; rejects when it exits first. */
export function firstMessage<T>(child: ChildProcess, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${what} exited (code ${code}) before answering`));
    child.once('exit', onExit);
    child.once('message', (message: T) => {
      child.off('exit', onExit);
      resolve(message);
    });
  });
}

const isFailure = (m: unknown): m is ChildFailure => typeof m === 'object' && m !== null && (m as { kind?: unknown }).kind === 'error';

/** How long past its job's duration a load generator may take to answer before it is taken to hang, in seconds. */
const LOAD_ANSWER_GRACE_S = 120;

/**
 * Runs one load job in a fresh load-generator process and returns its result.
 * @throws Error when the generator fails, exits without answering, or has not answered
 *   {@link LOAD_ANSWER_GRACE_S} seconds after its job's duration (it is then killed, so a hung generator cannot hold
 *   up a whole run).
 */
export async function runLoad(job: HttpLoadJob): Promise<HttpLoadResult>;
export async function runLoad(job: AcceptanceLoadJob): Promise<AcceptanceLoadResult>;
export async function runLoad(job: LoadJob): Promise<LoadResult> {
  const child = fork(path.join(__dirname, 'load-generator.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const answer = firstMessage<LoadResult | ChildFailure>(child, 'the load generator');
  const limitS = job.seconds + LOAD_ANSWER_GRACE_S;
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the load generator did not answer within ${limitS} s of starting a ${job.seconds} s job (killed)`));
    }, limitS * 1000);
  });
  child.send(job);
  const result = await Promise.race([answer, hung]).finally(() => clearTimeout(timer));
  if (isFailure(result)) throw new Error(`load generator: ${result.message}`);
  if (result.kind !== job.kind) throw new Error(`load generator answered ${result.kind} to a ${job.kind} job`);
  return result;
}

/** A running bare Fastify server (see `bare-fastify-server.ts`). */
export interface BareServer {
  origin: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Starts the bare Fastify server in its own process. @throws Error when it exits before listening. */
export async function startBareFastify(): Promise<BareServer> {
  const child = fork(path.join(__dirname, 'bare-fastify-server.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await firstMessage<ListeningMessage>(child, 'the bare Fastify server');
  return {
    origin: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: () => stopChild(child),
  };
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the child has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}
