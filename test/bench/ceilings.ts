/**
 * This machine's ceilings, measured in the same run as the service's figures:
 * - Ed25519 verifications/s with `node:crypto` (OpenSSL), the work the receipt report repeats per read;
 * - raw LiteSVM executions/s of direct-mode acceptance transactions (Ed25519 precompile + memo, docs/protocol.md),
 *   wire bytes straight into the runtime, no journal, no I/O;
 * - bare Fastify JSON GETs/s, server and load generator in two separate processes.
 */
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { LiteSVM } from 'litesvm';
import { address, lamports } from '@solana/kit';
import { acceptanceIdOf, buildAcceptanceMessage, bytesToBase58, encodeAcceptanceTransaction, type SyncSigner } from '@svc/evidence';
import { FailedTransactionMetadata, SvmDriver } from '../../libs/ledger/src/embedded/svm-driver';
import { runLoad, startBareFastify, withPeakRss } from './children';
import type { HttpLoadResult } from './protocol';

/** Raw 32-byte public key of a `node:crypto` Ed25519 key, base58 (a Solana address). */
const addressOf = (publicKey: ReturnType<typeof generateKeyPairSync>['publicKey']): string =>
  bytesToBase58(new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32)));

/** Ed25519 verifications per second of one 600-byte message (about an acceptance message's size), on one core. */
export function ed25519Ceiling(seconds: number): number {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const message = Buffer.alloc(600, 7);
  const signature = sign(null, message, privateKey);
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(seconds * 1e9));
  let n = 0;
  while (process.hrtime.bigint() < deadline) {
    for (let i = 0; i < 100; i++) if (!verify(null, message, publicKey, signature)) throw new Error('Ed25519 ceiling: a valid signature did not verify');
    n += 100;
  }
  return n / (Number(process.hrtime.bigint() - start) / 1e9);
}

/**
 * Raw LiteSVM executions per second of distinct, valid acceptance transactions (each signed by a fresh signer,
 * relayer-paid), built ahead of the timed section in batches of 1,000 until `seconds` of execution were timed.
 * @throws Error when the runtime refuses one of them.
 */
export function ledgerCeiling(seconds: number): number {
  const svm = new LiteSVM();
  const driver = new SvmDriver(svm);
  const payerKeys = generateKeyPairSync('ed25519');
  const payer: SyncSigner = { address: addressOf(payerKeys.publicKey), sign: (m) => new Uint8Array(sign(null, m, payerKeys.privateKey)) };
  svm.airdrop(address(payer.address), lamports(1_000_000_000_000n));
  const [organization, document, versionAddress] = [0, 1, 2].map(() => addressOf(generateKeyPairSync('ed25519').publicKey));
  const hex = (seed: number) => seed.toString(16).padStart(2, '0').repeat(32);
  const lifetime = { blockhash: svm.latestBlockhash(), lastValidBlockHeight: 1_000_000n };
  let executed = 0;
  let timedNs = 0n;
  for (let batch = 0; timedNs < BigInt(Math.round(seconds * 1e9)); batch++) {
    const wires: Uint8Array[] = [];
    for (let i = 0; i < 1_000; i++) {
      const signer = generateKeyPairSync('ed25519');
      const signerAddress = addressOf(signer.publicKey);
      const message = buildAcceptanceMessage({
        protocol: 'svc/1',
        requestDomain: 'bench.example.com',
        chainId: `solana:${lifetime.blockhash.slice(0, 32).padEnd(32, '1')}`,
        organization,
        document,
        versionAddress,
        versionNumber: 1,
        contentHash: hex(0xab),
        fingerprint: hex(0xcd),
        signer: signerAddress,
        nonce: (batch * 1_000 + i).toString(16).padStart(32, '0'),
        issuedAt: '2026-01-01T00:00:00Z',
        expiresAt: '2026-01-01T00:05:00Z',
      });
      const tx = encodeAcceptanceTransaction({
        feePayer: payer,
        signer: signerAddress,
        signature: new Uint8Array(sign(null, Buffer.from(message, 'utf8'), signer.privateKey)),
        message,
        acceptanceId: acceptanceIdOf(message),
        versionAddress,
        lifetime,
      });
      wires.push(tx.wire);
    }
    const start = process.hrtime.bigint();
    for (const wire of wires) {
      const outcome = driver.send(wire, 'legacy');
      if (outcome instanceof FailedTransactionMetadata) throw new Error(`LiteSVM ceiling: the runtime refused an acceptance transaction: ${outcome.err().toString()}`);
    }
    timedNs += process.hrtime.bigint() - start;
    executed += wires.length;
  }
  return executed / (Number(timedNs) / 1e9);
}

/** Bare Fastify JSON GETs per second under autocannon from a separate process, with the server's peak RSS. */
export async function fastifyCeiling(connections: number, seconds: number): Promise<{ load: HttpLoadResult; peakRssMb: number | null }> {
  const server = await startBareFastify();
  try {
    const { value, peakRssMb } = await withPeakRss(server.pid, () => runLoad({ kind: 'http', origin: server.origin, paths: ['/'], connections, seconds }));
    return { load: value, peakRssMb };
  } finally {
    await server.stop();
  }
}
