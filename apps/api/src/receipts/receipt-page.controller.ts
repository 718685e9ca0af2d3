import { Controller, Get, Param, Res, UseFilters } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { serializeReceipt, type VerificationReport } from '@svc/evidence';
import { ApiErrors, Hex64Param } from '@svc/http';
import { ReceiptView } from '../acceptances/public-acceptances.responses';
import { ReceiptService } from '../acceptances/receipt.service';
import { NetworkService } from '@svc/application';
import { ReceiptPageErrorFilter } from './receipt-page.filter';
import { PAGE_SECURITY_HEADERS, renderReceiptPage } from './receipt-page.view';

/** Path of the receipt page of an acceptance, outside the `/api` prefix (see `receiptUrlOf`). */
export const receiptPagePath = (acceptanceId: string) => `/receipts/${acceptanceId}`;
/** File name of the receipt download. */
export const receiptFileName = (acceptanceId: string) => `receipt-${acceptanceId}.json`;

/**
 * The public receipt of an acceptance, for people: `GET /receipts/:acceptanceId` (HTML page with the service's
 * verification made now) and `GET /receipts/:acceptanceId.json` (the canonical `svc-receipt-v1` file).
 * Served outside the `/api` prefix (bootstrap.ts; their OpenAPI paths name the service's base URL as their server).
 */
@ApiTags('public: receipts')
@Controller('receipts')
export class ReceiptPageController {
  constructor(
    private readonly receipts: ReceiptService,
    private readonly network: NetworkService,
  ) {}

  /** The receipt as a download: RFC 8785 canonical JSON. 400/404 use the API's JSON error body. */
  @Get(':acceptanceId.json')
  @ApiProduces('application/json')
  @ApiOkResponse({ type: ReceiptView, description: 'RFC 8785 canonical JSON, as an attachment' })
  @ApiErrors('invalid_request', 'not_found', 'pending_batch')
  async download(@Param('acceptanceId', Hex64Param('acceptanceId')) acceptanceId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const receipt = await this.receipts.receipt(acceptanceId);
    void reply.headers({
      ...PAGE_SECURITY_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'content-disposition': `attachment; filename="${receiptFileName(acceptanceId)}"`,
      'cache-control': 'no-store',
    });
    return serializeReceipt(receipt);
  }

  /** The receipt page. 400 (malformed ID) and 404 (unknown acceptance) are HTML pages too. */
  @Get(':acceptanceId')
  @UseFilters(ReceiptPageErrorFilter)
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The receipt page with its verification', content: { 'text/html': { schema: { type: 'string' } } } })
  @ApiResponse({ status: 400, description: 'An HTML page: not a receipt address', content: { 'text/html': { schema: { type: 'string' } } } })
  @ApiResponse({ status: 404, description: 'An HTML page: no confirmed acceptance with this ID', content: { 'text/html': { schema: { type: 'string' } } } })
  @ApiResponse({ status: 409, description: 'An HTML page: a batched acceptance whose batch is not anchored yet', content: { 'text/html': { schema: { type: 'string' } } } })
  @ApiResponse({ status: 500, description: 'An HTML page: the receipt cannot be shown', content: { 'text/html': { schema: { type: 'string' } } } })
  async page(@Param('acceptanceId', Hex64Param('acceptanceId')) acceptanceId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const [{ receipt, report }, acceptance] = await Promise.all([this.receipts.receiptWithReport(acceptanceId), this.receipts.acceptance(acceptanceId)]);
    void reply.headers({ ...PAGE_SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    return renderReceiptPage({
      receipt,
      report,
      checkedAt: new Date(),
      commitment: commitmentOf(report, acceptance.commitment),
      downloadPath: `${receiptPagePath(acceptanceId)}.json`,
      downloadName: receiptFileName(acceptanceId),
      rpcUrl: this.network.network.publicRpcUrls[0] ?? null,
    });
  }
}

/** The commitment seen by the verification just made, else the one the service recorded. */
function commitmentOf(report: VerificationReport, recorded: string | null): string {
  const check = report.checks.find((c) => c.id === 'transaction.commitment');
  if (check?.status === 'pass') return 'finalized';
  if (check?.status === 'warn') return 'confirmed (not yet finalized)';
  return recorded ?? 'confirmed';
}
