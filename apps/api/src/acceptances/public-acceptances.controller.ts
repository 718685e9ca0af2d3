import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError } from '@svc/domain';
import { parseEvidenceTransaction } from '@svc/evidence';
import { ApiErrors, Hex64Param, SignatureParam, SignerParam } from '@svc/http';
import { LEDGER, toSignature, type Ledger } from '@svc/ledger';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type AcceptanceDoc } from '@svc/projections';
import { ReceiptService } from './receipt.service';
import { receiptUrlOf } from './submit.handler';
import { publicAcceptanceRecord } from './views';
import { AcceptanceResponse } from './acceptance.responses';
import { ReceiptWithReportResponse, SignerEvidenceResponse, TransactionAcceptanceResponse } from './public-acceptances.responses';

/** Public verification reads (spec §4.3). */
@ApiTags('public: verification')
@Controller('v1/public')
export class PublicAcceptancesController {
  constructor(
    private readonly receipts: ReceiptService,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(LEDGER) private readonly ledger: Ledger,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private get acceptances() {
    return this.readStore.collection<AcceptanceDoc>(COLLECTIONS.acceptances);
  }

  /** Public acceptance summary: `{acceptance: record (spec §2.3), receiptUrl}`. */
  @Get('acceptances/:acceptanceId')
  @ApiOkResponse({ type: AcceptanceResponse })
  @ApiErrors('invalid_request', 'not_found')
  async acceptance(@Param('acceptanceId', Hex64Param('acceptanceId')) acceptanceId: string) {
    const a = await this.receipts.acceptance(acceptanceId);
    return { acceptance: publicAcceptanceRecord(a), receiptUrl: receiptUrlOf(this.config.publicBaseUrl, acceptanceId) };
  }

  /**
   * The acceptance recorded by a transaction: `{acceptanceId, transactionSignature, versionAddress, acceptance|null,
   * receiptUrl|null}`. Read from the ledger's memo when the service holds no record of it.
   */
  @Get('transactions/:signature/acceptance')
  @ApiOkResponse({ type: TransactionAcceptanceResponse })
  @ApiErrors('invalid_signature', 'not_found')
  async byTransaction(@Param('signature', SignatureParam()) signature: string) {
    const known = await this.acceptances.findOne({ transactionSignature: signature });
    if (known && known.status === 'confirmed') {
      return {
        acceptanceId: known.acceptanceId,
        transactionSignature: signature,
        versionAddress: known.versionAddress,
        acceptance: publicAcceptanceRecord(known),
        receiptUrl: receiptUrlOf(this.config.publicBaseUrl, known.acceptanceId),
      };
    }
    const tx = await this.ledger.getTransaction(toSignature(signature));
    if (!tx || tx.err !== null) throw new DomainError('not_found', 'no acceptance recorded by this transaction');
    let record;
    try {
      record = parseEvidenceTransaction(tx.wire).memos.find((m) => m.record?.kind === 'accept')?.record;
    } catch {
      record = undefined;
    }
    if (!record || record.kind !== 'accept') throw new DomainError('not_found', 'no acceptance recorded by this transaction');
    return { acceptanceId: record.acceptanceId, transactionSignature: signature, versionAddress: record.versionAddress, acceptance: null, receiptUrl: null };
  }

  /**
   * `{receipt, report}`: the self-contained receipt (`svc-receipt-v1`) and the service's verification of it,
   * made now. 422 verification_failed when it does not verify.
   */
  @Get('acceptances/:acceptanceId/receipt')
  @ApiOkResponse({ type: ReceiptWithReportResponse })
  @ApiErrors('invalid_request', 'not_found', 'verification_failed')
  async receipt(@Param('acceptanceId', Hex64Param('acceptanceId')) acceptanceId: string) {
    const result = await this.receipts.receiptWithReport(acceptanceId);
    if (result.report.verdict === 'INVALID') {
      throw new DomainError('verification_failed', `the receipt does not verify: ${result.report.summary}`);
    }
    return result;
  }

  /**
   * Public evidence about a signer: `{signer: {publicKey, signerType, acceptanceCount, firstAcceptedAt,
   * lastAcceptedAt}, acceptances: [{acceptanceId, versionAddress, versionNumber, documentSlug, transactionSignature,
   * blockTime}], keyStatements: [], passkeys: [], rotations: []}` (newest first, at most 200).
   */
  @Get('signers/:publicKey')
  @ApiOkResponse({ type: SignerEvidenceResponse })
  @ApiErrors('invalid_signer', 'not_found')
  async signer(@Param('publicKey', SignerParam()) publicKey: string) {
    const rows = await this.acceptances.find({ signer: publicKey, status: 'confirmed' }, { sort: { submittedAt: -1 }, limit: 200 });
    if (rows.length === 0) throw new DomainError('not_found', 'no evidence for this signer');
    const records = rows.map(publicAcceptanceRecord);
    return {
      signer: {
        publicKey,
        signerType: 'wallet',
        acceptanceCount: records.length,
        firstAcceptedAt: records[records.length - 1].blockTime,
        lastAcceptedAt: records[0].blockTime,
      },
      acceptances: records.map((r) => ({
        acceptanceId: r.acceptanceId,
        versionAddress: r.versionAddress,
        versionNumber: r.versionNumber,
        documentSlug: r.documentSlug,
        transactionSignature: r.transactionSignature,
        blockTime: r.blockTime,
        commitment: r.commitment,
      })),
      keyStatements: [],
      passkeys: [],
      rotations: [],
    };
  }
}
