import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { ADDR, HEX64, SLUG } from '@svc/http';
import { VersionResponse } from '../acceptance-sessions/server.responses';

/** A document in an organization's public record, with its current version (null before the first publication). */
export class PublicDocumentSummary {
  @ApiProperty({ type: String, pattern: ADDR.source }) address!: string;
  @ApiProperty({ type: String, pattern: SLUG.source }) slug!: string;
  @ApiProperty({ type: String }) title!: string;
  @ApiProperty({ type: VersionResponse, nullable: true }) version!: VersionResponse | null;
}

/** An organization's public record (spec §4.2). */
export class PublicOrganizationView {
  @ApiProperty({ type: String, pattern: ADDR.source }) address!: string;
  @ApiProperty({ type: String }) name!: string;
  @ApiProperty({ type: String, nullable: true, description: 'Its domain verified by DNS while in force, else null (docs/api.md "Domains")' }) domain!: string | null;
  @ApiProperty({ enum: ['WALLET_ONLY', 'PASSKEY_ONLY', 'WALLET_OR_PASSKEY', 'ACCOUNT_AND_PASSKEY'] }) signingPolicy!: string;
  @ApiProperty({ type: [PublicDocumentSummary], description: 'By slug' }) documents!: PublicDocumentSummary[];
}

/** `{organization}` */
export class PublicOrganizationResponse {
  @ApiProperty({ type: PublicOrganizationView }) organization!: PublicOrganizationView;
}

/** A document's identity. */
export class PublicDocumentRef {
  @ApiProperty({ type: String, pattern: ADDR.source }) address!: string;
  @ApiProperty({ type: String, pattern: SLUG.source }) slug!: string;
  @ApiProperty({ type: String }) title!: string;
}

/** `{organization, document, version, contentHash, versions, gatePolicy}` (spec §4.2). */
export class PublicDocumentResponse {
  @ApiProperty({ type: String, pattern: ADDR.source }) organization!: string;
  @ApiProperty({ type: PublicDocumentRef }) document!: PublicDocumentRef;
  @ApiProperty({ type: VersionResponse, nullable: true, description: 'The current version; null before the first publication' }) version!: VersionResponse | null;
  @ApiProperty({ type: String, pattern: HEX64.source, nullable: true, description: "The current version's content hash" }) contentHash!: string | null;
  @ApiProperty({ type: [VersionResponse], description: 'Every version, newest first' }) versions!: VersionResponse[];
  @ApiProperty({ type: Object, nullable: true, description: 'Always null on this deployment (gating is not offered)' }) gatePolicy!: null;
}

/** A version's document: slug and title are null when the document is not synced. */
export class VersionDocumentRef {
  @ApiProperty({ type: String, pattern: ADDR.source }) address!: string;
  @ApiProperty({ type: String, pattern: SLUG.source, nullable: true }) slug!: string | null;
  @ApiProperty({ type: String, nullable: true }) title!: string | null;
}

/** `{organization, document, version, latest}` */
export class PublicVersionResponse {
  @ApiProperty({ type: String, pattern: ADDR.source }) organization!: string;
  @ApiProperty({ type: VersionDocumentRef }) document!: VersionDocumentRef;
  @ApiProperty({ type: VersionResponse }) version!: VersionResponse;
  @ApiProperty({ type: Boolean, description: "Whether it is the document's current version" }) latest!: boolean;
}

/** A block of parsed Markdown; which fields it has depends on `type` (apps/api/src/documents/parsed-content.ts). */
export class ContentBlock {
  @ApiProperty({ enum: ['heading', 'paragraph', 'list', 'blockquote', 'code', 'table', 'rule', 'html'] }) type!: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 6, description: 'heading' }) level?: number;
  @ApiPropertyOptional({ type: String, description: 'heading, paragraph, code, html: inline formatting flattened to text' }) text?: string;
  @ApiPropertyOptional({ type: Boolean, description: 'list' }) ordered?: boolean;
  @ApiPropertyOptional({ type: 'integer', nullable: true, description: 'list: first number of an ordered list' }) start?: number | null;
  @ApiPropertyOptional({ type: 'array', items: { type: 'array', items: { $ref: getSchemaPath('ContentBlock') } }, description: 'list: each item a list of blocks' })
  items?: ContentBlock[][];
  @ApiPropertyOptional({ type: () => [ContentBlock], description: 'blockquote' }) blocks?: ContentBlock[];
  @ApiPropertyOptional({ type: String, nullable: true, description: 'code: language of a fenced block' }) lang?: string | null;
  @ApiPropertyOptional({ type: [String], description: 'table' }) header?: string[];
  @ApiPropertyOptional({ type: 'array', items: { type: 'array', items: { type: 'string' } }, description: 'table' }) rows?: string[][];
}

/** `{contentHash, format: "markdown", blocks}` */
export class ParsedContentResponse {
  @ApiProperty({ type: String, pattern: HEX64.source }) contentHash!: string;
  @ApiProperty({ enum: ['markdown'] }) format!: string;
  @ApiProperty({ type: [ContentBlock] }) blocks!: ContentBlock[];
}
