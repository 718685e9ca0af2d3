/**
 * Shapes of the read models the projections write and the API reads.
 * Collection names carry the projection's version, so a changed projection rebuilds into fresh ones.
 */
import type { Doc } from '@svc/read-store';

export const COLLECTIONS = {
  organizations: 'organizations_v1',
  documents: 'documents_v1',
  versions: 'versions_v1',
  drafts: 'drafts_v1',
  contents: 'contents_v2',
  acceptances: 'acceptances_v1',
  sessions: 'sessions_v1',
} as const;

export interface OrganizationSettings {
  requireAcceptanceSessions: boolean;
  allowedRequestDomains: string[];
  signingPolicy: 'WALLET_ONLY' | 'PASSKEY_ONLY' | 'WALLET_OR_PASSKEY' | 'ACCOUNT_AND_PASSKEY';
  feeSponsor: 'svc' | 'organization';
  evidenceMode: 'DIRECT_ONCHAIN' | 'MERKLE_BATCHED';
}

export const DEFAULT_SETTINGS: OrganizationSettings = {
  requireAcceptanceSessions: false,
  allowedRequestDomains: [],
  signingPolicy: 'WALLET_ONLY',
  feeSponsor: 'svc',
  evidenceMode: 'DIRECT_ONCHAIN',
};

export interface OrganizationDoc extends Doc {
  organizationId: string;
  address: string;
  name: string;
  domain: string | null;
  authority: string;
  members: { address: string; roles: string[]; label: string | null }[];
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
  feeLamports: number | null;
  transactionSignature: string;
  slot: number | null;
  blockTime: number | null;
  commitment: 'confirmed' | 'finalized' | null;
  submittedAt: string;
  failureReason: string | null;
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
