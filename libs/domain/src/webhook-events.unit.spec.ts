/**
 * Webhook event data (spec §6.1): every mapping gives exactly the fields of its type, valid against the published
 * data schema; the types whose cause is recorded later are built from synthesized facts.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { WebhookEventType } from './events';
import { A, acceptanceSubmitted, HEX, SIG, versionPublished as versionEvent } from './testing/fixtures';
import {
  agreementAccepted,
  agreementFinalized,
  domainVerified,
  memberChanged,
  proofRecorded,
  signerChanged,
  sponsorshipLowBalance,
  SUBSCRIBABLE_WEBHOOK_EVENTS,
  versionPublished,
  WEBHOOK_DATA_SCHEMAS,
  webhookTest,
  type WebhookEventBody,
} from './webhook-events';

const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));

function expectValid(body: WebhookEventBody): void {
  const validate = ajv.compile(WEBHOOK_DATA_SCHEMAS[body.type]);
  const ok = validate(body.data);
  expect(validate.errors ?? []).toEqual([]);
  expect(ok).toBe(true);
}

const submitted = acceptanceSubmitted(HEX.acceptance1, A.challengeId, SIG.acc1);
const relayed = { acceptanceId: HEX.acceptance1, transactionSignature: SIG.acc1, slot: 3_120_500, blockTime: 1_741_944_500, feeLamports: 10_000, commitment: 'confirmed' as const, batch: null };

describe('webhook events', () => {
  it('offers the nine subscribable types of spec §6.1, and a schema for each and for webhook.test', () => {
    expect(SUBSCRIBABLE_WEBHOOK_EVENTS).toHaveLength(9);
    expect(Object.keys(WEBHOOK_DATA_SCHEMAS).sort()).toEqual([...SUBSCRIBABLE_WEBHOOK_EVENTS, 'webhook.test'].sort());
  });

  it('agreement.accepted carries the submission, the relay and the receipt address', () => {
    const body = agreementAccepted(submitted, relayed, `https://app.example.com/receipts/${HEX.acceptance1}`);
    expect(body.data).toMatchObject({
      acceptanceId: HEX.acceptance1,
      transactionSignature: SIG.acc1,
      slot: 3_120_500,
      commitment: 'confirmed',
      signer: A.signer,
      signerType: 'wallet',
      protocol: 'svc/1',
      fee: { payer: submitted.feePayer, lamports: 10_000, sponsor: 'svc', reimbursedLamports: null },
      document: A.doc,
      documentSlug: 'terms-of-service',
      version: A.v1,
      versionNumber: 1,
      externalUserRef: null,
    });
    expectValid(body);
  });

  it('agreement.accepted of a batched acceptance adds evidenceMode, the leaf evidence and the batch; fee is the share', () => {
    const batch = { lane: 1, sequence: 4, size: 2, root: HEX.content1, leafIndex: 1 };
    const body = agreementAccepted({ ...submitted, evidenceMode: 'MERKLE_BATCHED' }, { ...relayed, feeLamports: 2_500, batch }, `https://app.example.com/receipts/${HEX.acceptance1}`);
    expect(body.data).toMatchObject({
      evidenceMode: 'MERKLE_BATCHED',
      fee: { payer: submitted.feePayer, lamports: 2_500, sponsor: 'svc', reimbursedLamports: null },
      leaf: { acceptanceId: HEX.acceptance1, message: submitted.message, signature: submitted.signature, signer: A.signer, versionAddress: A.v1 },
      batch,
    });
    expectValid(body);
    expect(agreementAccepted(submitted, relayed, 'https://app.example.com/r').data).not.toHaveProperty('evidenceMode');
  });

  it.each<[string, WebhookEventBody, WebhookEventType, Record<string, unknown>]>([
    ['AcceptanceFinalized', agreementFinalized({ acceptanceId: HEX.acceptance1, transactionSignature: SIG.acc1, slot: 3_120_540 }), 'agreement.finalized', { commitment: 'finalized', slot: 3_120_540 }],
    ['VersionPublished', versionPublished(versionEvent(2).data), 'document.version_published', { document: A.doc, version: A.v2, versionNumber: 2, versionLabel: '2025-03', contentHash: HEX.content2 }],
    [
      'DomainVerified',
      domainVerified({ verificationId: A.draftId, organizationId: A.orgId, organization: A.org, domain: 'shop.example.com', verifiedAt: '2025-03-14T09:27:30.000Z', expiresAt: '2026-03-14T09:27:30.000Z', checkedBy: A.authority }),
      'organization.domain_verified',
      { domain: 'shop.example.com', attestationTransaction: null },
    ],
    [
      'MemberChanged',
      memberChanged({ organizationId: A.orgId, organization: A.org, member: A.signer, roles: ['publisher'], active: true, change: 'added', transactionSignature: SIG.doc, slot: 9, blockTime: null }),
      'organization.member_changed',
      { member: A.signer, roles: ['publisher'], active: true, change: 'added', memberAccount: null, compromisedSince: null },
    ],
    [
      'a synthesized recorded proof',
      proofRecorded({
        proofId: HEX.content1,
        type: 'age_over_18',
        reference: 'order-1042',
        statementHash: HEX.fingerprint1,
        transactionSignature: SIG.v3,
        slot: 3_120_777,
        signer: `p256:02${'ab'.repeat(32)}`,
        signerType: 'passkey_p256',
        externalUserRef: 'user-42',
        feePayer: A.authority,
        feeSponsor: 'organization',
        feeLamports: 5_000,
      }),
      'proof.recorded',
      { fee: { payer: A.authority, lamports: 5_000, sponsor: 'organization', reimbursedLamports: null }, signerType: 'passkey_p256' },
    ],
    ['a synthesized registration', signerChanged({ signer: A.signer, change: 'registered', externalUserRef: 'user-42', enrollment: null, rotation: null, transactionSignature: null }), 'signer.registered', { change: 'registered' }],
    ['a synthesized rotation', signerChanged({ signer: A.signer, change: 'rotate', externalUserRef: null, enrollment: { slot: 5 }, rotation: { from: A.signer }, transactionSignature: SIG.v2 }), 'signer.changed', { change: 'rotate' }],
    [
      'a synthesized low balance',
      sponsorshipLowBalance({ nonceShard: A.org, depositAddress: A.relayer, spendableLamports: 40_000, thresholdLamports: 100_000, estimatedRecordsLeft: 4 }),
      'sponsorship.low_balance',
      { estimatedRecordsLeft: 4 },
    ],
    ['the dashboard test action', webhookTest(), 'webhook.test', {}],
  ])('maps %s to its event type and data', (_cause, body, type, expected) => {
    expect(body.type).toBe(type);
    expect(body.data).toMatchObject(expected);
    expectValid(body);
  });

  it('rejects data with a field too many or a wrong format', () => {
    const body = agreementFinalized({ acceptanceId: HEX.acceptance1, transactionSignature: SIG.acc1, slot: 1 });
    expect(ajv.validate(WEBHOOK_DATA_SCHEMAS['agreement.finalized'], { ...body.data, extra: 1 })).toBe(false);
    expect(ajv.validate(WEBHOOK_DATA_SCHEMAS['agreement.finalized'], { ...body.data, acceptanceId: 'X' })).toBe(false);
  });
});
