/**
 * The webhook events of spec §6.1: for each type, the `data` it carries and the function that builds it from the
 * domain facts that cause it (docs/api.md "Webhooks", "Event types"). Pure: ids, times and URLs come in as
 * arguments. Types whose cause is not recorded by the service yet (`proof.recorded`, `signer.*`,
 * `sponsorship.low_balance`) take their facts as plain inputs, so their producers only have to call them.
 */
import type {
  AcceptanceFinalizedData,
  AcceptanceRelayedData,
  AcceptanceSubmittedData,
  DomainVerifiedData,
  MemberChangedData,
  SubscribableWebhookEventType,
  VersionPublishedData,
  WebhookEventType,
} from './events';

/** The subscribable types, in the order of spec §6.1. */
export const SUBSCRIBABLE_WEBHOOK_EVENTS: readonly SubscribableWebhookEventType[] = [
  'agreement.accepted',
  'agreement.finalized',
  'document.version_published',
  'organization.domain_verified',
  'organization.member_changed',
  'proof.recorded',
  'signer.registered',
  'signer.changed',
  'sponsorship.low_balance',
];

/** A webhook event before its envelope (`id`, `createdAt`, `organizationId`). */
export interface WebhookEventBody<T extends WebhookEventType = WebhookEventType> {
  type: T;
  data: Record<string, unknown>;
}

/** The advisory text of `agreement.accepted`: the webhook is a notification, the transaction is the evidence. */
export const VERIFY_ADVISORY =
  'This notification is not evidence. Verify the acceptance from its receipt against the ledger (svc verify <receipt> --rpc <url>) before relying on it.';

/**
 * `agreement.accepted` from the submission and the relay that confirmed it (spec §6.1). `fee` has the shape the
 * contract gives a fee (spec §4.4: `{payer, lamports, sponsor, reimbursedLamports}`, lamports the network fee). A
 * batched acceptance, once its batch is anchored, adds `evidenceMode`, `leaf` (the evidence its leaf hashes,
 * docs/protocol.md §7.7) and `batch` (the anchor record's fields and the leaf's index); `fee.lamports` is then its
 * share of the anchoring fee.
 */
export function agreementAccepted(submitted: AcceptanceSubmittedData, relayed: AcceptanceRelayedData, receiptUrl: string): WebhookEventBody<'agreement.accepted'> {
  const batched =
    relayed.batch === null
      ? {}
      : {
          evidenceMode: 'MERKLE_BATCHED',
          leaf: {
            acceptanceId: submitted.acceptanceId,
            message: submitted.message,
            signature: submitted.signature,
            signer: submitted.signer,
            versionAddress: submitted.versionAddress,
          },
          batch: { ...relayed.batch },
        };
  return {
    type: 'agreement.accepted',
    data: {
      acceptanceId: submitted.acceptanceId,
      transactionSignature: relayed.transactionSignature,
      slot: relayed.slot,
      commitment: relayed.commitment,
      signer: submitted.signer,
      signerType: submitted.signerType,
      protocol: submitted.protocol,
      fee: { payer: submitted.feePayer, lamports: relayed.feeLamports, sponsor: submitted.feeSponsor, reimbursedLamports: null },
      document: submitted.document,
      documentSlug: submitted.documentSlug,
      version: submitted.versionAddress,
      versionNumber: submitted.versionNumber,
      externalUserRef: submitted.externalUserRef,
      receiptUrl,
      verify: VERIFY_ADVISORY,
      ...batched,
    },
  };
}

/** `agreement.finalized` (spec §6.1). */
export function agreementFinalized(finalized: AcceptanceFinalizedData): WebhookEventBody<'agreement.finalized'> {
  return {
    type: 'agreement.finalized',
    data: { acceptanceId: finalized.acceptanceId, transactionSignature: finalized.transactionSignature, slot: finalized.slot, commitment: 'finalized' },
  };
}

/** `document.version_published` (spec §6.1): `document` and `version` are ledger addresses. */
export function versionPublished(published: VersionPublishedData): WebhookEventBody<'document.version_published'> {
  return {
    type: 'document.version_published',
    data: {
      document: published.document,
      version: published.versionAddress,
      versionNumber: published.number,
      versionLabel: published.label,
      fingerprint: published.fingerprint,
      contentHash: published.contentHash,
      transactionSignature: published.transactionSignature,
      publisher: published.publisher,
    },
  };
}

/** `organization.domain_verified` (spec §6.1); no attestation is written to the ledger (docs/api.md "Domains"). */
export function domainVerified(verified: DomainVerifiedData): WebhookEventBody<'organization.domain_verified'> {
  return { type: 'organization.domain_verified', data: { domain: verified.domain, attestationTransaction: null, expiresAt: verified.expiresAt } };
}

/**
 * `organization.member_changed` (spec §6.1). `memberAccount` is the account of the member's record on the ledger
 * when the protocol has one; member records are memos (docs/protocol.md "Member record"), so it is null, as is
 * `compromisedSince` until compromise reports are recorded.
 */
export function memberChanged(changed: MemberChangedData): WebhookEventBody<'organization.member_changed'> {
  return {
    type: 'organization.member_changed',
    data: { member: changed.member, memberAccount: null, roles: changed.roles, active: changed.active, compromisedSince: null, change: changed.change },
  };
}

/** Facts of a recorded proof (spec §2.6, §6.1 `proof.recorded`). */
export interface ProofRecordedFacts {
  proofId: string;
  type: string;
  reference: string;
  statementHash: string;
  transactionSignature: string;
  slot: number;
  signer: string;
  signerType: 'wallet' | 'passkey_p256' | 'passkey';
  externalUserRef: string | null;
  feePayer: string;
  feeSponsor: 'svc' | 'organization';
  feeLamports: number;
}

/** `proof.recorded` (spec §6.1); `fee` as in `agreement.accepted`. */
export function proofRecorded(proof: ProofRecordedFacts): WebhookEventBody<'proof.recorded'> {
  const { feePayer, feeSponsor, feeLamports, ...rest } = proof;
  return { type: 'proof.recorded', data: { ...rest, fee: { payer: feePayer, lamports: feeLamports, sponsor: feeSponsor, reimbursedLamports: null } } };
}

/** What happened to a signer (spec §6.1 `signer.changed` change values). */
export type SignerChange =
  | 'registered'
  | 'passkey_added'
  | 'recovery_kit_added'
  | 'passkey_revoked'
  | 'revoked'
  | 'rotated'
  | 'recovery_requested'
  | 'enroll'
  | 'rotate'
  | 'recover'
  | 'revoke';

/** Facts of a signer's registration or change (spec §2.7, §6.1 `signer.registered`, `signer.changed`). */
export interface SignerChangeFacts {
  signer: string;
  change: SignerChange;
  externalUserRef: string | null;
  /** The on-chain enrollment record, or null. */
  enrollment: Record<string, unknown> | null;
  /** The rotation, or null. */
  rotation: Record<string, unknown> | null;
  transactionSignature: string | null;
}

/** `signer.registered` for a registration, `signer.changed` for every other change. */
export function signerChanged(facts: SignerChangeFacts): WebhookEventBody<'signer.registered' | 'signer.changed'> {
  return {
    type: facts.change === 'registered' ? 'signer.registered' : 'signer.changed',
    data: { signer: facts.signer, change: facts.change, externalUserRef: facts.externalUserRef, enrollment: facts.enrollment, rotation: facts.rotation, transactionSignature: facts.transactionSignature },
  };
}

/** Facts of a sponsoring shard running low (spec §2.8 `sponsorLowBalanceLamports`, §6.1 `sponsorship.low_balance`). */
export interface LowBalanceFacts {
  nonceShard: string;
  depositAddress: string;
  spendableLamports: number;
  thresholdLamports: number;
  /** Recordings the spendable balance pays for at the measured fee (spec §8). */
  estimatedRecordsLeft: number;
}

export function sponsorshipLowBalance(facts: LowBalanceFacts): WebhookEventBody<'sponsorship.low_balance'> {
  return { type: 'sponsorship.low_balance', data: { ...facts } };
}

/** `webhook.test`, sent by the dashboard's test action. */
export function webhookTest(): WebhookEventBody<'webhook.test'> {
  return { type: 'webhook.test', data: { message: 'This is a test event from the agreement evidence service.' } };
}

const ADDR = { type: 'string', pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' } as const;
const SIGNER = { type: 'string', pattern: '^([1-9A-HJ-NP-Za-km-z]{32,44}|p256:0[23][0-9a-f]{64})$' } as const;
const SIG = { type: 'string', pattern: '^[1-9A-HJ-NP-Za-km-z]{64,90}$' } as const;
const HEX64 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
const COUNT = { type: 'integer', minimum: 0 } as const;
const SIGNER_TYPE = { enum: ['wallet', 'passkey_p256', 'passkey'] } as const;
const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
const object = (properties: Record<string, unknown>) => ({ type: 'object', additionalProperties: false, required: Object.keys(properties), properties });
/** A fee as spec §4.4 gives it: who paid, lamports, who sponsored, what the organization's sponsorship paid back. */
const FEE = object({ payer: ADDR, lamports: COUNT, sponsor: { enum: ['svc', 'organization'] }, reimbursedLamports: nullable(COUNT) });
/** `base` with further properties that may be absent. */
const withOptional = (base: ReturnType<typeof object>, optional: Record<string, unknown>) => ({ ...base, properties: { ...base.properties, ...optional } });
const signerChangeData = object({
  signer: SIGNER,
  change: { enum: ['registered', 'passkey_added', 'recovery_kit_added', 'passkey_revoked', 'revoked', 'rotated', 'recovery_requested', 'enroll', 'rotate', 'recover', 'revoke'] },
  externalUserRef: nullable({ type: 'string', minLength: 1, maxLength: 128 }),
  enrollment: nullable({ type: 'object' }),
  rotation: nullable({ type: 'object' }),
  transactionSignature: nullable(SIG),
});

/**
 * JSON Schema (draft 2020-12) of each type's `data` (spec §6.1), for receivers and for the tests that check every
 * mapping against it. Fields may be added later (spec §9 rule 2); the schemas describe this version exactly.
 */
export const WEBHOOK_DATA_SCHEMAS: Readonly<Record<WebhookEventType, object>> = {
  'agreement.accepted': withOptional(object({
    acceptanceId: HEX64,
    transactionSignature: SIG,
    slot: COUNT,
    commitment: { enum: ['confirmed', 'finalized'] },
    signer: SIGNER,
    signerType: SIGNER_TYPE,
    protocol: { enum: ['svc/1', 'svc/2'] },
    fee: FEE,
    document: ADDR,
    documentSlug: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 32 },
    version: ADDR,
    versionNumber: { type: 'integer', minimum: 1 },
    externalUserRef: nullable({ type: 'string', minLength: 1, maxLength: 128 }),
    receiptUrl: { type: 'string', format: 'uri' },
    verify: { type: 'string' },
  }), {
    evidenceMode: { const: 'MERKLE_BATCHED' },
    leaf: object({ acceptanceId: HEX64, message: { type: 'string', minLength: 1 }, signature: SIG, signer: SIGNER, versionAddress: ADDR }),
    batch: object({ lane: { type: 'integer', minimum: 0, maximum: 255 }, sequence: { type: 'integer', minimum: 1 }, size: { type: 'integer', minimum: 1, maximum: 1024 }, root: HEX64, leafIndex: { type: 'integer', minimum: 0, maximum: 1023 } }),
  }),
  'agreement.finalized': object({ acceptanceId: HEX64, transactionSignature: SIG, slot: COUNT, commitment: { const: 'finalized' } }),
  'document.version_published': object({
    document: ADDR,
    version: ADDR,
    versionNumber: { type: 'integer', minimum: 1 },
    versionLabel: { type: 'string', minLength: 1, maxLength: 16 },
    fingerprint: HEX64,
    contentHash: HEX64,
    transactionSignature: SIG,
    publisher: ADDR,
  }),
  'organization.domain_verified': object({ domain: { type: 'string', maxLength: 48 }, attestationTransaction: nullable(SIG), expiresAt: { type: 'string', format: 'date-time' } }),
  'organization.member_changed': object({
    member: ADDR,
    memberAccount: nullable(ADDR),
    roles: { type: 'array', items: { enum: ['admin', 'publisher'] } },
    active: { type: 'boolean' },
    compromisedSince: nullable({ type: 'string', format: 'date-time' }),
    change: { enum: ['added', 'updated', 'revoked', 'compromise_reported'] },
  }),
  'proof.recorded': object({
    proofId: HEX64,
    type: { type: 'string', minLength: 1 },
    reference: { type: 'string', minLength: 1, maxLength: 128 },
    statementHash: HEX64,
    transactionSignature: SIG,
    slot: COUNT,
    signer: SIGNER,
    signerType: SIGNER_TYPE,
    externalUserRef: nullable({ type: 'string', minLength: 1, maxLength: 128 }),
    fee: FEE,
  }),
  'signer.registered': signerChangeData,
  'signer.changed': signerChangeData,
  'sponsorship.low_balance': object({ nonceShard: ADDR, depositAddress: ADDR, spendableLamports: COUNT, thresholdLamports: COUNT, estimatedRecordsLeft: COUNT }),
  'webhook.test': object({ message: { type: 'string' } }),
};
