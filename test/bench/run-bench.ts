/**
 * Throughput of the service on its embedded default, next to this machine's ceilings.
 *
 *   npm run bench            (BENCH_SECONDS=10 BENCH_CONCURRENCY=16 to change the load)
 *
 * Prints, in this order:
 * - ceilings: Ed25519 verifications/s with node:crypto, raw LiteSVM executions/s of the acceptance
 *   transaction shape, bare Fastify GETs/s;
 * - wallet acceptances/s (challenge + sign + submit, direct mode, each relayed to the embedded ledger);
 * - public receipt reads/s (`GET /v1/public/acceptances/{id}/receipt`, each verified against the ledger);
 * - public acceptance summary reads/s.
 * The service runs in its own process; the load comes from this one, over loopback.
 */
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { LiteSVM } from 'litesvm';
import { generateKeyPairSigner, getBase58Decoder, lamports } from '@solana/kit';
import { buildAcceptanceTransaction } from '@svc/evidence';
import { ApiClient } from '../../apps/cli/src/api-client';
import { publishedDocument } from '../support/fixtures';
import { startService } from '../../apps/cli/src/service-process';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const b58d = getBase58Decoder();

function line(label: string, value: number, unit: string, note = ''): void {
  process.stdout.write(`${label.padEnd(48)} ${value.toFixed(0).padStart(9)} ${unit}${note ? `  (${note})` : ''}\n`);
}

function ed25519Ceiling(): number {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const msg = Buffer.alloc(600, 7);
  const sig = sign(null, msg, privateKey);
  const deadline = Date.now() + 2_000;
  let n = 0;
  while (Date.now() < deadline) {
    for (let i = 0; i < 100; i++) verify(null, msg, publicKey, sig);
    n += 100;
  }
  return n / 2;
}

/** Raw LiteSVM executions of pre-signed Ed25519 + memo acceptance transactions, no I/O around them. */
async function ledgerCeiling(): Promise<number> {
  const svm = new LiteSVM();
  const payer = await generateKeyPairSigner();
  svm.airdrop(payer.address, lamports(1_000_000_000_000n));
  const blockhash = svm.latestBlockhash();
  const txs: Uint8Array[] = [];
  const count = 3_000;
  for (let i = 0; i < count; i++) {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    const message = `bench acceptance ${i}`;
    const signature = sign(null, Buffer.from(message), privateKey);
    const tx = await buildAcceptanceTransaction({
      feePayer: payer,
      signer: b58d.decode(raw),
      signature,
      message,
      acceptanceId: '0'.repeat(63) + (i % 10),
      versionAddress: payer.address,
      lifetime: { blockhash, lastValidBlockHeight: 1_000_000n },
    });
    txs.push(tx.wire);
  }
  const { getTransactionDecoder } = await import('@solana/kit');
  const decoder = getTransactionDecoder();
  const decoded = txs.map((w) => decoder.decode(w));
  const start = process.hrtime.bigint();
  for (const tx of decoded) svm.sendTransaction(tx as never);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return count / seconds;
}

async function fastifyCeiling(): Promise<number> {
  const app = Fastify();
  app.get('/', async () => ({ status: 'ok' }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const result = await autocannon({ url: `http://127.0.0.1:${port}/`, connections: CONCURRENCY, duration: Math.min(SECONDS, 5) });
  await app.close();
  return result.requests.average;
}

async function main(): Promise<void> {
  process.stdout.write(`benchmark: ${SECONDS} s per load test, ${CONCURRENCY} concurrent clients, Node ${process.version}\n\n`);
  line('ceiling: node:crypto Ed25519 verify', ed25519Ceiling(), '/s');
  line('ceiling: raw LiteSVM execution (acceptance tx)', await ledgerCeiling(), 'tx/s');
  line('ceiling: bare Fastify GET', await fastifyCeiling(), 'req/s');

  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-'));
  const limits = { RATE_LIMIT_GENERAL_PER_MINUTE: '100000000', RATE_LIMIT_ACCEPTANCE_PER_MINUTE: '100000000', RATE_LIMIT_SIGNIN_PER_MINUTE: '100000000', LOG_LEVEL: 'warn' };
  const service = await startService({ dataDir, env: limits });
  try {
    const doc = await publishedDocument(service, [1]);
    const client = new ApiClient(service.baseUrl);
    const origin = 'https://bench.example.com';

    // Acceptances: each client loop makes a fresh signer, asks a challenge, signs it, submits.
    const acceptanceIds: string[] = [];
    let failures = 0;
    const deadline = Date.now() + SECONDS * 1000;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < deadline) {
          const { publicKey, privateKey } = generateKeyPairSync('ed25519');
          const signer = b58d.decode(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32));
          try {
            const c = await client.request<{ challengeId: string; message: string; clientBinding: string }>(
              'POST',
              '/v1/acceptance/challenges',
              { organization: doc.organization.address, document: doc.document.address, signer },
              { origin },
            );
            const signature = b58d.decode(sign(null, Buffer.from(c.message, 'utf8'), privateKey));
            const r = await client.request<{ acceptanceId: string }>('POST', `/v1/acceptance/challenges/${c.challengeId}/submit`, { clientBinding: c.clientBinding, signature }, { origin });
            acceptanceIds.push(r.acceptanceId);
          } catch {
            failures++;
          }
        }
      }),
    );
    const elapsed = (Date.now() - started) / 1000;
    line('wallet acceptances (challenge + submit, direct)', acceptanceIds.length / elapsed, '/s', `${acceptanceIds.length} in ${elapsed.toFixed(1)} s, ${failures} failed`);

    const receipts = await autocannon({
      url: service.baseUrl,
      connections: CONCURRENCY,
      duration: SECONDS,
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/api/v1/public/acceptances/${acceptanceIds[Math.floor(Math.random() * acceptanceIds.length)]}/receipt` }) }],
    });
    line('public receipt reads (verified against ledger)', receipts.requests.average, 'req/s', `${receipts.non2xx} non-2xx, p99 ${receipts.latency.p99} ms`);

    const summaries = await autocannon({
      url: service.baseUrl,
      connections: CONCURRENCY,
      duration: SECONDS,
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/api/v1/public/acceptances/${acceptanceIds[Math.floor(Math.random() * acceptanceIds.length)]}` }) }],
    });
    line('public acceptance summary reads', summaries.requests.average, 'req/s', `${summaries.non2xx} non-2xx, p99 ${summaries.latency.p99} ms`);
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().catch((err) => {
  process.stderr.write(`benchmark failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
