import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Hex64Param, toErrorResponse } from '@svc/http';
import type { ReceiptService } from './receipt.service';
import { receiptUrlOf } from './submit.handler';
import { publicAcceptanceRecord, type AcceptanceRecord } from './views';

/** Fastify's pattern of the public acceptance summary (spec §4.3), the `/api` prefix included. */
export const ACCEPTANCE_SUMMARY_ROUTE = '/api/v1/public/acceptances/:acceptanceId';

/** Body of the public acceptance summary: the record of spec §2.3 without `externalUserRef`, and the receipt page's URL. */
export interface AcceptanceSummary {
  acceptance: AcceptanceRecord;
  receiptUrl: string;
}

/**
 * The public acceptance summary of an acceptance id (64 lowercase hex characters).
 * @throws DomainError invalid_request (400, `acceptanceId: invalid format`); not_found (404) for an id the service
 *   holds no relayed or batched acceptance of.
 */
export async function acceptanceSummary(receipts: ReceiptService, publicBaseUrl: string, acceptanceId: unknown): Promise<AcceptanceSummary> {
  const id = SUMMARY_ID.transform(acceptanceId);
  const a = await receipts.acceptance(id);
  return { acceptance: publicAcceptanceRecord(a), receiptUrl: receiptUrlOf(publicBaseUrl, id) };
}

const SUMMARY_ID = Hex64Param('acceptanceId');

/**
 * Answers `GET /api/v1/public/acceptances/{acceptanceId}`, the service's most read address (every acceptance
 * link and every "did this person accept" check lands here), straight from Fastify: the route Nest registers for
 * `PublicAcceptancesController.acceptance` (still the definition the OpenAPI description is made from) gets this
 * handler instead of Nest's execution context, pipes, interceptors and exception filter, which cost about a fifth of
 * the request. Both run {@link acceptanceSummary}, so validation, body and error envelope are the same; the
 * server-wide hooks (CORS, rate limits, request id) run as for every route.
 *
 * Must be called before the application is initialised (Nest registers its routes then).
 */
export function serveAcceptanceSummaryDirectly(fastify: FastifyInstance, receipts: ReceiptService, publicBaseUrl: string): void {
  const logger = new Logger('AcceptanceSummary');
  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<string | void> => {
    try {
      const summary = await acceptanceSummary(receipts, publicBaseUrl, (request.params as { acceptanceId?: unknown }).acceptanceId);
      void reply.type('application/json; charset=utf-8');
      return JSON.stringify(summary);
    } catch (err) {
      const { status, body } = toErrorResponse(err, logger);
      return reply.code(status).send(body);
    }
  };
  fastify.addHook('onRoute', (route) => {
    if (route.url === ACCEPTANCE_SUMMARY_ROUTE && route.method === 'GET') route.handler = handler;
  });
}
