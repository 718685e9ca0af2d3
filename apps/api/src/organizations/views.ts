import type { DocumentDoc, DomainVerificationDoc, DraftDoc, OrganizationDoc, ShardDoc, VersionDoc, VersionView } from '@svc/projections';

/** Dashboard organization record. */
export function organizationView(o: OrganizationDoc) {
  return {
    id: o.organizationId,
    address: o.address,
    name: o.name,
    domain: o.domain,
    verifiedDomain: o.verifiedDomain ?? null,
    verifiedDomainExpiresAt: o.verifiedDomainExpiresAt ?? null,
    authority: o.authority,
    members: o.members,
    settings: o.settings,
    creationSignature: o.creationSignature,
    createdAt: o.createdAt,
    syncedAt: o.syncedAt,
    refreshedAt: o.refreshedAt,
  };
}

/** Version as the spec's §2.2 shape plus its evidence fields. */
export function versionView(v: VersionView) {
  return {
    address: v.address,
    number: v.number,
    label: v.label,
    title: v.title,
    fingerprint: v.fingerprint,
    effectiveAt: v.effectiveAt,
    contentHash: v.contentHash,
    transactionSignature: v.transactionSignature,
    slot: v.slot,
    publishedAt: v.publishedAt,
    publisher: v.publisher,
  };
}

/** Dashboard document record. */
export function documentView(d: DocumentDoc) {
  return {
    id: d.documentId,
    address: d.address,
    organizationId: d.organizationId,
    organization: d.organization,
    slug: d.slug,
    title: d.title,
    creationSignature: d.creationSignature,
    createdAt: d.createdAt,
    currentVersion: d.currentVersion ? versionView(d.currentVersion) : null,
  };
}

export function versionListView(versions: VersionDoc[]) {
  return versions.map((v) => versionView(v));
}

/**
 * Dashboard draft record. The source text is not public: `contentUrl` is the dashboard route that serves it to
 * the organization (`GET /v1/drafts/{id}/content`, beside the public content mirror `…/v1/public/content/`).
 */
export function draftView(d: DraftDoc, contentMirror: string) {
  return {
    id: d.draftId,
    documentId: d.documentId,
    status: d.status,
    title: d.title,
    versionLabel: d.versionLabel,
    effectiveAt: d.effectiveAt,
    contentHash: d.contentHash,
    contentUrl: contentMirror.replace(/\/v1\/public\/content\/$/, `/v1/drafts/${d.draftId}/content`),
    changeSummary: d.changeSummary,
    prepared: d.prepared,
    publishedVersion: d.publishedVersion,
    publicationSignature: d.publicationSignature,
    createdBy: d.createdBy,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

/** Dashboard domain verification (docs/api.md "Domains"); `status` says `expired` once a deadline passed at `now`. */
export function domainVerificationView(v: DomainVerificationDoc, now: Date) {
  const lapsed = (v.status === 'pending' && Date.parse(v.checkBefore) <= now.getTime()) || (v.status === 'verified' && v.expiresAt !== null && Date.parse(v.expiresAt) <= now.getTime());
  return {
    id: v.verificationId,
    domain: v.domain,
    status: lapsed ? ('expired' as const) : v.status,
    record: { type: 'TXT' as const, name: v.recordName, value: v.recordValue },
    startedBy: v.startedBy,
    startedAt: v.startedAt,
    checkBefore: v.checkBefore,
    verifiedAt: v.verifiedAt,
    expiresAt: v.expiresAt,
    revokedAt: v.revokedAt,
    attestationTransaction: null,
  };
}

/** Dashboard capacity shard (docs/api.md "Shards"). */
export function shardView(s: ShardDoc) {
  return {
    address: s.shard,
    organization: s.organization,
    operator: s.operator,
    creationSignature: s.creationSignature,
    slot: s.slot,
    createdAt: s.createdAt,
    balanceLamports: s.balanceLamports,
    rentExemptLamports: s.rentExemptLamports,
    spendableLamports: Math.max(0, s.balanceLamports - s.rentExemptLamports),
    syncedAt: s.syncedAt,
  };
}
