/**
 * `npm run bench`: the service's throughput on its embedded default next to this machine's ceilings, all measured
 * in one run, printed as one table, then where the service spends its time during acceptances.
 *
 *   npm run bench                               BENCH_SECONDS (10) per load figure, BENCH_CONCURRENCY (32) clients;
 *                                               batched acceptances for BENCH_BATCHED_SECONDS (60: a sustained rate)
 *   BENCH_SCALE=1000000 npm run bench           adds the scale figures on 1,000,000 synthesized acceptances
 *   node dist/test/bench/run-bench.js --smoke   about one second per figure and a tiny scale (200)
 *
 * The service, the load generator and the bare Fastify server each run in their own process. Each service figure
 * is held against a ceiling measured in the same run, with a target ratio: acceptances ≥ 25 % of raw LiteSVM
 * executions, public summaries ≥ 50 % of bare Fastify GETs, receipts ≥ 25 % of Ed25519 verifications, and reads at
 * scale ≥ 90 % of reads on the small data set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { publishedDocument } from '../support/fixtures';
import { runLoad, withPeakRss } from './children';
import { ed25519Ceiling, fastifyCeiling, ledgerCeiling } from './ceilings';
import { summariseProfile, type ProfileSummary } from './profile-summary';
import type { AcceptanceLoadResult, ConfirmedAcceptance, LoadOutcome } from './protocol';
import { measureScale } from './scale';
import { launchService, type BenchService } from './service';
import { synthesisTarget, type SynthesisTarget } from './synthesize';
import { renderTable, type Row } from './table';

/** Run settings, from the environment and `--smoke`. */
export interface BenchOptions {
  smoke: boolean;
  /** Seconds per load figure. */
  seconds: number;
  /** Seconds of the batched acceptance load: long enough for batches to close and anchor during it. */
  batchedSeconds: number;
  /** Seconds per in-process ceiling. */
  ceilingSeconds: number;
  /** Concurrent clients (connections) of every load figure. */
  concurrency: number;
  /** Synthesized acceptances for the scale figures; 0 leaves them out. */
  scale: number;
  /** Seconds of acceptance load under the CPU profiler. */
  profileSeconds: number;
}

const REQUEST_ORIGIN = 'https://bench.example.com';

function positive(name: string, fallback: number, allowZero = false): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) throw new Error(`${name}: expected a ${allowZero ? 'non-negative' : 'positive'} number, got ${JSON.stringify(raw)}`);
  return value;
}

/** @throws Error naming the variable when BENCH_SECONDS, BENCH_CONCURRENCY or BENCH_SCALE is malformed. */
export function benchOptions(argv: readonly string[]): BenchOptions {
  const smoke = argv.includes('--smoke');
  const seconds = positive('BENCH_SECONDS', smoke ? 1 : 10);
  return {
    smoke,
    seconds,
    batchedSeconds: positive('BENCH_BATCHED_SECONDS', smoke ? 1 : 60),
    ceilingSeconds: smoke ? 0.3 : Math.min(2, seconds),
    concurrency: Math.round(positive('BENCH_CONCURRENCY', 32)),
    scale: Math.round(positive('BENCH_SCALE', smoke ? 200 : 0, true)),
    profileSeconds: smoke ? 1 : Math.min(5, seconds),
  };
}

const startedAt = Date.now();
const log = (line: string) => process.stderr.write(`[${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
const failuresOf = (o: LoadOutcome) => Object.entries(o.failures).map(([k, v]) => `${k} ×${v}`).join(', ');

/**
 * Acceptances whose transaction the ledger reports executed without error (any commitment), asked as any client
 * would: Solana JSON-RPC `getSignatureStatuses` with `searchTransactionHistory`, at most 256 signatures a call.
 * @throws Error when the endpoint answers with an error.
 */
async function executedOnLedger(rpcUrl: string, confirmed: readonly ConfirmedAcceptance[]): Promise<ConfirmedAcceptance[]> {
  const executed: ConfirmedAcceptance[] = [];
  for (let i = 0; i < confirmed.length; i += 256) {
    const chunk = confirmed.slice(i, i + 256);
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'getSignatureStatuses', params: [chunk.map((c) => c.transactionSignature ?? ''), { searchTransactionHistory: true }] }),
    });
    const body = (await res.json()) as { result?: { value: ({ err: unknown } | null)[] }; error?: { message: string } };
    if (!body.result) throw new Error(`getSignatureStatuses: ${body.error?.message ?? `HTTP ${res.status}`}`);
    body.result.value.forEach((status, j) => {
      if (status !== null && status.err === null) executed.push(chunk[j]!);
    });
  }
  return executed;
}

/**
 * Batched acceptances whose public record shows their anchoring transaction (spec §2.3), asked until `timeoutMs`:
 * a batch closes within BATCH_WINDOW_MS (10 s), so every acceptance answered `pending_batch` should be anchored soon
 * after the load ends. Returns the anchored ones and their anchoring transactions.
 */
async function anchoredAcceptances(origin: string, pending: readonly ConfirmedAcceptance[], timeoutMs: number): Promise<{ anchored: string[]; transactions: Set<string> }> {
  const anchored: string[] = [];
  const transactions = new Set<string>();
  let waiting = [...pending];
  const deadline = Date.now() + timeoutMs;
  while (waiting.length > 0 && Date.now() < deadline) {
    const still: ConfirmedAcceptance[] = [];
    for (let i = 0; i < waiting.length; i += 64) {
      const chunk = waiting.slice(i, i + 64);
      const answers = await Promise.all(
        chunk.map(async (c) => {
          const res = await fetch(`${origin}/api/v1/public/acceptances/${c.acceptanceId}`);
          return res.ok ? ((await res.json()) as { acceptance: { transactionSignature: string | null } }).acceptance.transactionSignature : null;
        }),
      );
      answers.forEach((signature, j) => {
        if (signature === null) still.push(chunk[j]!);
        else {
          anchored.push(chunk[j]!.acceptanceId);
          transactions.add(signature);
        }
      });
    }
    waiting = still;
    if (waiting.length > 0) await new Promise((r) => setTimeout(r, 500));
  }
  return { anchored, transactions };
}

/** How many of `ids` have a receipt the service answers 200 (its verifier found it VALID or VALID_WITH_WARNINGS). */
async function verifiedReceipts(origin: string, ids: readonly string[], concurrency: number): Promise<number> {
  let next = 0;
  let verified = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      const res = await fetch(`${origin}/api/v1/public/acceptances/${id}/receipt`);
      await res.arrayBuffer();
      if (res.status === 200) verified++;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return verified;
}

interface ServiceFigures {
  rows: Row[];
  notes: string[];
  profile: ProfileSummary;
  profileFile: string;
  clientSide: AcceptanceLoadResult;
  target: SynthesisTarget;
  smallReadsPerSecond: number;
}

/** Acceptances, public reads and the profiled acceptance load, on one running service. */
async function serviceFigures(service: BenchService, options: BenchOptions, ceilings: { ledger: number; fastify: number; ed25519: number }): Promise<ServiceFigures> {
  const rows: Row[] = [];
  const notes: string[] = [];
  log('publishing the Terms of Service v1 …');
  const doc = await publishedDocument({ baseUrl: service.origin, rpcUrl: service.rpcUrl }, [1]);
  const version = doc.versions[0]!;
  const job = { kind: 'acceptances', origin: service.origin, organization: doc.organization.address, document: doc.document.address, requestOrigin: REQUEST_ORIGIN, concurrency: options.concurrency } as const;

  log(`wallet acceptances for ${options.seconds} s at concurrency ${options.concurrency} …`);
  const { value: acc, peakRssMb: accRss } = await withPeakRss(service.pid, () => runLoad({ ...job, seconds: options.seconds }));
  const executed = await executedOnLedger(service.rpcUrl, acc.confirmed);
  if (executed.length === 0) throw new Error(`no acceptance was confirmed and executed on the ledger (${failuresOf(acc)})`);
  rows.push({
    figure: `wallet acceptances, direct mode (challenge + sign + submit, c=${options.concurrency})`,
    perSecond: executed.length / acc.seconds,
    ceiling: ceilings.ledger,
    targetPercent: 25,
    p50Ms: acc.latency.p50,
    p99Ms: acc.latency.p99,
    rssMb: accRss,
  });
  notes.push(`acceptances: ${acc.confirmed.length} answered confirmed, ${executed.length} executed on the ledger, ${acc.seconds.toFixed(1)} s${failuresOf(acc) ? `; not counted: ${failuresOf(acc)}` : ''}`);

  // One client, no queueing: the latency floor of an acceptance (the rest of the c=32 latency is waiting).
  log('one wallet acceptance at a time …');
  const { value: single, peakRssMb: singleRss } = await withPeakRss(service.pid, () => runLoad({ ...job, concurrency: 1, seconds: options.seconds }));
  const singleExecuted = await executedOnLedger(service.rpcUrl, single.confirmed);
  rows.push({ figure: 'wallet acceptances, one client (latency floor, c=1)', perSecond: singleExecuted.length / single.seconds, p50Ms: single.latency.p50, p99Ms: single.latency.p99, rssMb: singleRss });

  const ids = executed.map((c) => c.acceptanceId);
  const reads = async (suffix: string) => withPeakRss(service.pid, () => runLoad({ kind: 'http', origin: service.origin, paths: ids.map((id) => `/api/v1/public/acceptances/${id}${suffix}`), connections: options.concurrency, seconds: options.seconds }));
  log('public acceptance summaries …');
  const { value: summary, peakRssMb: summaryRss } = await reads('');
  const smallReadsPerSecond = summary.ok / summary.seconds;
  rows.push({ figure: 'GET /v1/public/acceptances/{id}', perSecond: smallReadsPerSecond, ceiling: ceilings.fastify, targetPercent: 50, p50Ms: summary.latency.p50, p99Ms: summary.latency.p99, rssMb: summaryRss });
  if (failuresOf(summary)) notes.push(`summary reads not counted: ${failuresOf(summary)}`);

  log('public receipts (receipt + live verification report) …');
  const { value: receipt, peakRssMb: receiptRss } = await reads('/receipt');
  rows.push({ figure: 'GET /v1/public/acceptances/{id}/receipt (with report)', perSecond: receipt.ok / receipt.seconds, ceiling: ceilings.ed25519, targetPercent: 25, p50Ms: receipt.latency.p50, p99Ms: receipt.latency.p99, rssMb: receiptRss });
  if (failuresOf(receipt)) notes.push(`receipt reads not counted: ${failuresOf(receipt)}`);

  log(`CPU profile of the service over ${options.profileSeconds} s of acceptances …`);
  const profileFile = path.join(tmpdir(), `svc-bench-${process.pid}-acceptances.cpuprofile`);
  await service.startProfile();
  const clientSide = await runLoad({ ...job, seconds: options.profileSeconds });
  await service.stopProfile(profileFile);

  log(`wallet acceptances with batched evidence (MERKLE_BATCHED) for ${options.batchedSeconds} s …`);
  const settings = `/v1/organizations/${doc.organization.id}/settings`;
  await doc.dashboard.request('PATCH', settings, { evidenceMode: 'MERKLE_BATCHED' });
  const { value: batched, peakRssMb: batchedRss } = await withPeakRss(service.pid, () => runLoad({ ...job, expectStatus: 'pending_batch', seconds: options.batchedSeconds }));
  const { anchored, transactions } = await anchoredAcceptances(service.origin, batched.confirmed, 60_000);
  // Every anchored acceptance's svc-receipt/2 is read back: the service's own verifier answers 422 for one that does not verify.
  log(`reading back the receipts of the ${anchored.length} anchored acceptances …`);
  const verified = await verifiedReceipts(service.origin, anchored, options.concurrency);
  rows.push({
    figure: `wallet acceptances, batched over ${options.batchedSeconds} s (answered pending_batch, counted once anchored, c=${options.concurrency})`,
    perSecond: anchored.length / batched.seconds,
    p50Ms: batched.latency.p50,
    p99Ms: batched.latency.p99,
    rssMb: batchedRss,
  });
  notes.push(
    `batched: ${batched.confirmed.length} answered pending_batch, ${anchored.length} anchored by ${transactions.size} transactions, ${verified} of ${anchored.length} svc-receipt/2 receipts verified by the service${failuresOf(batched) ? `; not counted: ${failuresOf(batched)}` : ''}`,
  );
  await doc.dashboard.request('PATCH', settings, { evidenceMode: 'DIRECT_ONCHAIN' });

  const network = (await (await fetch(`${service.origin}/api/v1/network`)).json()) as { chainId: string };
  const target = synthesisTarget(doc, version, network.chainId, new URL(REQUEST_ORIGIN).host);
  return { rows, notes, profile: summariseProfile(profileFile), profileFile, clientSide, target, smallReadsPerSecond };
}

function breakdown(f: ServiceFigures, options: BenchOptions): string {
  const busy = f.profile.stages.filter((s) => !s.stage.startsWith('idle')).reduce((a, s) => a + s.percent, 0);
  const c = f.clientSide;
  const cpuPerAcceptance = c.ok > 0 ? (f.profile.totalMs * busy) / 100 / c.ok : null;
  const lines = [
    `Where an acceptance's time goes: CPU profile of the service over ${options.profileSeconds} s of acceptances at c=${options.concurrency}`,
    `(${c.ok} confirmed, ${(c.ok / c.seconds).toFixed(0)}/s under the profiler; service busy ${busy.toFixed(0)}% of one core` +
      (cpuPerAcceptance === null ? '' : `, ${cpuPerAcceptance.toFixed(1)} ms of service CPU per acceptance, so at most ${(1000 / cpuPerAcceptance).toFixed(0)}/s on one core`) +
      `; profile: ${f.profileFile})`,
    ...f.profile.stages.map((s) => `  ${s.percent.toFixed(1).padStart(5)}%  ${s.stage}`),
    `  client side: challenge p50 ${c.challengeLatency.p50.toFixed(1)} ms, p99 ${c.challengeLatency.p99.toFixed(1)} ms; submit (verify, record, relay, wait for projections) p50 ${c.submitLatency.p50.toFixed(1)} ms, p99 ${c.submitLatency.p99.toFixed(1)} ms`,
    '  top self time:',
    ...f.profile.top.map((t) => `    ${t.percent.toFixed(1).padStart(5)}%  ${t.name}  ${t.where}`),
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const options = benchOptions(process.argv.slice(2));
  const cpu = cpus();
  const header = `benchmark${options.smoke ? ' (smoke)' : ''}: Node ${process.version}, ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, load average ${loadavg()[0]!.toFixed(2)} at start; ${options.seconds} s per load figure, ${options.concurrency} concurrent clients; load from a separate process`;
  log(header);

  log('ceilings …');
  const ed25519 = ed25519Ceiling(options.ceilingSeconds);
  const ledger = ledgerCeiling(options.ceilingSeconds);
  const fastify = await fastifyCeiling(options.concurrency, options.seconds);
  const fastifyPerSecond = fastify.load.ok / fastify.load.seconds;
  const rows: Row[] = [
    { figure: 'ceiling: raw LiteSVM executions (acceptance tx: Ed25519 precompile + memo)', perSecond: ledger },
    { figure: 'ceiling: node:crypto Ed25519 verifications (one core)', perSecond: ed25519 },
    { figure: 'ceiling: bare Fastify JSON GET (separate process; RSS of that server)', perSecond: fastifyPerSecond, p50Ms: fastify.load.latency.p50, p99Ms: fastify.load.latency.p99, rssMb: fastify.peakRssMb },
  ];

  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-'));
  let notes: string[] = [];
  let figures: ServiceFigures | undefined;
  try {
    log('starting the service …');
    // The smoke run keeps batches short (1 s) so that anchoring does not outlast its one-second figures.
    const service = await launchService({ dataDir, env: options.smoke ? { BATCH_WINDOW_MS: '1000' } : {} });
    try {
      figures = await serviceFigures(service, options, { ledger, fastify: fastifyPerSecond, ed25519 });
    } finally {
      await service.stop();
    }
    rows.push(...figures.rows);
    notes = figures.notes;
    if (options.scale > 0) {
      rows.push(
        ...(await measureScale({ dataDir, target: figures.target, count: options.scale, connections: options.concurrency, seconds: options.seconds, smallReadsPerSecond: figures.smallReadsPerSecond, log })),
      );
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }

  process.stdout.write(`${header}\n${renderTable(rows)}\n`);
  for (const note of notes) process.stdout.write(`note: ${note}\n`);
  if (options.scale > 0) process.stdout.write(`note: scale rows use ${options.scale} acceptances synthesized, not relayed, into the event store (valid event chains and signer signatures; their transactions never reached the ledger)\n`);
  process.stdout.write(`\n${breakdown(figures, options)}\n`);
}

void main().catch((err: unknown) => {
  process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
