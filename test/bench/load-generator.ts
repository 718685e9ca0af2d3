/**
 * Child-process entry of the load generator: receives one {@link LoadJob} over IPC, runs it, answers with
 * its {@link LoadResult} (or a {@link ChildFailure}) and exits. Started by `children.ts`.
 */
import { generateKeyPairSync, KeyObject, sign } from 'node:crypto';
import { Agent, request } from 'node:http';
import autocannon from 'autocannon';
import { build as buildHistogram, type Histogram } from 'hdr-histogram-js';
import { bytesToBase58 } from '@svc/evidence';
import type { AcceptanceLoadJob, AcceptanceLoadResult, ChildFailure, ConfirmedAcceptance, HttpLoadJob, HttpLoadResult, LoadJob, LoadResult, Percentiles } from './protocol';

/** Latencies are recorded in microseconds, up to one minute. */
const newHistogram = (): Histogram => buildHistogram({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });
const percentiles = (h: Histogram): Percentiles => ({ p50: h.getValueAtPercentile(50) / 1000, p99: h.getValueAtPercentile(99) / 1000 });

/** Reads under autocannon: only 2xx answers count. */
async function httpLoad(job: HttpLoadJob): Promise<HttpLoadResult> {
  const pick = () => job.paths[Math.floor(Math.random() * job.paths.length)]!;
  const result = await autocannon({
    url: job.origin,
    connections: job.connections,
    duration: job.seconds,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: pick() }) }],
  });
  const failures: Record<string, number> = {};
  if (result.non2xx > 0) failures.non_2xx = result.non2xx;
  if (result.errors > 0) failures.connection = result.errors;
  if (result.timeouts > 0) failures.timeout = result.timeouts;
  return {
    kind: 'http',
    ok: result['2xx'],
    failures,
    seconds: result.duration,
    latency: { p50: result.latency.p50, p99: result.latency.p99 },
  };
}

interface JsonAnswer {
  status: number;
  body: unknown;
}

/** One JSON request over a keep-alive agent. Rejects on a connection error only. */
function jsonRequest(agent: Agent, origin: string, method: 'POST', path: string, body: object, headers: Record<string, string>): Promise<JsonAnswer> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      `${origin}${path}`,
      { method, agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let parsed: unknown = null;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            parsed = null;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const field = (value: unknown, name: string): unknown => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined);
const text = (value: unknown, name: string): string | undefined => {
  const v = field(value, name);
  return typeof v === 'string' ? v : undefined;
};
/**
 * A fresh Ed25519 key pair: the signer's address (base58 of the raw public key, RFC 8037 `x` of its JWK) and the
 * private key. The JWK is encoded by the key generation itself (node:crypto, Node ≥ 15.12), about three times
 * cheaper than a DER export, and this process shares the machine's cores with the service it measures. Not
 * `publicKey.export({format: 'jwk'})`: in Node 20 that export holds the key's lock while it allocates, and a
 * garbage collection that then finalizes the job which generated the key waits for the same lock, which
 * deadlocked the generator's thread (seen at 64 clients). @types/node declares only PEM and DER encodings for this
 * call, hence the checked call through `Reflect.apply`.
 */
function freshSigner(): { signer: string; privateKey: KeyObject } {
  const pair: unknown = Reflect.apply(generateKeyPairSync, undefined, ['ed25519', { publicKeyEncoding: { format: 'jwk' } }]);
  const x = text(field(pair, 'publicKey'), 'x');
  const privateKey = field(pair, 'privateKey');
  if (x === undefined || !(privateKey instanceof KeyObject)) throw new Error('node:crypto did not return an Ed25519 key pair with a JWK public key');
  return { signer: bytesToBase58(new Uint8Array(Buffer.from(x, 'base64url'))), privateKey };
}

/** `http_<status>:<error code>` of an API error answer (spec §7 envelope `{error: {code, message}}`). */
const reasonOf = (answer: JsonAnswer): string => `http_${answer.status}:${text(field(answer.body, 'error'), 'code') ?? 'no_code'}`;

/**
 * Challenge + sign + submit loops. An acceptance counts only when the submit answer is 200 with
 * `status: "confirmed"` and a transaction signature (spec §4.4); the caller then checks each signature
 * on the ledger.
 */
async function acceptanceLoad(job: AcceptanceLoadJob): Promise<AcceptanceLoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: job.concurrency });
  const total = newHistogram();
  const challengeH = newHistogram();
  const submitH = newHistogram();
  const confirmed: ConfirmedAcceptance[] = [];
  const failures: Record<string, number> = {};
  const fail = (reason: string) => {
    failures[reason] = (failures[reason] ?? 0) + 1;
  };
  const headers = { origin: job.requestOrigin };
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(job.seconds * 1e9));
  const micros = (from: bigint) => Number((process.hrtime.bigint() - from) / 1000n);

  const loop = async () => {
    while (process.hrtime.bigint() < deadline) {
      const { signer, privateKey } = freshSigner();
      const t0 = process.hrtime.bigint();
      try {
        const challenge = await jsonRequest(agent, job.origin, 'POST', '/api/v1/acceptance/challenges', { organization: job.organization, document: job.document, signer }, headers);
        challengeH.recordValue(micros(t0));
        const challengeId = text(challenge.body, 'challengeId');
        const message = text(challenge.body, 'message');
        const clientBinding = text(challenge.body, 'clientBinding');
        if (challenge.status !== 200 || !challengeId || !message || !clientBinding) {
          fail(reasonOf(challenge));
          continue;
        }
        const signature = bytesToBase58(new Uint8Array(sign(null, Buffer.from(message, 'utf8'), privateKey)));
        const t1 = process.hrtime.bigint();
        const submit = await jsonRequest(agent, job.origin, 'POST', `/api/v1/acceptance/challenges/${challengeId}/submit`, { clientBinding, signature }, headers);
        submitH.recordValue(micros(t1));
        const acceptanceId = text(submit.body, 'acceptanceId');
        const transactionSignature = text(submit.body, 'transactionSignature');
        const expected = job.expectStatus ?? 'confirmed';
        // A batched answer carries no transaction yet; a direct one must.
        const complete = expected === 'pending_batch' ? transactionSignature === undefined : Boolean(transactionSignature);
        if (submit.status !== 200) fail(reasonOf(submit));
        else if (text(submit.body, 'status') !== expected || !acceptanceId || !complete) fail(`not_${expected}:${text(submit.body, 'status') ?? 'none'}`);
        else {
          total.recordValue(micros(t0));
          confirmed.push({ acceptanceId, transactionSignature: transactionSignature ?? null });
        }
      } catch {
        fail('connection');
      }
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, loop));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  return {
    kind: 'acceptances',
    ok: confirmed.length,
    failures,
    seconds,
    latency: percentiles(total),
    confirmed,
    challengeLatency: percentiles(challengeH),
    submitLatency: percentiles(submitH),
  };
}

function run(job: LoadJob): Promise<LoadResult> {
  switch (job.kind) {
    case 'http':
      return httpLoad(job);
    case 'acceptances':
      return acceptanceLoad(job);
    default: {
      const never: never = job;
      throw new Error(`unknown load job ${JSON.stringify(never)}`);
    }
  }
}

process.once('message', (job: LoadJob) => {
  run(job)
    .catch((err: unknown): ChildFailure => ({ kind: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) }))
    .then((answer) => process.send?.(answer, () => process.disconnect()));
});
