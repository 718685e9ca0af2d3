import { ApiProperty, PickType } from '@nestjs/swagger';
import { ADDR, HEX64, SIG, SLUG } from '@svc/http';
import { AcceptanceRecordResponse } from './acceptance.responses';
import { AcceptanceFeeView } from './signing.responses';
import { VersionResponse } from '../acceptance-sessions/server.responses';
import { PublicDocumentRef } from '../documents/public-documents.responses';

/** The acceptance a transaction records; `acceptance` and `receiptUrl` are null when the service holds no record of it. */
export class TransactionAcceptanceResponse {
  @ApiProperty({ type: String, pattern: HEX64.source }) acceptanceId!: string;
  @ApiProperty({ type: String, pattern: SIG.source }) transactionSignature!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) versionAddress!: string;
  @ApiProperty({ type: AcceptanceRecordResponse, nullable: true }) acceptance!: AcceptanceRecordResponse | null;
  @ApiProperty({ type: String, format: 'uri', nullable: true }) receiptUrl!: string | null;
}

/** `network` of a receipt. */
export class ReceiptNetworkView {
  @ApiProperty({ type: String, description: 'CAIP-2: `solana:` + the first 32 characters of the genesis hash' }) chainId!: string;
  @ApiProperty({ type: String, minLength: 1, maxLength: 64 }) label!: string;
  @ApiProperty({ type: String, pattern: ADDR.source, description: 'The program carrying the records (Memo v2)' }) programId!: string;
}

/** `transaction` of a receipt. */
export class ReceiptTransactionView {
  @ApiProperty({ type: String, pattern: SIG.source }) signature!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) slot!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Unix seconds of the block; null when the ledger did not know it' }) blockTime!: number | null;
}

/** `acceptance` of a receipt: the signed message and its signature. */
export class ReceiptAcceptanceView {
  @ApiProperty({ type: String, pattern: ADDR.source }) signer!: string;
  @ApiProperty({ enum: ['wallet'] }) signerType!: string;
  @ApiProperty({ type: String, description: 'The exact signed `svc/1` message' }) message!: string;
  @ApiProperty({ type: String, pattern: SIG.source, description: 'Base58 Ed25519 signature over the UTF-8 message' }) signature!: string;
  @ApiProperty({ type: String }) requestDomain!: string;
}

/** `organization` of a receipt. */
export class ReceiptOrganizationView {
  @ApiProperty({ type: String, pattern: ADDR.source }) address!: string;
  @ApiProperty({ type: String }) name!: string;
}

/** `version` of a receipt. */
export class ReceiptVersionView extends PickType(VersionResponse, ['address', 'number', 'label', 'title', 'contentHash', 'fingerprint', 'effectiveAt'] as const) {
  @ApiProperty({ type: String, pattern: SIG.source, description: 'Signature of the publication transaction' }) publicationSignature!: string;
}

/** Where a batched acceptance's leaf is, and its inclusion proof (docs/protocol.md §8.1). */
export class ReceiptBatchView {
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 255 }) lane!: number;
  @ApiProperty({ type: 'integer', minimum: 1 }) sequence!: number;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1024 }) size!: number;
  @ApiProperty({ type: String, pattern: HEX64.source, description: 'Merkle root (RFC 6962) recorded by the anchoring transaction' }) root!: string;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 1023 }) leafIndex!: number;
  @ApiProperty({ type: String, pattern: HEX64.source }) leafHash!: string;
  @ApiProperty({ type: [String], maxItems: 10, description: 'Audit path, leaf side first' }) proof!: string[];
}

/**
 * The self-contained receipt (docs/protocol.md "Receipt"), verifiable with `svc verify`: `svc-receipt-v1`, or
 * `svc-receipt/2` for batched evidence (then with `evidenceMode` and `batch`; `transaction` is the anchoring one).
 */
export class ReceiptView {
  @ApiProperty({ enum: ['svc-receipt-v1', 'svc-receipt/2'] }) format!: string;
  @ApiProperty({ enum: ['MERKLE_BATCHED'], required: false, description: 'svc-receipt/2 only' }) evidenceMode?: string;
  @ApiProperty({ type: ReceiptBatchView, required: false, description: 'svc-receipt/2 only' }) batch?: ReceiptBatchView;
  @ApiProperty({ type: String, pattern: HEX64.source }) acceptanceId!: string;
  @ApiProperty({ type: ReceiptNetworkView }) network!: ReceiptNetworkView;
  @ApiProperty({ type: ReceiptTransactionView }) transaction!: ReceiptTransactionView;
  @ApiProperty({ type: ReceiptAcceptanceView }) acceptance!: ReceiptAcceptanceView;
  @ApiProperty({ type: ReceiptOrganizationView }) organization!: ReceiptOrganizationView;
  @ApiProperty({ type: PublicDocumentRef }) document!: PublicDocumentRef;
  @ApiProperty({ type: ReceiptVersionView }) version!: ReceiptVersionView;
  @ApiProperty({ type: String, description: 'The full text of the version' }) documentText!: string;
  @ApiProperty({ type: AcceptanceFeeView }) fees!: AcceptanceFeeView;
  @ApiProperty({ type: String, format: 'date-time' }) issuedAt!: string;
}

/** One check of a verification. */
export class VerificationCheckView {
  @ApiProperty({ type: String, example: 'transaction.commitment' }) id!: string;
  @ApiProperty({ type: String }) label!: string;
  @ApiProperty({ enum: ['pass', 'fail', 'warn', 'skip'] }) status!: string;
  @ApiProperty({ type: String }) detail!: string;
  @ApiProperty({ type: Boolean, description: 'Critical checks decide validity; the others only warn' }) critical!: boolean;
}

/** The verification of a receipt against the ledger, made now. */
export class VerificationReportView {
  @ApiProperty({ enum: ['VALID', 'VALID_WITH_WARNINGS', 'INCONCLUSIVE'], description: 'INVALID is answered 422 verification_failed' }) verdict!: string;
  @ApiProperty({ type: String }) summary!: string;
  @ApiProperty({ type: [VerificationCheckView] }) checks!: VerificationCheckView[];
}

/** `{receipt, report}` */
export class ReceiptWithReportResponse {
  @ApiProperty({ type: ReceiptView }) receipt!: ReceiptView;
  @ApiProperty({ type: VerificationReportView }) report!: VerificationReportView;
}

/** What the service knows of a signer. */
export class SignerSummaryView {
  @ApiProperty({ type: String, pattern: ADDR.source }) publicKey!: string;
  @ApiProperty({ enum: ['wallet'] }) signerType!: string;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Every public acceptance of the signer (the list shows the newest 200)' }) acceptanceCount!: number;
  @ApiProperty({ type: String, format: 'date-time', description: 'blockTime of the oldest' }) firstAcceptedAt!: string;
  @ApiProperty({ type: String, format: 'date-time', description: 'blockTime of the newest' }) lastAcceptedAt!: string;
}

/** One acceptance of a signer. */
export class SignerAcceptanceView {
  @ApiProperty({ type: String, pattern: HEX64.source }) acceptanceId!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) versionAddress!: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) versionNumber!: number;
  @ApiProperty({ type: String, pattern: SLUG.source }) documentSlug!: string;
  @ApiProperty({ type: String, pattern: SIG.source, nullable: true }) transactionSignature!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) blockTime!: string;
  @ApiProperty({ enum: ['confirmed', 'finalized'] }) commitment!: string;
}

/** `{signer, acceptances, keyStatements, passkeys, rotations}`; the last three are empty on this deployment. */
export class SignerEvidenceResponse {
  @ApiProperty({ type: SignerSummaryView }) signer!: SignerSummaryView;
  @ApiProperty({ type: [SignerAcceptanceView], description: 'Newest first, at most 200' }) acceptances!: SignerAcceptanceView[];
  @ApiProperty({ type: 'array', items: { type: 'object' }, maxItems: 0 }) keyStatements!: never[];
  @ApiProperty({ type: 'array', items: { type: 'object' }, maxItems: 0 }) passkeys!: never[];
  @ApiProperty({ type: 'array', items: { type: 'object' }, maxItems: 0 }) rotations!: never[];
}

/** One leaf of a batch manifest: the acceptance's evidence the leaf hashes (docs/protocol.md §7.7). */
export class BatchManifestLeafView {
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 1023 }) index!: number;
  @ApiProperty({ type: String, pattern: HEX64.source, description: 'SHA-256(0x00 ‖ leaf)' }) leafHash!: string;
  @ApiProperty({ type: String, pattern: HEX64.source }) acceptanceId!: string;
  @ApiProperty({ type: String, description: 'The exact signed message' }) message!: string;
  @ApiProperty({ type: String, pattern: SIG.source }) signature!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) signer!: string;
  @ApiProperty({ type: String, pattern: ADDR.source }) versionAddress!: string;
}

/** `batch` of a manifest: the anchor record's fields. */
export class BatchManifestBatchView {
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 255 }) lane!: number;
  @ApiProperty({ type: 'integer', minimum: 1 }) sequence!: number;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1024 }) size!: number;
  @ApiProperty({ type: String, pattern: HEX64.source }) root!: string;
}

/** `transaction` of a manifest: the anchoring transaction. */
export class BatchManifestTransactionView {
  @ApiProperty({ type: String, pattern: SIG.source }) signature!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) slot!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Unix seconds' }) blockTime!: number | null;
  @ApiProperty({ type: String, pattern: ADDR.source }) feePayer!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) feeLamports!: number;
}

/** The manifest `svc-batch-manifest/1` of an anchored batch (docs/protocol.md §7.7). */
export class BatchManifestResponse {
  @ApiProperty({ enum: ['svc-batch-manifest/1'] }) format!: string;
  @ApiProperty({ type: ReceiptNetworkView }) network!: ReceiptNetworkView;
  @ApiProperty({ type: BatchManifestBatchView }) batch!: BatchManifestBatchView;
  @ApiProperty({ type: BatchManifestTransactionView }) transaction!: BatchManifestTransactionView;
  @ApiProperty({ type: [BatchManifestLeafView], minItems: 1, maxItems: 1024 }) leaves!: BatchManifestLeafView[];
}
