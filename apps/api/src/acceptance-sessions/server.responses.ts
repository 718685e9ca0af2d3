import { ApiProperty } from '@nestjs/swagger';
import { ADDR, HEX64, SIG } from '@svc/http';

/** `{sessionToken, expiresAt}` (spec §2.4). */
export class AcceptanceSessionResponse {
  @ApiProperty({ type: String, pattern: '^[A-Za-z0-9_-]{64}$', description: 'Opaque, single use; a secret for one page view (an idempotent replay answers it again)' }) sessionToken!: string;
  @ApiProperty({ type: String, format: 'date-time' }) expiresAt!: string;
}

/** The version of spec §2.2 with its content hash and publication. */
export class VersionResponse {
  @ApiProperty({ type: String, pattern: ADDR.source }) address!: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) number!: number;
  @ApiProperty({ type: String }) label!: string;
  @ApiProperty({ type: String }) title!: string;
  @ApiProperty({ type: String, pattern: HEX64.source }) fingerprint!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Unix seconds; null: effective on publication' }) effectiveAt!: number | null;
  @ApiProperty({ type: String, pattern: HEX64.source }) contentHash!: string;
  @ApiProperty({ type: String, pattern: SIG.source }) transactionSignature!: string;
  @ApiProperty({ type: 'integer' }) slot!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) publishedAt!: string | null;
  @ApiProperty({ type: String, pattern: ADDR.source }) publisher!: string;
}

/** `{organization, document, version}` (spec §2.2, §4.2). */
export class LatestVersionResponse {
  @ApiProperty({ type: String, pattern: ADDR.source }) organization!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) document!: string;
  @ApiProperty({ type: VersionResponse }) version!: VersionResponse;
}
