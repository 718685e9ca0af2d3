import { ApiProperty } from '@nestjs/swagger';
import { ADDR, HEX64, SIG } from '@svc/http';

/** The acceptance record of spec §2.3, plus the document's and organization's addresses. */
export class AcceptanceRecordResponse {
  @ApiProperty({ type: String, pattern: HEX64.source }) acceptanceId!: string;
  @ApiProperty({ type: String, pattern: SIG.source, nullable: true, description: 'null while a batched acceptance awaits anchoring' }) transactionSignature!: string | null;
  @ApiProperty({ type: 'integer', minimum: 0 }) slot!: number;
  @ApiProperty({ type: String, format: 'date-time', description: "The block's time; the submission's while a batched acceptance awaits its batch" }) blockTime!: string;
  @ApiProperty({ type: String, description: 'ADDR or P256ID' }) signer!: string;
  @ApiProperty({ enum: ['wallet', 'passkey_p256', 'passkey'] }) signerType!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) versionAddress!: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) versionNumber!: number;
  @ApiProperty({ type: String, description: 'The site that asked for the signature (host of its Origin)' }) requestDomain!: string;
  @ApiProperty({ type: String, nullable: true, description: "The organization's reference of its user; null on public reads and without a session" }) externalUserRef!: string | null;
  @ApiProperty({ enum: ['confirmed', 'finalized'], description: '`confirmed` (also while a batched acceptance awaits anchoring), then `finalized`' }) commitment!: string;
  @ApiProperty({ enum: ['DIRECT_ONCHAIN', 'MERKLE_BATCHED'] }) evidenceMode!: string;
  @ApiProperty({ type: String }) documentSlug!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) document!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) organization!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) feePayer!: string;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Lamports' }) feeLamports!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Lamports; null: the service paid' }) reimbursedLamports!: number | null;
}

/** `{acceptance, receiptUrl}` (spec §2.3). */
export class AcceptanceResponse {
  @ApiProperty({ type: AcceptanceRecordResponse }) acceptance!: AcceptanceRecordResponse;
  @ApiProperty({ type: String, format: 'uri' }) receiptUrl!: string;
}

/** A page of acceptance search (spec §4.5). */
export class AcceptancePageResponse {
  @ApiProperty({ type: [AcceptanceRecordResponse] }) acceptances!: AcceptanceRecordResponse[];
  @ApiProperty({ type: String, nullable: true, maxLength: 160, description: 'Pass unchanged as `cursor` for the next page; null on the last page' }) nextCursor!: string | null;
}
