/**
 * Synthesizes acceptances straight into the embedded event store of a stopped service, for the scale figures.
 * They are synthesized, not relayed: each one is the event chain the service itself writes for a direct-mode
 * wallet acceptance (docs/architecture.md, streams `challenge-<id>` and `acceptance-<version>-<signer>`):
 *
 *   challenge-<id>:                 AcceptanceChallengeIssued
 *   acceptance-<version>-<signer>:  AcceptanceSubmitted, AcceptanceRelayed
 *
 * with a fresh Ed25519 signer, a real `svc/1` message (docs/protocol.md) and the signer's valid signature over it,
 * and a real acceptance transaction signed by a benchmark fee payer, which is never sent to the ledger (so the
 * receipt of a synthesized acceptance does not verify; the public summary does not need the ledger).
 * Every event goes through `SqliteEventStore.appendSync`, so it passes the same schema checks and concurrency
 * rules as the service's own appends. The signing runs in a worker thread (`synthesize-worker.ts`), one batch
 * ahead of the appends.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { CURRENT_SCHEMA_VERSION, streams, type AcceptanceChallengeIssuedData, type AcceptanceRelayedData, type AcceptanceSubmittedData } from '@svc/domain';
import { EventSchemaRegistry, SQLITE_EVENTS_FILE, SqliteEventStore, type EventMetadata, type NewEvent } from '@svc/event-store';
import type { PublishedDocument } from '../support/fixtures';
import type { AcceptanceMaterial, SynthesisTarget } from './synthesize-material';

export type { SynthesisTarget } from './synthesize-material';

const BATCH = 500;

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

/** The four events of one acceptance, as the service writes them (see the file comment), appended to `store`. */
function appendChain(store: SqliteEventStore, target: SynthesisTarget, m: AcceptanceMaterial, slot: number): void {
  const meta = (actor: string, correlationId: string, schemaVersion = 1): EventMetadata => ({ correlationId, causationId: correlationId, actor, schemaVersion, occurredAt: m.occurredAt });
  const common = {
    organizationId: target.organizationId,
    organization: target.organization,
    documentId: target.documentId,
    document: target.document,
    documentSlug: target.documentSlug,
    versionAddress: target.versionAddress,
    versionNumber: target.versionNumber,
    signer: m.signer,
    signerType: 'wallet',
    protocol: 'svc/1',
    message: m.message,
    requestDomain: target.requestDomain,
  } as const;
  const issued: AcceptanceChallengeIssuedData = { ...common, challengeId: m.challengeId, nonce: m.nonce, clientBindingHash: m.clientBindingHash, issuedAt: m.issuedAt, expiresAt: m.expiresAt, acceptanceSessionId: null, externalUserRef: null, evidenceMode: 'DIRECT_ONCHAIN' };
  const submitted: AcceptanceSubmittedData = {
    ...common,
    acceptanceId: m.acceptanceId,
    challengeId: m.challengeId,
    signature: m.signature,
    externalUserRef: null,
    evidenceMode: 'DIRECT_ONCHAIN',
    feePayer: m.feePayer,
    feeSponsor: 'svc',
    transactionSignature: m.transactionSignature,
    transactionWire: m.transactionWire,
    lastValidBlockHeight: m.lastValidBlockHeight,
  };
  const relayed: AcceptanceRelayedData = { acceptanceId: m.acceptanceId, transactionSignature: m.transactionSignature, slot, blockTime: m.blockTime, feeLamports: 10_000, commitment: 'finalized', batch: null };
  const event = (type: NewEvent['type'], data: object, metadata: EventMetadata): NewEvent => ({ type, data, metadata });
  const requestId = randomUUID();
  const submitId = randomUUID();
  const byChallenge = `challenge:${m.challengeId}`;
  const challengeStream = streams.challenge(m.challengeId);
  store.appendSync(challengeStream, [event('AcceptanceChallengeIssued', issued, meta(`signer:${m.signer}`, requestId, CURRENT_SCHEMA_VERSION.AcceptanceChallengeIssued))], 'no_stream');
  store.appendSync(
    streams.acceptance(target.versionAddress, m.signer),
    [event('AcceptanceSubmitted', submitted, meta(byChallenge, submitId, CURRENT_SCHEMA_VERSION.AcceptanceSubmitted)), event('AcceptanceRelayed', relayed, meta(byChallenge, submitId, CURRENT_SCHEMA_VERSION.AcceptanceRelayed))],
    'no_stream',
  );
}

/**
 * What synthesized acceptances accept: `version` of a document published by the test fixtures.
 * @param chainId the service's CAIP-2 chain id (`GET /v1/network`)
 * @param requestDomain the host of the site the acceptances are made on
 */
export function synthesisTarget(doc: PublishedDocument, version: PublishedDocument['versions'][number], chainId: string, requestDomain: string): SynthesisTarget {
  return {
    organizationId: doc.organization.id,
    organization: doc.organization.address,
    documentId: doc.document.id,
    document: doc.document.address,
    documentSlug: doc.document.slug,
    versionAddress: version.address,
    versionNumber: version.number,
    contentHash: version.contentHash,
    fingerprint: version.fingerprint,
    chainId,
    requestDomain,
  };
}

/**
 * Appends `count` acceptance chains to `<dataDir>/events.sqlite` (the service must be stopped).
 * @param onProgress called about every 5 % with the number written so far.
 * @throws EventSchemaError or WrongExpectedRevisionError (from the event store) if a synthesized event breaks a rule;
 *   Error when the signing worker fails.
 */
export async function synthesizeAcceptances(dataDir: string, target: SynthesisTarget, count: number, sampleSize = 5_000, onProgress?: (done: number) => void): Promise<SynthesisResult> {
  const store = new SqliteEventStore({ file: path.join(dataDir, SQLITE_EVENTS_FILE), schemas: EventSchemaRegistry.fromDirectory() });
  const worker = new Worker(path.join(__dirname, 'synthesize-worker.js'), { workerData: target });
  const request = (size: number) =>
    new Promise<AcceptanceMaterial[]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.postMessage(size);
    });
  const every = Math.max(1, Math.floor(count / sampleSize));
  const progressEvery = Math.max(1, Math.floor(count / 20));
  const sampleIds: string[] = [];
  let lastAcceptanceId = '';
  let logEvents = 0;
  const started = process.hrtime.bigint();
  try {
    let done = 0;
    let next = count > 0 ? request(Math.min(BATCH, count)) : undefined;
    while (next) {
      const batch = await next;
      worker.removeAllListeners('error');
      const after = done + batch.length;
      // The worker signs the next batch while this one is appended.
      next = after < count ? request(Math.min(BATCH, count - after)) : undefined;
      for (const m of batch) {
        appendChain(store, target, m, 1 + done);
        if (done % every === 0 && sampleIds.length < sampleSize) sampleIds.push(m.acceptanceId);
        lastAcceptanceId = m.acceptanceId;
        done++;
        if (onProgress && done % progressEvery === 0) onProgress(done);
      }
    }
    logEvents = Number(await store.headPosition());
  } finally {
    await worker.terminate();
    await store.close();
  }
  if (lastAcceptanceId && !sampleIds.includes(lastAcceptanceId)) sampleIds.push(lastAcceptanceId);
  return { acceptances: count, events: 3 * count, seconds: Number(process.hrtime.bigint() - started) / 1e9, sampleIds, lastAcceptanceId, logEvents };
}
