/**
 * Summary of a V8 CPU profile (`.cpuprofile`, Chrome DevTools format) of the service: where its CPU time went,
 * by stage of the acceptance path, and the functions with the most self time.
 *
 * Each sample is given to the stage of the frame nearest the top of its stack (the code running) that
 * belongs to a known stage, walking down towards the root; e.g. ajv called from an event-store append counts as
 * "event schema validation", the native SQLite step under the append counts as "event store commits".
 */
import { readFileSync } from 'node:fs';
import type { Profiler, Runtime } from 'node:inspector';

/** One stage's share of the profiled time. */
export interface StageShare {
  stage: string;
  ms: number;
  /** Percent of all samples (idle included). */
  percent: number;
}

/** A function with its self time. */
export interface HotFunction {
  name: string;
  /** `file:line` (file relative to the project, or the package name). */
  where: string;
  ms: number;
  percent: number;
}

export interface ProfileSummary {
  totalMs: number;
  stages: StageShare[];
  top: HotFunction[];
}

type Frame = Runtime.CallFrame;

/** Placeholder stage, split by {@link eventStoreStage} into commits, stream loads and subscription reads. */
const EVENT_STORE = 'event store';

/** Which event-store work a stack is doing, from the event store's entry point on it. */
function eventStoreStage(stack: readonly Frame[]): string {
  // Appends are grouped by the append batcher, whose flush runs the inserts and then the COMMIT itself.
  const committing = (f: Frame) => (/^(appendSync|appendInTransaction|append|committing)$/.test(f.functionName) && /event-store/.test(f.url)) || /append-batcher/.test(f.url);
  if (stack.some(committing)) return 'event store commits (SQLite append, hashing)';
  if (stack.some((f) => /^readStream$/.test(f.functionName) && /event-store/.test(f.url))) return 'event store stream loads (command handlers)';
  return 'event store subscription reads';
}

/** Stage rules, tried in this order on each frame from the top of the stack down. */
const STAGES: ReadonlyArray<readonly [string, (f: Frame) => boolean]> = [
  ['idle (waiting for I/O or timers)', (f) => f.functionName === '(idle)'],
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['event schema validation (ajv)', (f) => /\/ajv\/|event-schema-registry/.test(f.url) || /^validate\d*$/.test(f.functionName)],
  ['ledger execution (LiteSVM + journal)', (f) => /\/litesvm\/|\/libs\/ledger\/src\/embedded\//.test(f.url)],
  [EVENT_STORE, (f) => /\/libs\/event-store\/src\//.test(f.url)],
  ['projections and read store', (f) => /\/libs\/read-store\/src\/|\/projections\/|@seald-io\/nedb|\/sift\//.test(f.url)],
  ['Ed25519 sign/verify (node:crypto)', (f) => /internal\/crypto\/(sig|keys|keygen)|\/libs\/evidence\/src\/signatures/.test(f.url)],
  ['receipt build and verification', (f) => /\/libs\/evidence\/src\/(receipt|verifier)|canonicalize/.test(f.url)],
  ['ledger JSON-RPC and client', (f) => /\/libs\/ledger\/src\/rpc\//.test(f.url)],
  ['logging (pino)', (f) => /\/pino|nestjs-pino|thread-stream|sonic-boom/.test(f.url)],
  ['service code (handlers, evidence encoding)', (f) => /\/apps\/api\/src\/|\/libs\/(application|evidence|domain|http|config)\/src\//.test(f.url)],
  [
    'HTTP pipeline (Fastify, Nest, validation)',
    (f) => /\/fastify\/|@fastify\/|\/@nestjs\/|find-my-way|avvio|class-validator|class-transformer|light-my-request|fast-json-stringify|\brxjs\b|node:_http|internal\/http|node:net|internal\/stream|node:stream/.test(f.url),
  ],
];
const OTHER = 'other (Node internals, JSON, native)';
/** Samples taken while the benchmark's own host serialises the profile are not the service's work. */
const isProfilerHost = (f: Frame) => /test\/bench\/service-host/.test(f.url);

/** `…/node_modules/<pkg>/…` → `<pkg>/…`; `…/dist/<path>` → `<path>`; node internals as they are. */
function shortUrl(url: string): string {
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) return url.slice(nm + '/node_modules/'.length);
  const dist = url.search(/\/(apps|libs|projections|test)\//);
  if (dist >= 0) return url.slice(dist + 1);
  return url.replace(/^file:\/\//, '') || '(native)';
}

/**
 * Reads and summarises a `.cpuprofile` file.
 * @param topCount how many functions to list by self time.
 * @throws Error when the file is not a V8 CPU profile.
 */
export function summariseProfile(file: string, topCount = 8): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profiler.Profile;
  if (!Array.isArray(profile.nodes) || !Array.isArray(profile.samples) || !Array.isArray(profile.timeDeltas)) throw new Error(`${file} is not a V8 CPU profile`);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const ancestors = function* (id: number): Generator<Frame> {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame) yield frame;
    }
  };
  const stageOfNode = new Map<number, string | null>();
  /** The sample's stage, or null for the profiler's own work. */
  const stageOf = (id: number): string | null => {
    const known = stageOfNode.get(id);
    if (known !== undefined) return known;
    const frames = [...ancestors(id)];
    const stage = frames.map((f) => STAGES.find(([, matches]) => matches(f))?.[0]).find((s) => s !== undefined) ?? OTHER;
    const result = frames.some(isProfilerHost) ? null : stage === EVENT_STORE ? eventStoreStage(frames) : stage;
    stageOfNode.set(id, result);
    return result;
  };
  /** Where a frame runs: its own file, or for native code the nearest caller that has one. */
  const whereOf = (id: number): string => {
    for (const frame of ancestors(id)) if (frame.url) return `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
    return '(native)';
  };

  const stageUs = new Map<string, number>();
  const selfUs = new Map<number, number>();
  let totalUs = 0;
  // timeDeltas[i] is the time before sample i; attribute it to the sample it ends (V8's convention).
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    const us = Math.max(0, profile.timeDeltas[i] ?? 0);
    const stage = stageOf(id);
    if (stage === null) continue;
    totalUs += us;
    stageUs.set(stage, (stageUs.get(stage) ?? 0) + us);
    selfUs.set(id, (selfUs.get(id) ?? 0) + us);
  }

  const pct = (us: number) => (totalUs > 0 ? (100 * us) / totalUs : 0);
  const stages = [...stageUs.entries()].map(([stage, us]) => ({ stage, ms: us / 1000, percent: pct(us) })).sort((a, b) => b.ms - a.ms);

  const byFunction = new Map<string, HotFunction>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)') continue;
    const name = frame.functionName || '(anonymous)';
    const where = frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : `native, called from ${whereOf(id)}`;
    const key = `${name}@${where}`;
    const entry = byFunction.get(key) ?? { name, where, ms: 0, percent: 0 };
    entry.ms += us / 1000;
    entry.percent = pct(entry.ms * 1000);
    byFunction.set(key, entry);
  }
  const top = [...byFunction.values()].sort((a, b) => b.ms - a.ms).slice(0, topCount);
  return { totalMs: totalUs / 1000, stages, top };
}
