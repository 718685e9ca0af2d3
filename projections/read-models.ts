/**
 * Shapes of the read models the projections write and the API reads.
 * Collection names carry the projection's version, so a changed projection rebuilds into fresh ones.
 */
import { DEFAULT_ORGANIZATION_SETTINGS, type ApiKeyScope, type AuditEntryAppendedData, type BatchPlacement, type OrganizationSettingsValues, type SubscribableWebhookEventType } from '@svc/domain';
import type { Doc } from '@svc/read-store';

export const COLLECTIONS = {
  organizations: 'organizations_v2',
  documents: 'documents_v1',
  versions: 'versions_v1',
  drafts: 'drafts_v1',
  contents: 'contents_v2',
  acceptances: 'acceptances_v5',
  batches: 'batches_v1',
  sessions: 'sessions_v1',
  apiKeys: 'api_keys_v1',
  auditEntries: 'audit_entries_v1',
  auditHeads: 'audit_heads_v1',
  auditAnchors: 'audit_anchors_v1',
  memberships: 'memberships_v1',
  domainVerifications: 'domain_verifications_v1',
  shards: 'shards_v1',
  acceptanceStats: 'acceptance_stats_v2',
  signerStats: 'signer_stats_v2',
  statsDocuments: 'stats_documents_v2',
  statsVersions: 'stats_versions_v2',
  webhooks: 'webhooks_v1',
  webhookDeliveries: 'webhook_deliveries_v2',
} as const;

/**
 * A Merkle batch of acceptances (docs/protocol.md §7.7): its leaves' evidence in tree order and its anchoring
 * transaction; `_id` is the root. Serves `GET /v1/public/batches/{root}` once `status` is `anchored`.
 */
export interface BatchDoc extends Doc {
  stream: string;
  lane: number;
  sequence: number;
  root: string;
  size: number;
  leaves: Array<{ acceptanceId: string; message: string; signature: string; signer: string; versionAddress: string }>;
  status: 'closed' | 'anchored';
  feePayer: string;
  transactionSignature: string;
  slot: number | null;
  blockTime: number | null;
  feeLamports: number | null;
  closedAt: string;
}

/** A webhook endpoint as the dashboard lists it (docs/api.md "Webhooks"); never its secret, sealed or not. */
export interface WebhookDoc extends Doc {
  webhookId: string;
  organizationId: string;
  url: string;
  description: string | null;
  events: SubscribableWebhookEventType[];
  status: 'active' | 'disabled';
  secretPrefix: string;
  createdAt: string;
  createdBy: string;
  /** Log position of the creation: events before it are not sent to the endpoint. */
  createdPosition: string;
  updatedAt: string | null;
  secretRotatedAt: string | null;
  deleted: boolean;
}

/** One attempt of a delivery, as the delivery log shows it. */
export interface WebhookAttemptView {
  attempt: number;
  attemptedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  succeeded: boolean;
}

/** A delivery of one event to one endpoint, with every attempt (the delivery log, docs/api.md "Webhooks"). */
export interface WebhookDeliveryDoc extends Doc {
  deliveryId: string;
  /** Log position of the scheduling event: the delivery log's order (newest first) and its cursor. */
  seq: number;
  webhookId: string;
  organizationId: string;
  eventId: string;
  eventType: string;
  scheduledAt: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  nextAttemptAt: string | null;
  attempts: WebhookAttemptView[];
  cancelReason: string | null;
}

/** Settings of spec §2.8, every key with its value in force (defaults: docs/api.md "Organization settings"). */
export type OrganizationSettings = OrganizationSettingsValues;

export const DEFAULT_SETTINGS: OrganizationSettings = DEFAULT_ORGANIZATION_SETTINGS;

export interface OrganizationDoc extends Doc {
  organizationId: string;
  address: string;
  name: string;
  domain: string | null;
  authority: string;
  members: { address: string; roles: string[]; label: string | null }[];
  /** The domain verified by DNS (docs/api.md "Domains"), while in force; null otherwise. */
  verifiedDomain?: string | null;
  verifiedDomainExpiresAt?: string | null;
  settings: OrganizationSettings;
  creationSignature: string;
  slot: number;
  createdAt: string | null;
  syncedAt: string;
  refreshedAt: string | null;
}

export interface VersionView {
  address: string;
  number: number;
  label: string;
  title: string;
  fingerprint: string;
  contentHash: string;
  effectiveAt: number | null;
  transactionSignature: string;
  slot: number;
  publishedAt: string | null;
  publisher: string;
}

export interface DocumentDoc extends Doc {
  documentId: string;
  address: string;
  organizationId: string;
  organization: string;
  slug: string;
  title: string;
  creationSignature: string;
  createdAt: string | null;
  currentVersion: VersionView | null;
}

export interface VersionDoc extends Doc, VersionView {
  documentId: string;
  document: string;
  organizationId: string;
  organization: string;
  draftId: string | null;
}

export interface DraftDoc extends Doc {
  draftId: string;
  documentId: string;
  organizationId: string;
  status: 'open' | 'prepared' | 'published' | 'abandoned';
  title: string;
  versionLabel: string;
  effectiveAt: number | null;
  contentHash: string;
  changeSummary: string | null;
  prepared: { number: number; contentHash: string; fingerprint: string } | null;
  publishedVersion: string | null;
  publicationSignature: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface ContentDoc extends Doc {
  contentHash: string;
  text: string;
  byteLength: number;
  mediaType: string;
  /** Whether a published version has this content (only then is it public). */
  published: boolean;
}

export interface AcceptanceDoc extends Doc {
  acceptanceId: string;
  status: 'submitted' | 'confirmed' | 'failed';
  challengeId: string;
  organizationId: string;
  organization: string;
  documentId: string;
  document: string;
  documentSlug: string;
  versionAddress: string;
  versionNumber: number;
  signer: string;
  signerType: 'wallet';
  protocol: string;
  message: string;
  signature: string;
  requestDomain: string;
  externalUserRef: string | null;
  evidenceMode: string;
  feePayer: string;
  feeSponsor: string;
  /** Network fee, or for a batched acceptance its share of the anchoring fee (docs/protocol.md §7.7); null until recorded. */
  feeLamports: number | null;
  /** Null while a batched acceptance waits for its batch to be anchored (spec §2.3). */
  transactionSignature: string | null;
  /** Where a batched acceptance's leaf is, once its batch is anchored; null in direct mode and before. */
  batch: BatchPlacement | null;
  slot: number | null;
  /** Unix seconds of the ledger block; for a batched acceptance waiting for its batch, of its submission. */
  blockTime: number | null;
  commitment: 'confirmed' | 'finalized' | null;
  submittedAt: string;
  failureReason: string | null;
  /**
   * Global log position of the event that recorded the acceptance for its organization (a direct acceptance's
   * relay outcome, a batched acceptance's submission), null until then: the order of acceptance search (newest
   * first), which only ever grows, so cursors stay stable as acceptances arrive.
   */
  confirmedSeq: number | null;
}

/** An API key as lists show it; `keyHash` is the SHA-256 of the key, the key itself is not stored (spec §5). */
export interface ApiKeyDoc extends Doc {
  keyId: string;
  organizationId: string;
  organization: string;
  name: string;
  scopes: ApiKeyScope[];
  keyPrefix: string;
  keyHash: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  createdBy: string;
}

export interface SessionDoc extends Doc {
  sessionId: string;
  address: string;
  tokenHash: string;
  csrfHash: string;
  signedAt: string;
  expiresAt: string;
  endedAt: string | null;
}

/** One member of one organization (the owner included), for "organizations of this wallet". */
export interface MembershipDoc extends Doc {
  organizationId: string;
  member: string;
  roles: string[];
}

export interface DomainVerificationDoc extends Doc {
  verificationId: string;
  organizationId: string;
  domain: string;
  status: 'pending' | 'verified' | 'revoked';
  recordName: string;
  recordValue: string;
  startedBy: string;
  startedAt: string;
  checkBefore: string;
  verifiedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface ShardDoc extends Doc {
  shard: string;
  organizationId: string;
  organization: string;
  operator: string;
  creationSignature: string;
  slot: number;
  createdAt: string | null;
  balanceLamports: number;
  rentExemptLamports: number;
  syncedAt: string;
}

/** Acceptances confirmed on the ledger for one version of one document on one UTC day, and their fees. */
export interface AcceptanceStatDoc extends Doc {
  organizationId: string;
  documentId: string;
  documentSlug: string;
  versionAddress: string;
  versionNumber: number;
  /** `YYYY-MM-DD` (UTC) of the confirmation. */
  day: string;
  acceptances: number;
  feeLamports: number;
  /** Log position of the last relay outcome counted here (decimal). */
  position: string;
}

/** One signer of one organization. */
export interface SignerStatDoc extends Doc {
  organizationId: string;
  signer: string;
  acceptances: number;
  firstAcceptedAt: string;
  lastAcceptedAt: string;
  /** Log position of the last relay outcome counted here (decimal). */
  position: string;
}

/** A document's slug, for the stats of its versions (`_id`: the document's id). */
export interface StatsDocumentDoc extends Doc {
  slug: string;
}

/** What the stats need of a published version to count its acceptances (`_id`: the version's address). */
export interface StatsVersionDoc extends Doc {
  organizationId: string;
  documentId: string;
  documentSlug: string;
  versionNumber: number;
}


/** An entry of an organization's audit log, as chained (docs/api.md "Audit log"). */
export interface AuditEntryDoc extends Doc, AuditEntryAppendedData {}

/** The head of an organization's audit log and its anchoring. */
export interface AuditHeadDoc extends Doc {
  organizationId: string;
  sequence: number;
  head: string;
  /** Sequence covered by the latest anchor the ledger recorded; absent before the first. */
  anchoredSequence?: number;
}

/** An anchor of an audit log head recorded on the ledger. */
export interface AuditAnchorDoc extends Doc {
  organizationId: string;
  sequence: number;
  head: string;
  transactionSignature: string;
  slot: number;
  anchoredAt: string | null;
}
