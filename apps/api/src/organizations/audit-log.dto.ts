import { ApiProperty } from '@nestjs/swagger';
import { HEX64, PageSizeQuery, PatternField, SIG } from '@svc/http';

/** Query of `GET /v1/organizations/{orgId}/audit-log` (spec §4.10): no other parameters. */
export class AuditLogQuery {
  // Any positive integer (spec §4.10); beyond every sequence it bounds nothing. Up to 30 digits, so the text stays short.
  @PatternField(/^[1-9][0-9]{0,29}$/, 1, 30, 'must be an integer greater than 0 (at most 30 digits)', 'invalid_request', { presence: 'optional', description: 'Entries with a smaller sequence only (the previous page\'s nextBeforeSequence)' })
  beforeSequence?: string;

  @PageSizeQuery()
  limit?: string;
}

export class AuditEntryResponse {
  @ApiProperty({ type: 'integer', minimum: 1 }) sequence!: number;
  @ApiProperty({ type: String, format: 'date-time' }) occurredAt!: string;
  @ApiProperty({ type: String, description: '`wallet:<address>`, `api-key:<id>`, `service:<component>`' }) actor!: string;
  @ApiProperty({ type: String, description: 'e.g. `api_key.created` (docs/api.md "Audit log")' }) action!: string;
  @ApiProperty({ type: String, nullable: true }) subject!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) details!: Record<string, unknown>;
  @ApiProperty({ type: String, description: 'Id of the recorded event the entry stands for' }) sourceEventId!: string;
  @ApiProperty({ type: String, pattern: HEX64.source }) previousHash!: string;
  @ApiProperty({ type: String, pattern: HEX64.source, description: 'SHA-256 of the RFC 8785 encoding of the entry\'s other fields and organizationId' }) hash!: string;
}

export class AuditHeadResponse {
  @ApiProperty({ type: 'integer', minimum: 0 }) sequence!: number;
  @ApiProperty({ type: String, pattern: HEX64.source }) hash!: string;
}

export class AuditLogPageResponse {
  @ApiProperty({ type: [AuditEntryResponse], description: 'Newest first' }) entries!: AuditEntryResponse[];
  @ApiProperty({ type: 'integer', nullable: true, description: 'Pass as beforeSequence for the next page; null on the last' }) nextBeforeSequence!: number | null;
  @ApiProperty({ type: AuditHeadResponse }) head!: AuditHeadResponse;
}

export class AuditChainBreakResponse {
  @ApiProperty({ type: 'integer', minimum: 1 }) sequence!: number;
  @ApiProperty({ enum: ['sequence_gap', 'previous_hash_mismatch', 'hash_mismatch'] }) reason!: string;
}

export class AuditAnchorResponse {
  @ApiProperty({ type: 'integer', minimum: 1 }) sequence!: number;
  @ApiProperty({ type: String, pattern: HEX64.source }) head!: string;
  @ApiProperty({ type: String, pattern: SIG.source }) transactionSignature!: string;
  @ApiProperty({ type: 'integer' }) slot!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) anchoredAt!: string | null;
  @ApiProperty({ type: Boolean, description: 'The stored entry at `sequence` has this hash, and the chain holds up to it' }) matchesLog!: boolean;
  @ApiProperty({ type: Boolean, description: "Its transaction succeeded on the ledger, paid and signed by this service's relayer, with the `svc/1 audit` record of this organization, sequence and head (docs/protocol.md §7.6)" }) onLedger!: boolean;
}

export class AuditVerifyResponse {
  @ApiProperty({ type: Boolean }) valid!: boolean;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Entries checked' }) entries!: number;
  @ApiProperty({ type: AuditHeadResponse, description: 'The last entry of the intact chain' }) head!: AuditHeadResponse;
  @ApiProperty({ type: AuditChainBreakResponse, nullable: true }) firstBreak!: AuditChainBreakResponse | null;
  @ApiProperty({ type: [AuditAnchorResponse], description: 'Anchors on the ledger, newest first (at most 20)' }) anchors!: AuditAnchorResponse[];
}
