/**
 * Worker-thread entry of `synthesize.ts`: makes the signed material of synthesized acceptances (a fresh Ed25519
 * signer, its `svc/1` message and signature, the acceptance transaction signed by a benchmark fee payer) in
 * batches on request, so that the signing runs on one core while the event store appends on another.
 *
 * Protocol: the parent posts a batch size (number); the worker answers with that many {@link AcceptanceMaterial}.
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { acceptanceIdOf, buildAcceptanceMessage, bytesToBase58, encodeAcceptanceTransaction, type SyncSigner } from '@svc/evidence';
import type { AcceptanceMaterial, SynthesisTarget } from './synthesize-material';

const target = workerData as SynthesisTarget;
const addressOf = (key: ReturnType<typeof generateKeyPairSync>['publicKey']): string => bytesToBase58(new Uint8Array(key.export({ format: 'der', type: 'spki' }).subarray(-32)));
const isoSeconds = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

const payerKeys = generateKeyPairSync('ed25519');
const payer: SyncSigner = { address: addressOf(payerKeys.publicKey), sign: (m) => new Uint8Array(sign(null, m, payerKeys.privateKey)) };
const lifetime = { blockhash: bytesToBase58(createHash('sha256').update('svc benchmark blockhash').digest()), lastValidBlockHeight: 150n };

function material(): AcceptanceMaterial {
  const now = new Date();
  const keys = generateKeyPairSync('ed25519');
  const signer = addressOf(keys.publicKey);
  const nonce = randomBytes(16).toString('hex');
  const issuedAt = isoSeconds(now);
  const expiresAt = isoSeconds(new Date(now.getTime() + 300_000));
  const message = buildAcceptanceMessage({
    protocol: 'svc/1',
    requestDomain: target.requestDomain,
    chainId: target.chainId,
    organization: target.organization,
    document: target.document,
    versionAddress: target.versionAddress,
    versionNumber: target.versionNumber,
    contentHash: target.contentHash,
    fingerprint: target.fingerprint,
    signer,
    nonce,
    issuedAt,
    expiresAt,
  });
  const acceptanceId = acceptanceIdOf(message);
  const signature = new Uint8Array(sign(null, Buffer.from(message, 'utf8'), keys.privateKey));
  const tx = encodeAcceptanceTransaction({ feePayer: payer, signer, signature, message, acceptanceId, versionAddress: target.versionAddress, lifetime });
  return {
    occurredAt: now.toISOString(),
    challengeId: randomUUID(),
    signer,
    nonce,
    issuedAt,
    expiresAt,
    message,
    acceptanceId,
    signature: bytesToBase58(signature),
    clientBindingHash: createHash('sha256').update(randomBytes(24)).digest('hex'),
    feePayer: payer.address,
    transactionSignature: tx.signature,
    transactionWire: Buffer.from(tx.wire).toString('base64'),
    lastValidBlockHeight: lifetime.lastValidBlockHeight.toString(),
    blockTime: Math.floor(now.getTime() / 1000),
  };
}

parentPort?.on('message', (size: number) => {
  parentPort?.postMessage(Array.from({ length: size }, material));
});
