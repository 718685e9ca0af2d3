import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '@svc/domain';
import { Hex64Param, serveRouteDirectly, toErrorResponse } from '@svc/http';
import { receiptWithReportJson } from './receipt-json';
import type { ReceiptService } from './receipt.service';

/** Fastify's pattern of the public receipt with its report (spec §4.3), the `/api` prefix included. */
export const ACCEPTANCE_RECEIPT_ROUTE = '/api/v1/public/acceptances/:acceptanceId/receipt';

const RECEIPT_ID = Hex64Param('acceptanceId');

/**
 * `{receipt, report}` of an acceptance id (64 lowercase hex characters) as UTF-8 JSON bytes: the self-contained
 * receipt (docs/protocol.md §8) and the verification report made now against the ledger.
 * @throws DomainError invalid_request (400, `acceptanceId: invalid format`); not_found (404); pending_batch (409) for
 *   a batched acceptance whose batch is not anchored yet; verification_failed when the report's verdict is INVALID.
 */
export async function acceptanceReceiptJson(receipts: ReceiptService, acceptanceId: unknown): Promise<Buffer> {
  const result = await receipts.receiptWithReport(RECEIPT_ID.transform(acceptanceId));
  if (result.report.verdict === 'INVALID') {
    throw new DomainError('verification_failed', `the receipt does not verify: ${result.report.summary}`);
  }
  return receiptWithReportJson(result);
}

/**
 * Answers `GET /api/v1/public/acceptances/{acceptanceId}/receipt` straight from Fastify, as the acceptance summary
 * is (see `serveRouteDirectly`): the controller method `PublicAcceptancesController.receipt` stays its OpenAPI
 * definition, and both run {@link acceptanceReceiptJson}.
 */
export function serveAcceptanceReceiptDirectly(fastify: FastifyInstance, receipts: ReceiptService): void {
  const logger = new Logger('AcceptanceReceipt');
  serveRouteDirectly(fastify, 'GET', ACCEPTANCE_RECEIPT_ROUTE, async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      const body = await acceptanceReceiptJson(receipts, (request.params as { acceptanceId?: unknown }).acceptanceId);
      void reply.type('application/json; charset=utf-8');
      return body;
    } catch (err) {
      const { status, body } = toErrorResponse(err, logger);
      return reply.code(status).send(body);
    }
  });
}
