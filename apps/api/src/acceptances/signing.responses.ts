import { ApiProperty, PickType } from '@nestjs/swagger';
import { ADDR, HEX64, SIG } from '@svc/http';
import { VersionResponse } from '../acceptance-sessions/server.responses';

/** The version a challenge asks to accept: its fields and fingerprint (docs/protocol.md "Version record"). */
export class ChallengeVersionView extends PickType(VersionResponse, ['address', 'number', 'label', 'title', 'fingerprint', 'contentHash', 'effectiveAt'] as const) {}

/** The message to sign and what the browser keeps to submit it (spec §4.4). */
export class ChallengeResponse {
  @ApiProperty({ type: String, format: 'uuid' }) challengeId!: string;
  @ApiProperty({ type: String, description: 'The exact text to sign, UTF-8 (docs/protocol.md "Acceptance message")' }) message!: string;
  @ApiProperty({ type: String, pattern: '^[0-9a-f]{32}$' }) nonce!: string;
  @ApiProperty({ type: String, format: 'date-time' }) issuedAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) expiresAt!: string;
  @ApiProperty({ type: String, description: 'Secret the browser sends back on submit and status reads' }) clientBinding!: string;
  @ApiProperty({ enum: ['svc/1'] }) protocol!: string;
  @ApiProperty({ enum: ['wallet'] }) signerType!: string;
  @ApiProperty({ enum: ['svc', 'organization'] }) feeSponsor!: string;
  @ApiProperty({ enum: ['DIRECT_ONCHAIN', 'MERKLE_BATCHED'] }) evidenceMode!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) organization!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) document!: string;
  @ApiProperty({ type: ChallengeVersionView }) version!: ChallengeVersionView;
}

/** Who paid the network fee of an acceptance. */
export class AcceptanceFeeView {
  @ApiProperty({ type: String, pattern: ADDR.source, description: 'Fee payer of the transaction' }) payer!: string;
  @ApiProperty({ type: 'integer', minimum: 0, nullable: true, description: 'Lamports (batched: the share of the anchoring fee); null while a batched acceptance awaits anchoring' })
  lamports!: number | null;
  @ApiProperty({ enum: ['svc', 'organization'] }) sponsor!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Lamports; null: the service paid' }) reimbursedLamports!: number | null;
}

/** The recorded acceptance, confirmed by the ledger (spec §4.4). */
export class SubmitResponse {
  @ApiProperty({ type: String, pattern: HEX64.source }) acceptanceId!: string;
  @ApiProperty({ type: String, pattern: SIG.source, nullable: true }) transactionSignature!: string | null;
  @ApiProperty({ type: 'integer', minimum: 0, description: '0 while a batched acceptance awaits anchoring (as in its record)' }) slot!: number;
  @ApiProperty({ enum: ['confirmed', 'pending_batch'] }) status!: string;
  @ApiProperty({ enum: ['DIRECT_ONCHAIN', 'MERKLE_BATCHED'] }) evidenceMode!: string;
  @ApiProperty({ enum: ['wallet'] }) signerType!: string;
  @ApiProperty({ type: AcceptanceFeeView }) fee!: AcceptanceFeeView;
  @ApiProperty({ type: String, format: 'uri' }) receiptUrl!: string;
}

/** A challenge's state for the browser holding its binding. */
export class ChallengeStatusResponse {
  @ApiProperty({ type: String, format: 'uuid' }) challengeId!: string;
  @ApiProperty({ enum: ['open', 'accepted', 'expired'] }) status!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) signer!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) versionAddress!: string;
  @ApiProperty({ type: String, format: 'date-time' }) issuedAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) expiresAt!: string;
  @ApiProperty({ type: String, pattern: HEX64.source, nullable: true, description: 'Set once accepted' }) acceptanceId!: string | null;
  @ApiProperty({ type: String, format: 'uri', nullable: true }) receiptUrl!: string | null;
}
