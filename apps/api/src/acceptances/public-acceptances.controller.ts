import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError } from '@svc/domain';
import { BATCH_MANIFEST_FORMAT, batchTree, parseEvidenceTransaction, recordedAcceptance, serializeBatchManifest } from '@svc/evidence';
import { NetworkService } from '@svc/application';
import { ApiErrors, Hex64Param, SignatureParam, SignerParam } from '@svc/http';
import { LEDGER, toSignature, type Ledger } from '@svc/ledger';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type AcceptanceDoc, type BatchDoc } from '@svc/projections';
import { acceptanceSummary, type AcceptanceSummary } from './acceptance-summary.route';
import { acceptanceReceiptJson } from './acceptance-receipt.route';
import { ReceiptService } from './receipt.service';
import { receiptUrlOf } from './submit.handler';
import { publicAcceptanceRecord } from './views';
import { signerEvidence } from './signer-evidence';
import { AcceptanceResponse } from './acceptance.responses';
import { BatchManifestResponse, ReceiptWithReportResponse, SignerEvidenceResponse, TransactionAcceptanceResponse } from './public-acceptances.responses';

/** Public verification reads (spec §4.3). */
@ApiTags('public: verification')
@Controller('v1/public')
export class PublicAcceptancesController {
  constructor(
    private readonly receipts: ReceiptService,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(LEDGER) private readonly ledger: Ledger,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly network: NetworkService,
  ) {}

  private get acceptances() {
    return this.readStore.collection<AcceptanceDoc>(COLLECTIONS.acceptances);
  }

  /** Public acceptance summary: `{acceptance: record (spec §2.3), receiptUrl}`. */
  @Get('acceptances/:acceptanceId')
  @ApiOkResponse({ type: AcceptanceResponse })
  @ApiErrors('invalid_request', 'not_found')
  async acceptance(@Param('acceptanceId') acceptanceId: string): Promise<AcceptanceSummary> {
    // Served by serveAcceptanceSummaryDirectly once the application is bootstrapped; same function either way.
    return acceptanceSummary(this.receipts, this.config.publicBaseUrl, acceptanceId);
  }

  /**
   * The acceptance recorded by a transaction: `{acceptanceId, transactionSignature, versionAddress, acceptance|null,
   * receiptUrl|null}`. Read from the ledger's memo when the service holds no record of it.
   * @throws DomainError not_found (404) when the transaction records no acceptance, among them a transaction anchoring
   *   a Merkle batch: it records a root for many acceptances, and the message names the batch's manifest instead.
   */
  @Get('transactions/:signature/acceptance')
  @ApiOkResponse({ type: TransactionAcceptanceResponse })
  @ApiErrors('invalid_signature', 'not_found')
  async byTransaction(@Param('signature', SignatureParam()) signature: string) {
    const known = await this.acceptances.findOne({ transactionSignature: signature });
    if (known?.batch) {
      throw new DomainError(
        'not_found',
        `this transaction anchors a Merkle batch of ${known.batch.size} acceptance(s), not one acceptance: see /v1/public/batches/${known.batch.root}`,
      );
    }
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
    // The protocol's acceptance transaction (docs/protocol.md §7.3, read as the verifier reads it): the signer's
    // Ed25519 signature over the message checked by instruction 0, the precompile, and exactly one well-formed
    // `svc/1 accept` memo naming that message's hash; a memo alone, or several, records no acceptance anyone signed.
    let record: { acceptanceId: string; versionAddress: string } | null;
    try {
      record = recordedAcceptance(parseEvidenceTransaction(tx.wire));
    } catch {
      record = null;
    }
    if (!record) throw new DomainError('not_found', 'no acceptance recorded by this transaction');
    return { acceptanceId: record.acceptanceId, transactionSignature: signature, versionAddress: record.versionAddress, acceptance: null, receiptUrl: null };
  }

  /**
   * `{receipt, report}`: the self-contained receipt (`svc-receipt-v1`, or `svc-receipt/2` for a batched acceptance)
   * and the service's verification of it, made now. 409 pending_batch before the acceptance's batch is anchored;
   * 422 verification_failed when it does not verify.
   */
  @Get('acceptances/:acceptanceId/receipt')
  @ApiOkResponse({ type: ReceiptWithReportResponse })
  @ApiErrors('invalid_request', 'not_found', 'pending_batch', 'verification_failed')
  async receipt(@Param('acceptanceId', Hex64Param('acceptanceId')) acceptanceId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<Buffer> {
    // Served by serveAcceptanceReceiptDirectly once the application is bootstrapped; same function either way.
    const body = await acceptanceReceiptJson(this.receipts, acceptanceId);
    void reply.type('application/json; charset=utf-8');
    return body;
  }

  /**
   * The manifest `svc-batch-manifest/1` of an anchored batch (docs/protocol.md §7.7): every leaf's evidence in tree
   * order, the root and the anchoring transaction, whose signature is also in the header `x-batch-transaction`. A
   * batch closed but not anchored yet is 404 like an unknown root. The body is RFC 8785 canonical JSON.
   */
  @Get('batches/:root')
  @ApiOkResponse({ type: BatchManifestResponse, headers: { 'x-batch-transaction': { description: 'Signature of the anchoring transaction', schema: { type: 'string' } } } })
  @ApiErrors('invalid_request', 'not_found')
  async batch(@Param('root', Hex64Param('root')) root: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const batch = await this.readStore.collection<BatchDoc>(COLLECTIONS.batches).findOne({ _id: root });
    if (!batch || batch.status !== 'anchored' || batch.slot === null || batch.feeLamports === null) throw new DomainError('not_found', 'no anchored batch with this root');
    const { leafHashes } = batchTree(batch.leaves);
    const net = this.network.network;
    void reply.headers({ 'x-batch-transaction': batch.transactionSignature, 'content-type': 'application/json; charset=utf-8' });
    return serializeBatchManifest({
      format: BATCH_MANIFEST_FORMAT,
      network: { chainId: net.chainId, label: net.label, programId: net.programId },
      batch: { lane: batch.lane, sequence: batch.sequence, size: batch.size, root: batch.root },
      transaction: { signature: batch.transactionSignature, slot: batch.slot, blockTime: batch.blockTime, feePayer: batch.feePayer, feeLamports: batch.feeLamports },
      leaves: batch.leaves.map((leaf, index) => ({ index, leafHash: leafHashes[index]!, ...leaf })),
    });
  }

  /**
   * Public evidence about a signer: `{signer: {publicKey, signerType, acceptanceCount, firstAcceptedAt,
   * lastAcceptedAt}, acceptances: [{acceptanceId, versionAddress, versionNumber, documentSlug, transactionSignature,
   * blockTime}], keyStatements: [], passkeys: [], rotations: []}`: the newest 200 acceptances, newest first, with the
   * count and first time of all of them; a batched acceptance awaiting its anchoring is listed with
   * `transactionSignature: null`, as its own record shows it.
   * @throws DomainError invalid_signer (400) for a key that is not an address; not_found (404) without a public acceptance.
   */
  @Get('signers/:publicKey')
  @ApiOkResponse({ type: SignerEvidenceResponse })
  @ApiErrors('invalid_signer', 'not_found')
  async signer(@Param('publicKey', SignerParam()) publicKey: string) {
    // As the acceptance's own public record: from the answer on, batched ones too while they await anchoring.
    return signerEvidence(this.acceptances, publicKey);
  }
}
