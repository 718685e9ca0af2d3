import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { Hex64Param, serveRouteDirectly, toErrorResponse } from '@svc/http';
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

/** Finalized summaries kept serialized in memory (about 2 KB each, so about 32 MB at most). */
const FINALIZED_SUMMARIES = 16_384;

/**
 * Answers `GET /api/v1/public/acceptances/{acceptanceId}`, the service's most read address (every acceptance
 * link and every "did this person accept" check lands here), straight from Fastify: the route Nest registers for
 * `PublicAcceptancesController.acceptance` (still the definition the OpenAPI description is made from) gets this
 * handler instead of Nest's execution context, pipes, interceptors and exception filter, which cost about a fifth of
 * the request. Both run {@link acceptanceSummary}, so validation, body and error envelope are the same; the
 * server-wide hooks (CORS, rate limits, request id) run as for every route.
 *
 * The bodies of finalized acceptances are kept, serialized, in a bounded in-memory cache (least recently read
 * out first): no event changes an acceptance's record once `AcceptanceFinalized` is recorded (docs/architecture.md
 * "Streams"), and a projection rebuild produces the same record again, so such a body can be answered without
 * the read store. Bodies of acceptances not yet finalized are never kept: their commitment is about to change.
 *
 * Must be called before the application is initialised (Nest registers its routes then).
 */
export function serveAcceptanceSummaryDirectly(fastify: FastifyInstance, receipts: ReceiptService, publicBaseUrl: string): void {
  const logger = new Logger('AcceptanceSummary');
  const finalized = new LRUCache<string, string>({ max: FINALIZED_SUMMARIES });
  const answer = async (id: unknown, reply: FastifyReply): Promise<string | void> => {
    try {
      const summary = await acceptanceSummary(receipts, publicBaseUrl, id);
      const body = JSON.stringify(summary);
      if (summary.acceptance.commitment === 'finalized') finalized.set(summary.acceptance.acceptanceId, body);
      void reply.type('application/json; charset=utf-8');
      return body;
    } catch (err) {
      const { status, body } = toErrorResponse(err, logger);
      return reply.code(status).send(body);
    }
  };
  // Not async: a kept body is sent without a promise in between.
  const handler = (request: FastifyRequest, reply: FastifyReply): Promise<string | void> | undefined => {
    const id = (request.params as { acceptanceId?: unknown }).acceptanceId;
    const kept = typeof id === 'string' ? finalized.get(id) : undefined;
    if (kept === undefined) return answer(id, reply);
    void reply.type('application/json; charset=utf-8').send(kept);
    return undefined;
  };
  serveRouteDirectly(fastify, 'GET', ACCEPTANCE_SUMMARY_ROUTE, handler);
}
