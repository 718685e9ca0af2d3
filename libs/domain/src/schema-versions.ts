import type { DomainEventType } from './events';

/**
 * The schema version every event type is written with today (`metadata.schemaVersion`), matching the
 * newest `event-schemas/<Type>.v<N>.json`. Older stored versions are brought to this shape on read by
 * `upcast` (upcasters.ts); each bump adds a frozen schema file and one upcaster.
 *
 * - `SignInCompleted` 2: adds `signedAt`, the time of the wallet's sign-in signature (spec §5, fresh signature).
 * - `AcceptanceChallengeIssued` 2: adds `acceptanceSessionId` and `externalUserRef` (spec §4.5, acceptance sessions).
 * - `SignInChallengeIssued` 2: adds `purpose`, `sessionId` (re-authentication) and the issued fields `domain`,
 *   `statement`, `uri`, `chainId` (a wallet's message is checked field by field against them).
 * - `AcceptanceChallengeIssued` 3: adds `evidenceMode`, fixed when the challenge is issued (docs/protocol.md §7.7).
 * - `AcceptanceSubmitted` 2: `evidenceMode` may be `MERKLE_BATCHED`, whose submissions carry no transaction (null).
 * - `AcceptanceRelayed` 2: adds `batch`, the leaf's place in its batch (null in direct mode).
 */
export const CURRENT_SCHEMA_VERSION: Readonly<Record<DomainEventType, number>> = {
  OrganizationSynced: 1,
  OrganizationRefreshed: 1,
  DocumentSynced: 1,
  VersionPublished: 1,
  ContentStored: 1,
  DraftCreated: 1,
  DraftUpdated: 1,
  DraftPrepared: 1,
  DraftAbandoned: 1,
  DraftPublished: 1,
  AcceptanceChallengeIssued: 3,
  AcceptanceChallengeCompleted: 1,
  AcceptanceSubmitted: 2,
  AcceptanceResigned: 1,
  AcceptanceRelayed: 2,
  AcceptanceRelayFailed: 1,
  AcceptanceFinalized: 1,
  SignInChallengeIssued: 2,
  SignInCompleted: 2,
  DashboardSessionStarted: 1,
  DashboardSessionEnded: 1,
  OrganizationSettingsChanged: 1,
  ApiKeyCreated: 1,
  ApiKeyRevoked: 1,
  AcceptanceSessionCreated: 1,
  AcceptanceSessionConsumed: 1,
  AcceptanceSessionReleased: 1,
  MemberChanged: 1,
  MemberLabelSet: 1,
  DomainVerificationStarted: 1,
  DomainVerified: 1,
  DomainVerificationRevoked: 1,
  ShardSynced: 1,
  AuditEntryAppended: 1,
  AuditAnchorRequested: 1,
  AuditHeadAnchored: 1,
  AuditAnchorFailed: 1,
  DashboardSessionReauthenticated: 1,
  WebhookEndpointCreated: 1,
  WebhookEndpointUpdated: 1,
  WebhookSecretRotated: 1,
  WebhookEndpointDeleted: 1,
  WebhookTestRequested: 1,
  WebhookDeliveryScheduled: 1,
  WebhookDeliveryAttempted: 1,
  WebhookDeliveryCancelled: 1,
  AcceptanceBatched: 1,
  BatchClosed: 1,
  BatchResigned: 1,
  BatchAnchored: 1,
};

/** Whether `type` names a domain event type (a key of {@link CURRENT_SCHEMA_VERSION}). */
export function isDomainEventType(type: string): type is DomainEventType {
  return Object.prototype.hasOwnProperty.call(CURRENT_SCHEMA_VERSION, type);
}
