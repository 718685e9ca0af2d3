/**
 * Every event type the service stores, as a discriminated union of `{type, data}`.
 *
 * Streams (one per thing that must be unique or ordered):
 * - `organization-<ADDR>`: OrganizationSynced, OrganizationRefreshed
 * - `document-<ADDR>`: DocumentSynced, VersionPublished
 * - `content-<HEX64>`: ContentStored
 * - `draft-<UUID>`: DraftCreated, DraftUpdated, DraftPrepared, DraftAbandoned, DraftPublished
 * - `challenge-<UUID>`: AcceptanceChallengeIssued, AcceptanceChallengeCompleted
 * - `acceptance-<versionADDR>-<signer>`: AcceptanceSubmitted, AcceptanceRelayed, AcceptanceRelayFailed,
 *   AcceptanceResigned, AcceptanceFinalized (the stream name is the uniqueness key: one acceptance per signer and version)
 * - `signin-<nonce>`: SignInChallengeIssued, SignInCompleted (single use of a sign-in or re-authentication nonce)
 * - `session-<UUID>`: DashboardSessionStarted, DashboardSessionReauthenticated, DashboardSessionEnded
 * - `settings-<orgADDR>`: OrganizationSettingsChanged (the organization's settings of spec §2.8)
 * - `apikey-<UUID>`: ApiKeyCreated, ApiKeyRevoked (spec §5 "API keys")
 * - `acceptancesession-<UUID>`: AcceptanceSessionCreated, AcceptanceSessionConsumed, AcceptanceSessionReleased
 *   (spec §2.4, §4.5: single use, claimed by the submission that uses it)
 * - `organization-<ADDR>` also: MemberChanged (member records read from the ledger), MemberLabelSet
 * - `domain-<host>`: DomainVerificationStarted, DomainVerified, DomainVerificationRevoked (one stream per host name,
 *   so that one organization at a time holds a verified domain)
 * - `shard-<ADDR>`: ShardSynced
 * - `audit-<orgUUID>`: AuditEntryAppended, AuditAnchorRequested, AuditHeadAnchored, AuditAnchorFailed (the organization's
 *   hash-chained audit log, docs/api.md "Audit log")
 * - `webhook-<UUID>`: WebhookEndpointCreated, WebhookEndpointUpdated, WebhookSecretRotated, WebhookEndpointDeleted,
 *   WebhookTestRequested (an organization's webhook endpoint, spec §4.10, §6.1)
 * - `webhookdelivery-<UUID>`: WebhookDeliveryScheduled, WebhookDeliveryAttempted, WebhookDeliveryCancelled (one
 *   event sent to one endpoint, with every attempt; its id is derived from the endpoint and the event)
 * - `batch-<lane>-<sequence>`: BatchClosed, BatchResigned, BatchAnchored (one Merkle batch of acceptances, numbered
 *   without gaps in its lane; docs/architecture.md "Batches")
 * - `acceptance-…` also: AcceptanceBatched (a batched acceptance's place in its lane and batch)
 *
 * Each type has a JSON Schema per version in `event-schemas/<Type>.v<N>.json`, checked on append and on read; older
 * versions are upcast on read (upcasters.ts).
 */

import type { VersionFields } from './version';

export type Hex64 = string;
export type Address = string;
export type IsoTime = string;

export interface OrganizationSyncedData {
  organizationId: string;
  address: Address;
  authority: Address;
  name: string;
  domain: string | null;
  creationSignature: string;
  slot: number;
  blockTime: number | null;
  syncedBy: Address;
}
export interface OrganizationRefreshedData {
  organizationId: string;
  address: Address;
  transactionCount: number;
  refreshedBy: Address;
}
export interface DocumentSyncedData {
  documentId: string;
  address: Address;
  organizationId: string;
  organization: Address;
  slug: string;
  title: string;
  creationSignature: string;
  slot: number;
  blockTime: number | null;
}
export interface VersionPublishedData extends VersionFields {
  documentId: string;
  organizationId: string;
  organization: Address;
  versionAddress: Address;
  fingerprint: Hex64;
  transactionSignature: string;
  slot: number;
  blockTime: number | null;
  publisher: Address;
  draftId: string | null;
}
export interface ContentStoredData {
  contentHash: Hex64;
  text: string;
  byteLength: number;
  mediaType: string;
}
export interface DraftCreatedData {
  draftId: string;
  documentId: string;
  organizationId: string;
  title: string;
  versionLabel: string;
  effectiveAt: number | null;
  contentHash: Hex64;
  changeSummary: string | null;
  createdBy: Address;
}
export interface DraftUpdatedData {
  draftId: string;
  title?: string;
  versionLabel?: string;
  effectiveAt?: number | null;
  contentHash?: Hex64;
  changeSummary?: string | null;
}
export interface DraftPreparedData {
  draftId: string;
  number: number;
  contentHash: Hex64;
  fingerprint: Hex64;
  preparedBy: Address;
}
export interface DraftAbandonedData {
  draftId: string;
  abandonedBy: Address;
}
export interface DraftPublishedData {
  draftId: string;
  versionAddress: Address;
  transactionSignature: string;
}
export interface AcceptanceChallengeIssuedData {
  challengeId: string;
  organizationId: string;
  organization: Address;
  documentId: string;
  document: Address;
  documentSlug: string;
  versionAddress: Address;
  versionNumber: number;
  signer: Address;
  signerType: 'wallet';
  protocol: 'svc/1';
  message: string;
  nonce: string;
  clientBindingHash: Hex64;
  requestDomain: string;
  issuedAt: IsoTime;
  expiresAt: IsoTime;
  /** The acceptance session presented with the challenge (spec §4.5), or null (schema version 2). */
  acceptanceSessionId: string | null;
  /** The organization's reference of its user, from that session; never on the ledger nor in the message. */
  externalUserRef: string | null;
  /** How the acceptance will be recorded, the organization's setting when the challenge was issued (schema version 3). */
  evidenceMode: EvidenceMode;
}
/** Direct: one transaction per acceptance; batched: a Merkle root per batch (docs/protocol.md §7.7). */
export type EvidenceMode = 'DIRECT_ONCHAIN' | 'MERKLE_BATCHED';
export interface AcceptanceChallengeCompletedData {
  challengeId: string;
  acceptanceId: Hex64;
}
export interface AcceptanceSubmittedData {
  acceptanceId: Hex64;
  challengeId: string;
  organizationId: string;
  organization: Address;
  documentId: string;
  document: Address;
  documentSlug: string;
  versionAddress: Address;
  versionNumber: number;
  signer: Address;
  signerType: 'wallet';
  protocol: 'svc/1';
  message: string;
  signature: string;
  requestDomain: string;
  externalUserRef: string | null;
  /** Schema version 2 adds `MERKLE_BATCHED`, whose submissions carry no transaction of their own (the three fields below null). */
  evidenceMode: EvidenceMode;
  feePayer: Address;
  feeSponsor: 'svc' | 'organization';
  transactionSignature: string | null;
  transactionWire: string | null;
  lastValidBlockHeight: string | null;
}
/** A batched acceptance assigned to batch `sequence` of lane `lane`, recorded before that batch is closed. */
export interface AcceptanceBatchedData {
  acceptanceId: Hex64;
  lane: number;
  sequence: number;
}
/** Where a batched acceptance's leaf is: the batch's anchor record fields and the leaf's index. */
export interface BatchPlacement {
  lane: number;
  sequence: number;
  size: number;
  root: Hex64;
  leafIndex: number;
}
/** One leaf of a batch: the acceptance's evidence (docs/protocol.md §7.7) and its stream. */
export interface BatchLeafData {
  acceptanceId: Hex64;
  acceptanceStream: string;
  message: string;
  signature: string;
  signer: Address;
  versionAddress: Address;
}
/** A batch closed: its leaves in tree order, its root, and the signed anchoring transaction, recorded before it is sent. */
export interface BatchClosedData {
  lane: number;
  sequence: number;
  root: Hex64;
  leaves: BatchLeafData[];
  feePayer: Address;
  transactionSignature: string;
  transactionWire: string;
  lastValidBlockHeight: string;
  closedAt: IsoTime;
}
export interface BatchResignedData {
  transactionSignature: string;
  transactionWire: string;
  lastValidBlockHeight: string;
  replaces: string;
}
export interface BatchAnchoredData {
  transactionSignature: string;
  slot: number;
  blockTime: number | null;
  /** Fee of the anchoring transaction, in lamports. */
  feeLamports: number;
}
export interface AcceptanceResignedData {
  acceptanceId: Hex64;
  transactionSignature: string;
  transactionWire: string;
  lastValidBlockHeight: string;
  replaces: string;
}
export interface AcceptanceRelayedData {
  acceptanceId: Hex64;
  transactionSignature: string;
  slot: number;
  blockTime: number | null;
  /** For a batched acceptance, the acceptance's share of the anchoring fee (docs/protocol.md §7.7). */
  feeLamports: number;
  commitment: 'confirmed' | 'finalized';
  /** Where the leaf of a batched acceptance is; null in direct mode (schema version 2). */
  batch: BatchPlacement | null;
}
export interface AcceptanceRelayFailedData {
  acceptanceId: Hex64;
  transactionSignature: string;
  reason: string;
  logs: string[];
}
export interface AcceptanceFinalizedData {
  acceptanceId: Hex64;
  transactionSignature: string;
  slot: number;
}
/** A sign-in message issued for a wallet (schema v2 adds what the message is for and its fields, docs/api.md "Dashboard sign-in"). */
export interface SignInChallengeIssuedData {
  nonce: string;
  address: Address;
  /** The exact text issued. */
  message: string;
  issuedAt: IsoTime;
  expiresAt: IsoTime;
  /** `sign_in` opens a session; `reauthenticate` renews the fresh-signature window of session `sessionId`. */
  purpose: 'sign_in' | 'reauthenticate';
  /** The session a re-authentication renews; null for a sign-in. */
  sessionId: string | null;
  /** The message's fields, as issued: host of the app, statement line, URI and CAIP-2 chain id. */
  domain: string;
  statement: string;
  uri: string;
  chainId: string;
}
export interface SignInCompletedData {
  nonce: string;
  address: Address;
  sessionId: string;
  signedAt: IsoTime;
}
export interface DashboardSessionStartedData {
  sessionId: string;
  address: Address;
  tokenHash: Hex64;
  csrfHash: Hex64;
  signedAt: IsoTime;
  expiresAt: IsoTime;
}
export interface DashboardSessionEndedData {
  sessionId: string;
  reason: 'logout' | 'expired';
}
/** The session's wallet signed a re-authentication message: its fresh-signature window starts again at `signedAt`. */
export interface DashboardSessionReauthenticatedData {
  sessionId: string;
  /** The re-authentication nonce used (stream `signin-<nonce>`). */
  nonce: string;
  signedAt: IsoTime;
}

/** Settings of an organization (spec §2.8), every key present with its value in force. */
export interface OrganizationSettingsValues {
  requireAcceptanceSessions: boolean;
  allowedRequestDomains: string[];
  signingPolicy: 'WALLET_ONLY' | 'PASSKEY_ONLY' | 'WALLET_OR_PASSKEY' | 'ACCOUNT_AND_PASSKEY';
  feeSponsor: 'svc' | 'organization';
  sponsorFallbackToStele: boolean;
  sponsorLowBalanceLamports: number;
  evidenceMode: 'DIRECT_ONCHAIN' | 'MERKLE_BATCHED';
  products: { gate: boolean };
}
export interface OrganizationSettingsChangedData {
  organizationId: string;
  organization: Address;
  /** The keys the change set, with their new values. */
  changes: Partial<OrganizationSettingsValues>;
  /** Every setting after the change. */
  settings: OrganizationSettingsValues;
  changedBy: Address;
}
/** The seven scopes of spec §5 "API keys". */
export type ApiKeyScope = 'acceptances:write' | 'acceptances:read' | 'documents:read' | 'proofs:write' | 'proofs:read' | 'signers:read' | 'signers:write';
export interface ApiKeyCreatedData {
  keyId: string;
  organizationId: string;
  organization: Address;
  name: string;
  scopes: ApiKeyScope[];
  /** The first characters of the key (its network prefix and a few more), to recognise it in lists. */
  keyPrefix: string;
  /** SHA-256 of the whole key (hex); the key itself is never stored. */
  keyHash: Hex64;
  createdAt: IsoTime;
  expiresAt: IsoTime | null;
  createdBy: Address;
}
export interface ApiKeyRevokedData {
  keyId: string;
  organizationId: string;
  revokedAt: IsoTime;
  revokedBy: Address;
}
export interface AcceptanceSessionCreatedData {
  acceptanceSessionId: string;
  organizationId: string;
  organization: Address;
  /** The document the session is bound to, or null for any document of the organization. */
  document: Address | null;
  externalUserRef: string | null;
  /** SHA-256 of the session token (hex). */
  tokenHash: Hex64;
  createdAt: IsoTime;
  expiresAt: IsoTime;
  /** The API key that created it. */
  keyId: string;
}
export interface AcceptanceSessionConsumedData {
  acceptanceSessionId: string;
  acceptanceId: Hex64;
  challengeId: string;
}
export interface AcceptanceSessionReleasedData {
  acceptanceSessionId: string;
  acceptanceId: Hex64;
}
/** Roles a member record grants (docs/protocol.md "Member record"). */
export type MemberRecordRoleName = 'admin' | 'publisher';

export interface MemberChangedData {
  organizationId: string;
  organization: Address;
  member: Address;
  roles: MemberRecordRoleName[];
  active: boolean;
  /** Spec §6.1 `organization.member_changed` change. */
  change: 'added' | 'updated' | 'revoked';
  /** The member record's transaction. */
  transactionSignature: string;
  slot: number;
  blockTime: number | null;
}
export interface MemberLabelSetData {
  organizationId: string;
  member: Address;
  /** Dashboard-only label, at most 80 characters; null clears it. */
  label: string | null;
  setBy: Address;
}
export interface DomainVerificationStartedData {
  verificationId: string;
  organizationId: string;
  organization: Address;
  domain: string;
  /** DNS name of the TXT record to publish. */
  recordName: string;
  /** Value of the TXT record to publish. */
  recordValue: string;
  startedBy: Address;
  startedAt: IsoTime;
  /** End of the window in which the TXT record must be found. */
  checkBefore: IsoTime;
}
export interface DomainVerifiedData {
  verificationId: string;
  organizationId: string;
  organization: Address;
  domain: string;
  verifiedAt: IsoTime;
  /** The verification lapses then unless checked again (a renewal). */
  expiresAt: IsoTime;
  checkedBy: Address;
}
export interface DomainVerificationRevokedData {
  verificationId: string;
  organizationId: string;
  domain: string;
  revokedBy: Address;
}
export interface ShardSyncedData {
  organizationId: string;
  organization: Address;
  shard: Address;
  operator: Address;
  creationSignature: string;
  slot: number;
  blockTime: number | null;
  /** Lamports the shard held when it was synced, and its rent exemption (not spendable). */
  balanceLamports: number;
  rentExemptLamports: number;
  syncedBy: Address;
}

export interface AuditEntryAppendedData {
  organizationId: string;
  sequence: number;
  occurredAt: IsoTime;
  actor: string;
  action: string;
  subject: string | null;
  details: Record<string, unknown>;
  sourceEventId: string;
  previousHash: Hex64;
  hash: Hex64;
}
export interface AuditAnchorRequestedData {
  organizationId: string;
  organization: Address;
  sequence: number;
  head: Hex64;
  transactionSignature: string;
  transactionWire: string;
  lastValidBlockHeight: string;
}
export interface AuditHeadAnchoredData {
  organizationId: string;
  sequence: number;
  head: Hex64;
  transactionSignature: string;
  slot: number;
  blockTime: number | null;
}
export interface AuditAnchorFailedData {
  organizationId: string;
  sequence: number;
  transactionSignature: string;
  reason: string;
}
/** The webhook event types an endpoint may subscribe to (spec §6.1: every type but `webhook.test`). */
export type SubscribableWebhookEventType =
  | 'agreement.accepted'
  | 'agreement.finalized'
  | 'document.version_published'
  | 'organization.domain_verified'
  | 'organization.member_changed'
  | 'proof.recorded'
  | 'signer.registered'
  | 'signer.changed'
  | 'sponsorship.low_balance';
/** Every webhook event type of spec §6.1. */
export type WebhookEventType = SubscribableWebhookEventType | 'webhook.test';

export interface WebhookEndpointCreatedData {
  webhookId: string;
  organizationId: string;
  organization: Address;
  /** HTTPS URL, at most 2048 characters, checked to name a public address when created. */
  url: string;
  description: string | null;
  events: SubscribableWebhookEventType[];
  /**
   * The signing secret (`whsec_…`) sealed with the deployment's webhook key (AES-256-GCM, docs/api.md "Webhooks"):
   * `v1.<iv>.<tag>.<ciphertext>`, base64url parts. Never the secret in clear.
   */
  sealedSecret: string;
  /** The first characters of the secret (`whsec_` and four more), to recognise it in lists. */
  secretPrefix: string;
  createdAt: IsoTime;
  createdBy: Address;
}
export interface WebhookEndpointUpdatedData {
  webhookId: string;
  organizationId: string;
  /** The keys the change set, with their new values. */
  changes: { status?: 'active' | 'disabled'; events?: SubscribableWebhookEventType[] };
  status: 'active' | 'disabled';
  events: SubscribableWebhookEventType[];
  updatedAt: IsoTime;
  updatedBy: Address;
}
export interface WebhookSecretRotatedData {
  webhookId: string;
  organizationId: string;
  sealedSecret: string;
  secretPrefix: string;
  rotatedAt: IsoTime;
  rotatedBy: Address;
}
export interface WebhookEndpointDeletedData {
  webhookId: string;
  organizationId: string;
  deletedAt: IsoTime;
  deletedBy: Address;
}
export interface WebhookTestRequestedData {
  webhookId: string;
  organizationId: string;
  requestedAt: IsoTime;
  requestedBy: Address;
}
/** The body of a delivery (spec §6.1), the same bytes for every attempt. */
export interface WebhookPayload {
  /** `evt_` and 32 hex digits derived from the id of the domain event that caused it. */
  id: string;
  type: WebhookEventType;
  createdAt: IsoTime;
  organizationId: string;
  data: Record<string, unknown>;
}
export interface WebhookDeliveryScheduledData {
  deliveryId: string;
  webhookId: string;
  organizationId: string;
  payload: WebhookPayload;
  /** When the first attempt is due. */
  dueAt: IsoTime;
}
export interface WebhookDeliveryAttemptedData {
  deliveryId: string;
  webhookId: string;
  organizationId: string;
  /** 1 to 10. */
  attempt: number;
  attemptedAt: IsoTime;
  /** Milliseconds from sending the request to the answer's status line (or the failure). */
  durationMs: number;
  /** HTTP status answered, or null when none came (refused address, connection error, timeout). */
  statusCode: number | null;
  /** Why the attempt failed, or null when it succeeded. */
  error: string | null;
  succeeded: boolean;
  /** When the next attempt is due (spec §8 schedule), or null: delivered, or the tenth attempt failed. */
  nextAttemptAt: IsoTime | null;
}
export interface WebhookDeliveryCancelledData {
  deliveryId: string;
  webhookId: string;
  organizationId: string;
  reason: 'endpoint_disabled' | 'endpoint_deleted';
  cancelledAt: IsoTime;
}

export type DomainEvent =
  | { type: 'OrganizationSynced'; data: OrganizationSyncedData }
  | { type: 'OrganizationRefreshed'; data: OrganizationRefreshedData }
  | { type: 'DocumentSynced'; data: DocumentSyncedData }
  | { type: 'VersionPublished'; data: VersionPublishedData }
  | { type: 'ContentStored'; data: ContentStoredData }
  | { type: 'DraftCreated'; data: DraftCreatedData }
  | { type: 'DraftUpdated'; data: DraftUpdatedData }
  | { type: 'DraftPrepared'; data: DraftPreparedData }
  | { type: 'DraftAbandoned'; data: DraftAbandonedData }
  | { type: 'DraftPublished'; data: DraftPublishedData }
  | { type: 'AcceptanceChallengeIssued'; data: AcceptanceChallengeIssuedData }
  | { type: 'AcceptanceChallengeCompleted'; data: AcceptanceChallengeCompletedData }
  | { type: 'AcceptanceSubmitted'; data: AcceptanceSubmittedData }
  | { type: 'AcceptanceResigned'; data: AcceptanceResignedData }
  | { type: 'AcceptanceRelayed'; data: AcceptanceRelayedData }
  | { type: 'AcceptanceRelayFailed'; data: AcceptanceRelayFailedData }
  | { type: 'AcceptanceFinalized'; data: AcceptanceFinalizedData }
  | { type: 'SignInChallengeIssued'; data: SignInChallengeIssuedData }
  | { type: 'SignInCompleted'; data: SignInCompletedData }
  | { type: 'DashboardSessionStarted'; data: DashboardSessionStartedData }
  | { type: 'DashboardSessionEnded'; data: DashboardSessionEndedData }
  | { type: 'OrganizationSettingsChanged'; data: OrganizationSettingsChangedData }
  | { type: 'ApiKeyCreated'; data: ApiKeyCreatedData }
  | { type: 'ApiKeyRevoked'; data: ApiKeyRevokedData }
  | { type: 'AcceptanceSessionCreated'; data: AcceptanceSessionCreatedData }
  | { type: 'AcceptanceSessionConsumed'; data: AcceptanceSessionConsumedData }
  | { type: 'AcceptanceSessionReleased'; data: AcceptanceSessionReleasedData }
  | { type: 'MemberChanged'; data: MemberChangedData }
  | { type: 'MemberLabelSet'; data: MemberLabelSetData }
  | { type: 'DomainVerificationStarted'; data: DomainVerificationStartedData }
  | { type: 'DomainVerified'; data: DomainVerifiedData }
  | { type: 'DomainVerificationRevoked'; data: DomainVerificationRevokedData }
  | { type: 'ShardSynced'; data: ShardSyncedData }
  | { type: 'AuditEntryAppended'; data: AuditEntryAppendedData }
  | { type: 'AuditAnchorRequested'; data: AuditAnchorRequestedData }
  | { type: 'AuditHeadAnchored'; data: AuditHeadAnchoredData }
  | { type: 'AuditAnchorFailed'; data: AuditAnchorFailedData }
  | { type: 'DashboardSessionReauthenticated'; data: DashboardSessionReauthenticatedData }
  | { type: 'WebhookEndpointCreated'; data: WebhookEndpointCreatedData }
  | { type: 'WebhookEndpointUpdated'; data: WebhookEndpointUpdatedData }
  | { type: 'WebhookSecretRotated'; data: WebhookSecretRotatedData }
  | { type: 'WebhookEndpointDeleted'; data: WebhookEndpointDeletedData }
  | { type: 'WebhookTestRequested'; data: WebhookTestRequestedData }
  | { type: 'WebhookDeliveryScheduled'; data: WebhookDeliveryScheduledData }
  | { type: 'WebhookDeliveryAttempted'; data: WebhookDeliveryAttemptedData }
  | { type: 'WebhookDeliveryCancelled'; data: WebhookDeliveryCancelledData }
  | { type: 'AcceptanceBatched'; data: AcceptanceBatchedData }
  | { type: 'BatchClosed'; data: BatchClosedData }
  | { type: 'BatchResigned'; data: BatchResignedData }
  | { type: 'BatchAnchored'; data: BatchAnchoredData };

export type DomainEventType = DomainEvent['type'];
export type EventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;
export type DataOf<T extends DomainEventType> = EventOf<T>['data'];

/** Every event type, for schema coverage checks and subscriptions. */
export const EVENT_TYPES: readonly DomainEventType[] = [
  'OrganizationSynced', 'OrganizationRefreshed', 'DocumentSynced', 'VersionPublished', 'ContentStored',
  'DraftCreated', 'DraftUpdated', 'DraftPrepared', 'DraftAbandoned', 'DraftPublished',
  'AcceptanceChallengeIssued', 'AcceptanceChallengeCompleted', 'AcceptanceSubmitted', 'AcceptanceResigned',
  'AcceptanceRelayed', 'AcceptanceRelayFailed', 'AcceptanceFinalized',
  'SignInChallengeIssued', 'SignInCompleted', 'DashboardSessionStarted', 'DashboardSessionEnded', 'DashboardSessionReauthenticated',
  'OrganizationSettingsChanged', 'ApiKeyCreated', 'ApiKeyRevoked',
  'AcceptanceSessionCreated', 'AcceptanceSessionConsumed', 'AcceptanceSessionReleased',
  'MemberChanged', 'MemberLabelSet', 'DomainVerificationStarted', 'DomainVerified', 'DomainVerificationRevoked', 'ShardSynced',
  'AuditEntryAppended', 'AuditAnchorRequested', 'AuditHeadAnchored', 'AuditAnchorFailed',
  'WebhookEndpointCreated', 'WebhookEndpointUpdated', 'WebhookSecretRotated', 'WebhookEndpointDeleted', 'WebhookTestRequested',
  'WebhookDeliveryScheduled', 'WebhookDeliveryAttempted', 'WebhookDeliveryCancelled',
  'AcceptanceBatched', 'BatchClosed', 'BatchResigned', 'BatchAnchored',
];

/**
 * The version and signer an acceptance stream belongs to ({@link streams}.acceptance), or null for another stream.
 * A version address is base58 (no `-`), so the signer is everything after the second dash.
 */
export function acceptanceStreamParts(streamId: string): { versionAddress: Address; signer: string } | null {
  if (!streamId.startsWith('acceptance-')) return null;
  const dash = streamId.indexOf('-', 'acceptance-'.length);
  if (dash < 0) return null;
  return { versionAddress: streamId.slice('acceptance-'.length, dash), signer: streamId.slice(dash + 1) };
}

/** Stream names, in one place so that a typo cannot split a stream. */
export const streams = {
  organization: (address: Address) => `organization-${address}`,
  document: (address: Address) => `document-${address}`,
  content: (hash: Hex64) => `content-${hash}`,
  draft: (draftId: string) => `draft-${draftId}`,
  challenge: (challengeId: string) => `challenge-${challengeId}`,
  acceptance: (versionAddress: Address, signer: string) => `acceptance-${versionAddress}-${signer}`,
  signIn: (nonce: string) => `signin-${nonce}`,
  session: (sessionId: string) => `session-${sessionId}`,
  settings: (organization: Address) => `settings-${organization}`,
  apiKey: (keyId: string) => `apikey-${keyId}`,
  acceptanceSession: (acceptanceSessionId: string) => `acceptancesession-${acceptanceSessionId}`,
  domain: (host: string) => `domain-${host}`,
  shard: (address: Address) => `shard-${address}`,
  audit: (organizationId: string) => `audit-${organizationId}`,
  webhook: (webhookId: string) => `webhook-${webhookId}`,
  webhookDelivery: (deliveryId: string) => `webhookdelivery-${deliveryId}`,
  batch: (lane: number, sequence: number) => `batch-${lane}-${sequence}`,
} as const;
