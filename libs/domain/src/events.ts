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
 * - `signin-<nonce>`: SignInChallengeIssued, SignInCompleted (single use of a nonce)
 * - `session-<UUID>`: DashboardSessionStarted, DashboardSessionEnded
 * - `organization-<ADDR>` also: MemberChanged (member records read from the ledger), MemberLabelSet
 * - `domain-<host>`: DomainVerificationStarted, DomainVerified, DomainVerificationRevoked (one stream per host name,
 *   so that one organization at a time holds a verified domain)
 * - `shard-<ADDR>`: ShardSynced
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
}
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
  evidenceMode: 'DIRECT_ONCHAIN';
  feePayer: Address;
  feeSponsor: 'svc' | 'organization';
  transactionSignature: string;
  transactionWire: string;
  lastValidBlockHeight: string;
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
  feeLamports: number;
  commitment: 'confirmed' | 'finalized';
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
export interface SignInChallengeIssuedData {
  nonce: string;
  address: Address;
  message: string;
  issuedAt: IsoTime;
  expiresAt: IsoTime;
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
  | { type: 'MemberChanged'; data: MemberChangedData }
  | { type: 'MemberLabelSet'; data: MemberLabelSetData }
  | { type: 'DomainVerificationStarted'; data: DomainVerificationStartedData }
  | { type: 'DomainVerified'; data: DomainVerifiedData }
  | { type: 'DomainVerificationRevoked'; data: DomainVerificationRevokedData }
  | { type: 'ShardSynced'; data: ShardSyncedData };

export type DomainEventType = DomainEvent['type'];
export type EventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;
export type DataOf<T extends DomainEventType> = EventOf<T>['data'];

/** Every event type, for schema coverage checks and subscriptions. */
export const EVENT_TYPES: readonly DomainEventType[] = [
  'OrganizationSynced', 'OrganizationRefreshed', 'DocumentSynced', 'VersionPublished', 'ContentStored',
  'DraftCreated', 'DraftUpdated', 'DraftPrepared', 'DraftAbandoned', 'DraftPublished',
  'AcceptanceChallengeIssued', 'AcceptanceChallengeCompleted', 'AcceptanceSubmitted', 'AcceptanceResigned',
  'AcceptanceRelayed', 'AcceptanceRelayFailed', 'AcceptanceFinalized',
  'SignInChallengeIssued', 'SignInCompleted', 'DashboardSessionStarted', 'DashboardSessionEnded',
  'MemberChanged', 'MemberLabelSet', 'DomainVerificationStarted', 'DomainVerified', 'DomainVerificationRevoked', 'ShardSynced',
];

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
  domain: (host: string) => `domain-${host}`,
  shard: (address: Address) => `shard-${address}`,
} as const;
