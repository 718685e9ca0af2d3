/**
 * A small event log written by hand: one organization with one document, two published versions, a
 * draft published and one abandoned, two acceptances (one relayed and finalized, one re-signed and then
 * failed), a dashboard session started and ended, and events no projection handles. Values are
 * readable stand-ins that satisfy the event schemas.
 */
import { CURRENT_SCHEMA_VERSION, type DataOf, type DomainEventType } from '@svc/domain';
import type { NewEvent } from '@svc/event-store';

const base58 = (prefix: string, length: number) => prefix + '1'.repeat(length - prefix.length);

export const F = {
  orgId: '3f1c2a6e-0000-4000-8000-000000000001',
  org: base58('Shop', 44),
  authority: base58('Auth', 44),
  docId: '3f1c2a6e-0000-4000-8000-000000000002',
  doc: base58('Doc', 44),
  v1: base58('VerA', 44),
  v2: base58('VerB', 44),
  signerA: base58('SignerA', 44),
  signerB: base58('SignerB', 44),
  relayer: base58('Re', 44),
  hash1: 'a'.repeat(64),
  hash2: 'b'.repeat(64),
  fp1: 'c'.repeat(64),
  fp2: 'd'.repeat(64),
  accA: '0a'.repeat(32),
  accB: '0b'.repeat(32),
  sigOrg: base58('SigShop', 88),
  sigDoc: base58('SigDoc', 88),
  sigV1: base58('SigVA', 88),
  sigV2: base58('SigVB', 88),
  sigA: base58('SigAccA', 88),
  sigB1: base58('SigAccB', 88),
  sigB2: base58('SigAccBB', 88),
  member: base58('Member', 44),
  sigMember: base58('SigMember', 88),
  shard: base58('Shard', 44),
  sigShard: base58('SigShard', 88),
  verification: '3f1c2a6e-0000-4000-8000-000000000009',
  draft1: '3f1c2a6e-0000-4000-8000-000000000011',
  draft2: '3f1c2a6e-0000-4000-8000-000000000012',
  challengeA: '3f1c2a6e-0000-4000-8000-000000000021',
  challengeB: '3f1c2a6e-0000-4000-8000-000000000022',
  session: '3f1c2a6e-0000-4000-8000-000000000031',
  keyA: '3f1c2a6e-0000-4000-8000-000000000041',
  sigAnchor: base58('SigAudit', 88),
  accC: '0c'.repeat(32),
  sigBatch: base58('SigBatch', 88),
  sigBatch2: base58('SigBatchB', 88),
  root: 'e3'.repeat(32),
  keyB: '3f1c2a6e-0000-4000-8000-000000000042',
  accD: '0d'.repeat(32),
  challengeD: '3f1c2a6e-0000-4000-8000-000000000024',
} as const;

/** `2024-01-01T00:<minute>:00.000Z`: the fixture's clock, one minute per step. */
export const at = (minute: number) => `2024-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;

let eventNumber = 0;
function event<T extends DomainEventType>(type: T, data: DataOf<T>, minute: number): NewEvent<T, DataOf<T>> {
  eventNumber++;
  const id = `3f1c2a6e-0000-4000-9000-${String(eventNumber).padStart(12, '0')}`;
  return { id, type, data, metadata: { correlationId: id, causationId: id, actor: `wallet:${F.authority}`, schemaVersion: CURRENT_SCHEMA_VERSION[type], occurredAt: at(minute) } };
}

function submitted(acceptanceId: string, challengeId: string, version: string, versionNumber: number, signer: string, transactionSignature: string) {
  return {
    acceptanceId,
    challengeId,
    organizationId: F.orgId,
    organization: F.org,
    documentId: F.docId,
    document: F.doc,
    documentSlug: 'terms-of-service',
    versionAddress: version,
    versionNumber,
    signer,
    signerType: 'wallet' as const,
    protocol: 'svc/1' as const,
    message: `I accept version ${versionNumber}`,
    signature: `signature-of-${signer.slice(0, 7)}`,
    requestDomain: 'shop.example',
    externalUserRef: versionNumber === 1 ? 'customer-42' : null,
    evidenceMode: 'DIRECT_ONCHAIN' as const,
    feePayer: F.relayer,
    feeSponsor: 'svc' as const,
    transactionSignature,
    transactionWire: 'AQID',
    lastValidBlockHeight: '150',
  };
}

/** The log, stream by stream, in append order. */
export const FIXTURE_LOG: readonly { stream: string; events: NewEvent[] }[] = [
  {
    stream: `organization-${F.org}`,
    events: [
      event('OrganizationSynced', { organizationId: F.orgId, address: F.org, authority: F.authority, name: 'Example Shop Inc.', domain: 'shop.example', creationSignature: F.sigOrg, slot: 10, blockTime: 1_700_000_000, syncedBy: F.authority }, 1),
      event('OrganizationRefreshed', { organizationId: F.orgId, address: F.org, transactionCount: 3, refreshedBy: F.authority }, 2),
    ],
  },
  {
    stream: `document-${F.doc}`,
    events: [
      event('DocumentSynced', { documentId: F.docId, address: F.doc, organizationId: F.orgId, organization: F.org, slug: 'terms-of-service', title: 'Terms of Service', creationSignature: F.sigDoc, slot: 11, blockTime: 1_700_000_100 }, 3),
    ],
  },
  { stream: `content-${F.hash1}`, events: [event('ContentStored', { contentHash: F.hash1, text: 'Be nice.', byteLength: 8, mediaType: 'text/markdown' }, 4)] },
  {
    stream: `draft-${F.draft1}`,
    events: [
      event('DraftCreated', { draftId: F.draft1, documentId: F.docId, organizationId: F.orgId, title: 'Terms', versionLabel: '2024-01', effectiveAt: null, contentHash: F.hash1, changeSummary: null, createdBy: F.authority }, 5),
      event('DraftUpdated', { draftId: F.draft1, title: 'Terms of Service', versionLabel: '2024-01', effectiveAt: 1_704_067_200, contentHash: F.hash1, changeSummary: 'First version' }, 6),
      event('DraftPrepared', { draftId: F.draft1, number: 1, contentHash: F.hash1, fingerprint: F.fp1, preparedBy: F.authority }, 7),
    ],
  },
  {
    stream: `document-${F.doc}`,
    events: [
      event('VersionPublished', { documentId: F.docId, document: F.doc, organizationId: F.orgId, organization: F.org, versionAddress: F.v1, number: 1, label: '2024-01', title: 'Terms of Service', contentHash: F.hash1, fingerprint: F.fp1, effectiveAt: 1_704_067_200, transactionSignature: F.sigV1, slot: 20, blockTime: 1_704_000_000, publisher: F.authority, draftId: F.draft1 }, 8),
    ],
  },
  { stream: `draft-${F.draft1}`, events: [event('DraftPublished', { draftId: F.draft1, versionAddress: F.v1, transactionSignature: F.sigV1 }, 9)] },
  {
    stream: `draft-${F.draft2}`,
    events: [
      event('DraftCreated', { draftId: F.draft2, documentId: F.docId, organizationId: F.orgId, title: 'Terms v2', versionLabel: '2024-06', effectiveAt: null, contentHash: F.hash2, changeSummary: 'Kinder', createdBy: F.authority }, 10),
      event('DraftAbandoned', { draftId: F.draft2, abandonedBy: F.authority }, 11),
    ],
  },
  { stream: `content-${F.hash2}`, events: [event('ContentStored', { contentHash: F.hash2, text: 'Be very nice.', byteLength: 13, mediaType: 'text/markdown' }, 12)] },
  {
    stream: `document-${F.doc}`,
    events: [
      event('VersionPublished', { documentId: F.docId, document: F.doc, organizationId: F.orgId, organization: F.org, versionAddress: F.v2, number: 2, label: '2024-06', title: 'Terms of Service', contentHash: F.hash2, fingerprint: F.fp2, effectiveAt: null, transactionSignature: F.sigV2, slot: 30, blockTime: null, publisher: F.authority, draftId: null }, 13),
    ],
  },
  {
    stream: `acceptance-${F.v1}-${F.signerA}`,
    events: [
      event('AcceptanceSubmitted', submitted(F.accA, F.challengeA, F.v1, 1, F.signerA, F.sigA), 14),
      event('AcceptanceRelayed', { acceptanceId: F.accA, transactionSignature: F.sigA, slot: 40, blockTime: 1_704_100_000, feeLamports: 10_000, commitment: 'confirmed', batch: null }, 15),
      event('AcceptanceFinalized', { acceptanceId: F.accA, transactionSignature: F.sigA, slot: 72 }, 16),
    ],
  },
  {
    stream: `acceptance-${F.v2}-${F.signerB}`,
    events: [
      event('AcceptanceSubmitted', submitted(F.accB, F.challengeB, F.v2, 2, F.signerB, F.sigB1), 17),
      event('AcceptanceResigned', { acceptanceId: F.accB, transactionSignature: F.sigB2, transactionWire: 'BAUG', lastValidBlockHeight: '300', replaces: F.sigB1 }, 18),
      event('AcceptanceRelayFailed', { acceptanceId: F.accB, transactionSignature: F.sigB2, reason: 'blockhash expired', logs: [] }, 19),
    ],
  },
  {
    stream: `signin-${'5'.repeat(32)}`,
    events: [
      event(
        'SignInChallengeIssued',
        {
          nonce: '5'.repeat(32),
          address: F.authority,
          message: 'Sign in to the dashboard',
          issuedAt: at(20),
          expiresAt: at(25),
          purpose: 'sign_in',
          sessionId: null,
          domain: 'app.example.com',
          statement: 'Sign in to the dashboard',
          uri: 'https://app.example.com',
          chainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
        },
        20,
      ),
    ],
  },
  {
    stream: `session-${F.session}`,
    events: [
      event('DashboardSessionStarted', { sessionId: F.session, address: F.authority, tokenHash: 'e'.repeat(64), csrfHash: 'f'.repeat(64), signedAt: at(21), expiresAt: '2024-01-02T00:21:00.000Z' }, 21),
      event('DashboardSessionReauthenticated', { sessionId: F.session, nonce: '6'.repeat(32), signedAt: at(22) }, 22),
      event('DashboardSessionEnded', { sessionId: F.session, reason: 'logout' }, 23),
    ],
  },
  {
    stream: `settings-${F.org}`,
    events: [
      event(
        'OrganizationSettingsChanged',
        {
          organizationId: F.orgId,
          organization: F.org,
          changes: { requireAcceptanceSessions: true, allowedRequestDomains: ['shop.example'] },
          settings: {
            requireAcceptanceSessions: true,
            allowedRequestDomains: ['shop.example'],
            signingPolicy: 'WALLET_ONLY',
            feeSponsor: 'svc',
            sponsorFallbackToStele: true,
            sponsorLowBalanceLamports: 0,
            evidenceMode: 'DIRECT_ONCHAIN',
            products: { gate: false },
          },
          changedBy: F.authority,
        },
        23,
      ),
    ],
  },
  {
    stream: `apikey-${F.keyA}`,
    events: [
      event('ApiKeyCreated', { keyId: F.keyA, organizationId: F.orgId, organization: F.org, name: 'Checkout', scopes: ['acceptances:read', 'acceptances:write'], keyPrefix: 'svc_test_AAAA', keyHash: '1'.repeat(64), createdAt: at(24), expiresAt: null, createdBy: F.authority }, 24),
    ],
  },
  {
    stream: `apikey-${F.keyB}`,
    events: [
      event('ApiKeyCreated', { keyId: F.keyB, organizationId: F.orgId, organization: F.org, name: 'Old reports', scopes: ['documents:read'], keyPrefix: 'svc_test_BBBB', keyHash: '2'.repeat(64), createdAt: at(25), expiresAt: '2024-02-01T00:25:00.000Z', createdBy: F.authority }, 25),
      event('ApiKeyRevoked', { keyId: F.keyB, organizationId: F.orgId, revokedAt: at(26), revokedBy: F.authority }, 26),
    ],
  },
  {
    stream: `organization-${F.org}`,
    events: [
      event('MemberChanged', { organizationId: F.orgId, organization: F.org, member: F.member, roles: ['publisher'], active: true, change: 'added', transactionSignature: F.sigMember, slot: 50, blockTime: null }, 23),
      event('MemberLabelSet', { organizationId: F.orgId, member: F.member, label: 'Legal', setBy: F.authority }, 24),
    ],
  },
  {
    stream: 'domain-shop.example',
    events: [
      event('DomainVerificationStarted', { verificationId: F.verification, organizationId: F.orgId, organization: F.org, domain: 'shop.example', recordName: '_svc-verification.shop.example', recordValue: `svc-verification=${'9'.repeat(32)}`, startedBy: F.authority, startedAt: at(25), checkBefore: '2024-01-08T00:25:00.000Z' }, 25),
      event('DomainVerified', { verificationId: F.verification, organizationId: F.orgId, organization: F.org, domain: 'shop.example', verifiedAt: at(26), expiresAt: '2024-12-31T00:26:00.000Z', checkedBy: F.authority }, 26),
    ],
  },
  {
    stream: `shard-${F.shard}`,
    events: [
      event('ShardSynced', { organizationId: F.orgId, organization: F.org, shard: F.shard, operator: F.relayer, creationSignature: F.sigShard, slot: 60, blockTime: 1_704_200_000, balanceLamports: 51_447_680, rentExemptLamports: 1_447_680, syncedBy: F.authority }, 27),
    ],
  },
  {
    stream: 'webhook-0e6b7a3c-2d1f-4c5b-9a8e-7f6d5c4b3a21',
    events: [
      event('WebhookEndpointCreated', { webhookId: '0e6b7a3c-2d1f-4c5b-9a8e-7f6d5c4b3a21', organizationId: F.orgId, organization: F.org, url: 'https://hooks.shop.example/svc', description: null, events: ['agreement.accepted'], sealedSecret: `v1.${'A'.repeat(16)}.${'B'.repeat(22)}.${'C'.repeat(66)}`, secretPrefix: 'whsec_Ab3d', createdAt: at(28), createdBy: F.authority }, 28),
      event('WebhookEndpointUpdated', { webhookId: '0e6b7a3c-2d1f-4c5b-9a8e-7f6d5c4b3a21', organizationId: F.orgId, changes: { status: 'disabled' }, status: 'disabled', events: ['agreement.accepted'], updatedAt: at(29), updatedBy: F.authority }, 29),
      event('WebhookSecretRotated', { webhookId: '0e6b7a3c-2d1f-4c5b-9a8e-7f6d5c4b3a21', organizationId: F.orgId, sealedSecret: `v1.${'D'.repeat(16)}.${'E'.repeat(22)}.${'F'.repeat(66)}`, secretPrefix: 'whsec_Zz9_', rotatedAt: at(30), rotatedBy: F.authority }, 30),
    ],
  },
  {
    stream: 'webhookdelivery-5a4b3c2d-1e0f-8a9b-8c7d-6e5f4a3b2c1d',
    events: [
      event('WebhookDeliveryScheduled', { deliveryId: '5a4b3c2d-1e0f-8a9b-8c7d-6e5f4a3b2c1d', webhookId: '0e6b7a3c-2d1f-4c5b-9a8e-7f6d5c4b3a21', organizationId: F.orgId, payload: { id: `evt_${'1'.repeat(32)}`, type: 'webhook.test', createdAt: at(28), organizationId: F.orgId, data: { message: 'test' } }, dueAt: at(28) }, 28),
      event('WebhookDeliveryAttempted', { deliveryId: '5a4b3c2d-1e0f-8a9b-8c7d-6e5f4a3b2c1d', webhookId: '0e6b7a3c-2d1f-4c5b-9a8e-7f6d5c4b3a21', organizationId: F.orgId, attempt: 1, attemptedAt: at(28), durationMs: 40, statusCode: 500, error: 'answered 500', succeeded: false, nextAttemptAt: at(29) }, 28),
      event('WebhookDeliveryCancelled', { deliveryId: '5a4b3c2d-1e0f-8a9b-8c7d-6e5f4a3b2c1d', webhookId: '0e6b7a3c-2d1f-4c5b-9a8e-7f6d5c4b3a21', organizationId: F.orgId, reason: 'endpoint_disabled', cancelledAt: at(29) }, 29),
    ],
  },
  {
    stream: `audit-${F.orgId}`,
    events: [
      event('AuditEntryAppended', { organizationId: F.orgId, sequence: 1, occurredAt: at(24), actor: `wallet:${F.authority}`, action: 'api_key.created', subject: F.keyA, details: { name: 'Checkout' }, sourceEventId: 'source-1', previousHash: '0'.repeat(64), hash: 'e1'.repeat(32) }, 28),
      event('AuditEntryAppended', { organizationId: F.orgId, sequence: 2, occurredAt: at(26), actor: `wallet:${F.authority}`, action: 'api_key.revoked', subject: F.keyB, details: {}, sourceEventId: 'source-2', previousHash: 'e1'.repeat(32), hash: 'e2'.repeat(32) }, 28),
      event('AuditAnchorRequested', { organizationId: F.orgId, organization: F.org, sequence: 2, head: 'e2'.repeat(32), transactionSignature: F.sigAnchor, transactionWire: 'AQID', lastValidBlockHeight: '400' }, 29),
      event('AuditHeadAnchored', { organizationId: F.orgId, sequence: 2, head: 'e2'.repeat(32), transactionSignature: F.sigAnchor, slot: 70, blockTime: 1_704_300_000 }, 29),
    ],
  },
  {
    stream: 'batch-0-1',
    events: [
      event(
        'BatchClosed',
        {
          lane: 0,
          sequence: 1,
          root: F.root,
          leaves: [{ acceptanceId: F.accC, acceptanceStream: `acceptance-${F.v2}-${F.signerA}`, message: 'I accept version 2', signature: 'signature-of-SignerA', signer: F.signerA, versionAddress: F.v2 }],
          feePayer: F.relayer,
          transactionSignature: F.sigBatch,
          transactionWire: 'AQID',
          lastValidBlockHeight: '500',
          closedAt: at(31),
        },
        31,
      ),
      event('BatchResigned', { transactionSignature: F.sigBatch2, transactionWire: 'BAUG', lastValidBlockHeight: '650', replaces: F.sigBatch }, 32),
      event('BatchAnchored', { transactionSignature: F.sigBatch2, slot: 80, blockTime: 1_704_400_000, feeLamports: 5000 }, 32),
    ],
  },
  {
    // A batched acceptance answered pending_batch, its batch not closed yet.
    stream: `acceptance-${F.v1}-${F.signerB}`,
    events: [
      event(
        'AcceptanceSubmitted',
        { ...submitted(F.accD, F.challengeD, F.v1, 1, F.signerB, ''), externalUserRef: null, evidenceMode: 'MERKLE_BATCHED', transactionSignature: null, transactionWire: null, lastValidBlockHeight: null },
        33,
      ),
    ],
  },
];
