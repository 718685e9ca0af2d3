import { ApiProperty, PickType } from '@nestjs/swagger';
import { ADDR, HEX64, SIG, SLUG } from '@svc/http';
import { VersionResponse } from '../acceptance-sessions/server.responses';

/** `products` of the settings (spec §2.8). */
export class ProductsSettingsView {
  @ApiProperty({ type: Boolean }) gate!: boolean;
}

/** Every setting of spec §2.8 with its value in force (docs/api.md "Organization settings"). */
export class OrganizationSettingsView {
  @ApiProperty({ type: Boolean }) requireAcceptanceSessions!: boolean;
  @ApiProperty({ type: [String], maxItems: 20, description: 'Host names allowed to request signatures; empty: any site' }) allowedRequestDomains!: string[];
  @ApiProperty({ enum: ['WALLET_ONLY', 'PASSKEY_ONLY', 'WALLET_OR_PASSKEY', 'ACCOUNT_AND_PASSKEY'] }) signingPolicy!: string;
  @ApiProperty({ enum: ['svc', 'organization'] }) feeSponsor!: string;
  @ApiProperty({ type: Boolean }) sponsorFallbackToStele!: boolean;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Lamports' }) sponsorLowBalanceLamports!: number;
  @ApiProperty({ enum: ['DIRECT_ONCHAIN', 'MERKLE_BATCHED'] }) evidenceMode!: string;
  @ApiProperty({ type: ProductsSettingsView }) products!: ProductsSettingsView;
}

/** A member of an organization (docs/protocol.md "Member record"); the owner is the authority, with every role. */
export class MemberView {
  @ApiProperty({ type: String, pattern: ADDR.source }) address!: string;
  @ApiProperty({ type: [String], enum: ['owner', 'admin', 'publisher'] }) roles!: string[];
  @ApiProperty({ type: String, nullable: true, maxLength: 80, description: 'Dashboard label, not on the ledger' }) label!: string | null;
}

/** The dashboard's organization record (spec §4.10). */
export class OrganizationView {
  @ApiProperty({ type: String, format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) address!: string;
  @ApiProperty({ type: String }) name!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The domain the ledger record claims (names nothing until verified)' }) domain!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Domain verified by DNS (docs/api.md "Domains")' }) verifiedDomain!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) verifiedDomainExpiresAt!: string | null;
  @ApiProperty({ type: String, pattern: ADDR.source, description: 'The wallet that created it: the owner' }) authority!: string;
  @ApiProperty({ type: [MemberView] }) members!: MemberView[];
  @ApiProperty({ type: OrganizationSettingsView }) settings!: OrganizationSettingsView;
  @ApiProperty({ type: String, pattern: SIG.source }) creationSignature!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Block time of the creation' }) createdAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) syncedAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) refreshedAt!: string | null;
}

/** `{organization}` */
export class OrganizationResponse {
  @ApiProperty({ type: OrganizationView }) organization!: OrganizationView;
}

/** `{organizations}` */
export class OrganizationListResponse {
  @ApiProperty({ type: [OrganizationView] }) organizations!: OrganizationView[];
}

/** The dashboard's document record, with its current version (null before the first publication). */
export class DocumentView {
  @ApiProperty({ type: String, format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) address!: string;
  @ApiProperty({ type: String, format: 'uuid' }) organizationId!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) organization!: string;
  @ApiProperty({ type: String, pattern: SLUG.source }) slug!: string;
  @ApiProperty({ type: String }) title!: string;
  @ApiProperty({ type: String, pattern: SIG.source }) creationSignature!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) createdAt!: string | null;
  @ApiProperty({ type: VersionResponse, nullable: true }) currentVersion!: VersionResponse | null;
}

/** `{document}` */
export class DocumentResponse {
  @ApiProperty({ type: DocumentView }) document!: DocumentView;
}

/** `{documents}` */
export class DocumentListResponse {
  @ApiProperty({ type: [DocumentView] }) documents!: DocumentView[];
}

/** `{document, versions}`, versions oldest first. */
export class DocumentWithVersionsResponse extends DocumentResponse {
  @ApiProperty({ type: [VersionResponse] }) versions!: VersionResponse[];
}

/** What a prepared draft fixed: the next version number, its content and fingerprint. */
export class PreparedDraftView {
  @ApiProperty({ type: 'integer', minimum: 1 }) number!: number;
  @ApiProperty({ type: String, pattern: HEX64.source }) contentHash!: string;
  @ApiProperty({ type: String, pattern: HEX64.source }) fingerprint!: string;
}

/** A draft of a document's next version (docs/api.md "Publishing"). */
export class DraftView {
  @ApiProperty({ type: String, format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, format: 'uuid' }) documentId!: string;
  @ApiProperty({ enum: ['open', 'prepared', 'published', 'abandoned'] }) status!: string;
  @ApiProperty({ type: String }) title!: string;
  @ApiProperty({ type: String }) versionLabel!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Unix seconds; null: effective on publication' }) effectiveAt!: number | null;
  @ApiProperty({ type: String, pattern: HEX64.source }) contentHash!: string;
  @ApiProperty({ type: String, format: 'uri', description: "The dashboard route serving the draft's text (not public)" }) contentUrl!: string;
  @ApiProperty({ type: String, nullable: true }) changeSummary!: string | null;
  @ApiProperty({ type: PreparedDraftView, nullable: true }) prepared!: PreparedDraftView | null;
  @ApiProperty({ type: String, pattern: ADDR.source, nullable: true, description: 'Address of the version it became' }) publishedVersion!: string | null;
  @ApiProperty({ type: String, pattern: SIG.source, nullable: true }) publicationSignature!: string | null;
  @ApiProperty({ type: String, pattern: ADDR.source }) createdBy!: string;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;
}

/** `{draft}` */
export class DraftResponse {
  @ApiProperty({ type: DraftView }) draft!: DraftView;
}

/** What the organization's wallet puts on the ledger to publish a prepared draft (docs/protocol.md "Version record"). */
export class PreparedPublicationView extends PickType(VersionResponse, ['number', 'label', 'title', 'contentHash', 'effectiveAt', 'fingerprint'] as const) {
  @ApiProperty({ type: String, pattern: ADDR.source }) organization!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) document!: string;
  @ApiProperty({ type: String, description: 'The exact memo text the publication transaction carries' }) memo!: string;
}

/** `{draft, publication}` */
export class PreparedDraftResponse extends DraftResponse {
  @ApiProperty({ type: PreparedPublicationView }) publication!: PreparedPublicationView;
}

/** `{version, document}`: the recorded version and its document. */
export class PublicationConfirmedResponse {
  @ApiProperty({ type: VersionResponse }) version!: VersionResponse;
  @ApiProperty({ type: DocumentView }) document!: DocumentView;
}
