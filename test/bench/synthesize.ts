/**
 * Synthesizes acceptances straight into the embedded event store of a stopped service, for the scale figures.
 * They are synthesized, not relayed: each one is the event chain the service itself writes for a direct-mode
 * wallet acceptance (docs/architecture.md, streams `challenge-<id>` and `acceptance-<version>-<signer>`):
 *
 *   challenge-<id>:                 AcceptanceChallengeIssued
 *   acceptance-<version>-<signer>:  AcceptanceSubmitted, AcceptanceRelayed
 *   challenge-<id>:                 AcceptanceChallengeCompleted
 *
 * with a fresh Ed25519 signer, a real `svc/1` message (docs/protocol.md) and the signer's valid signature over it,
 * and a real acceptance transaction signed by a benchmark fee payer, which is never sent to the ledger (so the
 * receipt of a synthesized acceptance does not verify; the public summary does not need the ledger).
 * Every event goes through `SqliteEventStore.appendSync`, so it passes the same schema checks and concurrency
 * rules as the service's own appends.
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import * as path from 'node:path';
import { streams, type AcceptanceChallengeIssuedData, type AcceptanceRelayedData, type AcceptanceSubmittedData } from '@svc/domain';
import { acceptanceIdOf, buildAcceptanceMessage, bytesToBase58, encodeAcceptanceTransaction, type SyncSigner } from '@svc/evidence';
import { EventSchemaRegistry, SQLITE_EVENTS_FILE, SqliteEventStore, type EventMetadata, type NewEvent } from '@svc/event-store';

/** The published version the synthesized acceptances accept, as the service knows it, and the requesting site. */
export type SynthesisTarget = Pick<
  AcceptanceChallengeIssuedData,
  'organizationId' | 'organization' | 'documentId' | 'document' | 'documentSlug' | 'versionAddress' | 'versionNumber' | 'requestDomain'
> & {
  contentHash: string;
  fingerprint: string;
  /** CAIP-2 chain id of the service's ledger (`GET /v1/network`). */
  chainId: string;
};

export interface SynthesisResult {
  acceptances: number;
  events: number;
  seconds: number;
  /** Up to `sampleSize` acceptance ids spread over the whole range, the last one included. */
  sampleIds: string[];
  /** Id of the last acceptance written (the last one the projections will reach). */
  lastAcceptanceId: string;
  /** Events in the whole log afterwards (its head position). */
  logEvents: number;
}

const addressOf = (key: ReturnType<typeof generateKeyPairSync>['publicKey']): string => bytesToBase58(new Uint8Array(key.export({ format: 'der', type: 'spki' }).subarray(-32)));
const isoSeconds = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

/**
 * Appends `count` acceptance chains to `<dataDir>/events.sqlite` (the service must be stopped).
 * @param onProgress called about every 5 % with the number written so far.
 * @throws EventSchemaError or WrongExpectedRevisionError (from the event store) if a synthesized event breaks a rule.
 */
export async function synthesizeAcceptances(dataDir: string, target: SynthesisTarget, count: number, sampleSize = 5_000, onProgress?: (done: number) => void): Promise<SynthesisResult> {
  const store = new SqliteEventStore({ file: path.join(dataDir, SQLITE_EVENTS_FILE), schemas: EventSchemaRegistry.fromDirectory() });
  const payerKeys = generateKeyPairSync('ed25519');
  const payer: SyncSigner = { address: addressOf(payerKeys.publicKey), sign: (m) => new Uint8Array(sign(null, m, payerKeys.privateKey)) };
  const lifetime = { blockhash: bytesToBase58(createHash('sha256').update('svc benchmark blockhash').digest()), lastValidBlockHeight: 150n };
  const every = Math.max(1, Math.floor(count / sampleSize));
  const progressEvery = Math.max(1, Math.floor(count / 20));
  const sampleIds: string[] = [];
  let lastAcceptanceId = '';
  let logEvents = 0;
  const started = process.hrtime.bigint();
  try {
    for (let i = 0; i < count; i++) {
      const now = new Date();
      const meta = (actor: string, correlationId: string): EventMetadata => ({ correlationId, causationId: correlationId, actor, schemaVersion: 1, occurredAt: now.toISOString() });
      const keys = generateKeyPairSync('ed25519');
      const signer = addressOf(keys.publicKey);
      const challengeId = randomUUID();
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
      const common = {
        organizationId: target.organizationId,
        organization: target.organization,
        documentId: target.documentId,
        document: target.document,
        documentSlug: target.documentSlug,
        versionAddress: target.versionAddress,
        versionNumber: target.versionNumber,
        signer,
        signerType: 'wallet',
        protocol: 'svc/1',
        message,
        requestDomain: target.requestDomain,
      } as const;
      const issued: AcceptanceChallengeIssuedData = {
        ...common,
        challengeId,
        nonce,
        clientBindingHash: createHash('sha256').update(randomBytes(24)).digest('hex'),
        issuedAt,
        expiresAt,
      };
      const submitted: AcceptanceSubmittedData = {
        ...common,
        acceptanceId,
        challengeId,
        signature: bytesToBase58(signature),
        externalUserRef: null,
        evidenceMode: 'DIRECT_ONCHAIN',
        feePayer: payer.address,
        feeSponsor: 'svc',
        transactionSignature: tx.signature,
        transactionWire: Buffer.from(tx.wire).toString('base64'),
        lastValidBlockHeight: lifetime.lastValidBlockHeight.toString(),
      };
      const relayed: AcceptanceRelayedData = {
        acceptanceId,
        transactionSignature: tx.signature,
        slot: 1 + i,
        blockTime: Math.floor(now.getTime() / 1000),
        feeLamports: 10_000,
        commitment: 'finalized',
      };
      const requestId = randomUUID();
      const submitId = randomUUID();
      const challengeStream = streams.challenge(challengeId);
      const event = (type: NewEvent['type'], data: object, metadata: EventMetadata): NewEvent => ({ type, data, metadata });
      store.appendSync(challengeStream, [event('AcceptanceChallengeIssued', issued, meta(`signer:${signer}`, requestId))], 'no_stream');
      store.appendSync(
        streams.acceptance(target.versionAddress, signer),
        [event('AcceptanceSubmitted', submitted, meta(`challenge:${challengeId}`, submitId)), event('AcceptanceRelayed', relayed, meta(`challenge:${challengeId}`, submitId))],
        'no_stream',
      );
      store.appendSync(challengeStream, [event('AcceptanceChallengeCompleted', { challengeId, acceptanceId }, meta(`challenge:${challengeId}`, submitId))], 0n);
      if (i % every === 0 && sampleIds.length < sampleSize) sampleIds.push(acceptanceId);
      lastAcceptanceId = acceptanceId;
      if (onProgress && (i + 1) % progressEvery === 0) onProgress(i + 1);
    }
    logEvents = Number(await store.headPosition());
  } finally {
    await store.close();
  }
  if (lastAcceptanceId && !sampleIds.includes(lastAcceptanceId)) sampleIds.push(lastAcceptanceId);
  return { acceptances: count, events: 4 * count, seconds: Number(process.hrtime.bigint() - started) / 1e9, sampleIds, lastAcceptanceId, logEvents };
}
