import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '@svc/domain';
import { ApiErrors, UuidParam } from '@svc/http';
import { CLOCK, commandContext, type Clock } from '@svc/application';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type WebhookDeliveryDoc, type WebhookDoc } from '@svc/projections';
import { Authenticated } from '../auth/authenticated';
import { FreshSignatureGuard } from '../auth/fresh-signature.guard';
import { CurrentSession, SessionGuard, type DashboardSession } from '../auth/session.guard';
import { DashboardAccess } from '../organizations/access.service';
import { ChangeWebhook, CreateWebhook, webhookView } from './webhook.handlers';
import { CreateWebhookRequest, UpdateWebhookRequest, WebhookDeliveriesQuery } from './webhooks.dto';
import { PageCursors } from '../system/page-cursor';
import { WebhookDeletedResponse, WebhookDeliveryListResponse, WebhookListResponse, WebhookOneResponse, WebhookTestResponse, WebhookWithSecretResponse } from './webhooks.responses';
import { createdIdOf, ReplayedSecret } from '../system/idempotency.interceptor';

/** Entries of a delivery log page when the query names no `limit`. */
const DELIVERY_PAGE_DEFAULT = 50;

/**
 * Webhook endpoints of an organization (spec §4.10, §6.1; docs/api.md "Webhooks"). Every member lists them and
 * reads the delivery log; owners and admins add (fresh signature), change, delete, rotate the secret (fresh
 * signature) and test. The secret is answered by creation and rotation only.
 */
@ApiTags('dashboard: webhooks')
@ApiCookieAuth()
@Authenticated(SessionGuard)
@Controller('v1/organizations/:orgId/webhooks')
export class WebhooksController {
  constructor(
    private readonly commands: CommandBus,
    private readonly access: DashboardAccess,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly cursors: PageCursors,
  ) {}

  private ctx(session: DashboardSession, req: FastifyRequest) {
    return commandContext(`wallet:${session.address}`, req.id, this.clock.now());
  }

  /** `{webhooks}`, newest first, deleted ones left out. Any member. */
  @Get()
  @ApiOkResponse({ type: WebhookListResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  async list(@Param('orgId', UuidParam('orgId')) orgId: string, @CurrentSession() session: DashboardSession) {
    await this.access.organization(orgId, session.address);
    const docs = await this.readStore.collection<WebhookDoc>(COLLECTIONS.webhooks).find({ organizationId: orgId, deleted: false }, { sort: { createdAt: -1 } });
    return { webhooks: docs.map(webhookView) };
  }

  /** Adds an endpoint (owner or admin, fresh signature): `{webhook, secret}`, the `whsec_…` secret shown this once; `409 chain_state` beyond `WEBHOOKS_PER_ORGANIZATION`. */
  @Post()
  @UseGuards(FreshSignatureGuard)
  @HttpCode(200)
  @ReplayedSecret('secret')
  @ApiBody({ type: CreateWebhookRequest })
  @ApiOkResponse({ type: WebhookWithSecretResponse })
  @ApiErrors('invalid_request', 'invalid_url', 'forbidden', 'reauthentication_required', 'not_found', 'chain_state')
  create(@Param('orgId', UuidParam('orgId')) orgId: string, @Body() body: CreateWebhookRequest, @CurrentSession() session: DashboardSession, @Req() req: FastifyRequest) {
    return this.commands.execute(new CreateWebhook(orgId, body, session, this.ctx(session, req), createdIdOf(req, 'webhook')));
  }

  /** Changes `status` and/or `events` (owner or admin): `{webhook}`. A disabled endpoint receives nothing. */
  @Patch(':webhookId')
  @ApiBody({ type: UpdateWebhookRequest })
  @ApiOkResponse({ type: WebhookOneResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  async update(
    @Param('orgId', UuidParam('orgId')) orgId: string,
    @Param('webhookId', UuidParam('webhookId')) webhookId: string,
    @Body() body: UpdateWebhookRequest,
    @CurrentSession() session: DashboardSession,
    @Req() req: FastifyRequest,
  ) {
    const change = { ...(body.status !== undefined ? { status: body.status } : {}), ...(body.events !== undefined ? { events: [...new Set(body.events)] } : {}) };
    const { webhook } = await this.commands.execute(new ChangeWebhook(orgId, webhookId, { kind: 'update', change }, session, this.ctx(session, req)));
    return { webhook };
  }

  /** Deletes the endpoint (owner or admin; idempotent): 200 `{id, deleted: true}`. Its pending deliveries are cancelled. */
  @Delete(':webhookId')
  @ApiOkResponse({ type: WebhookDeletedResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  async remove(
    @Param('orgId', UuidParam('orgId')) orgId: string,
    @Param('webhookId', UuidParam('webhookId')) webhookId: string,
    @CurrentSession() session: DashboardSession,
    @Req() req: FastifyRequest,
  ): Promise<WebhookDeletedResponse> {
    await this.commands.execute(new ChangeWebhook(orgId, webhookId, { kind: 'delete' }, session, this.ctx(session, req)));
    return { id: webhookId, deleted: true };
  }

  /** Replaces the signing secret (owner or admin, fresh signature): `{webhook, secret}`, shown this once. */
  @Post(':webhookId/rotate-secret')
  @HttpCode(200)
  @UseGuards(FreshSignatureGuard)
  @ReplayedSecret('secret')
  @ApiOkResponse({ type: WebhookWithSecretResponse })
  @ApiErrors('invalid_request', 'forbidden', 'reauthentication_required', 'not_found')
  async rotate(
    @Param('orgId', UuidParam('orgId')) orgId: string,
    @Param('webhookId', UuidParam('webhookId')) webhookId: string,
    @CurrentSession() session: DashboardSession,
    @Req() req: FastifyRequest,
  ) {
    const { webhook, secret } = await this.commands.execute(new ChangeWebhook(orgId, webhookId, { kind: 'rotate' }, session, this.ctx(session, req)));
    return { webhook, secret };
  }

  /** Sends a `webhook.test` event (owner or admin): 200 `{eventId, deliveryId}` once it is scheduled; the outcome shows in the delivery log. */
  @Post(':webhookId/test')
  @HttpCode(200)
  @ApiOkResponse({ type: WebhookTestResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found', 'chain_state')
  async test(
    @Param('orgId', UuidParam('orgId')) orgId: string,
    @Param('webhookId', UuidParam('webhookId')) webhookId: string,
    @CurrentSession() session: DashboardSession,
    @Req() req: FastifyRequest,
  ) {
    const { test } = await this.commands.execute(new ChangeWebhook(orgId, webhookId, { kind: 'test' }, session, this.ctx(session, req)));
    if (!test) throw new DomainError('internal_error', 'the test was not recorded');
    return test;
  }

  /**
   * The delivery log (any member): `{deliveries, nextCursor}`, newest first, each with every attempt (status,
   * duration, error); pages of `limit` (1–200, default 50) continued with `cursor` = the previous `nextCursor`.
   * @throws DomainError invalid_request (400: limit), invalid_cursor (400: a cursor of another endpoint or malformed),
   *   not_found (404: not a member, or no such endpoint in the organization).
   */
  @Get(':webhookId/deliveries')
  @ApiOkResponse({ type: WebhookDeliveryListResponse })
  @ApiErrors('invalid_request', 'invalid_cursor', 'forbidden', 'not_found')
  async deliveries(
    @Param('orgId', UuidParam('orgId')) orgId: string,
    @Param('webhookId', UuidParam('webhookId')) webhookId: string,
    @Query() query: WebhookDeliveriesQuery,
    @CurrentSession() session: DashboardSession,
  ): Promise<WebhookDeliveryListResponse> {
    await this.access.organization(orgId, session.address);
    const endpoint = await this.readStore.collection<WebhookDoc>(COLLECTIONS.webhooks).findOne({ _id: webhookId });
    if (!endpoint || endpoint.organizationId !== orgId || endpoint.deleted) throw new DomainError('not_found', 'webhook endpoint not found');
    const scope = ['webhook-deliveries', orgId, webhookId];
    const before = query.cursor === undefined ? undefined : this.cursors.decode(query.cursor, scope);
    const limit = query.limit === undefined ? DELIVERY_PAGE_DEFAULT : Number(query.limit);
    // One more than the page: whether an older page exists.
    const docs = await this.readStore
      .collection<WebhookDeliveryDoc>(COLLECTIONS.webhookDeliveries)
      .find(before === undefined ? { webhookId } : { webhookId, seq: { $lt: before } }, { sort: { seq: -1 }, limit: limit + 1 });
    const page = docs.slice(0, limit);
    const nextCursor = docs.length > limit ? this.cursors.encode(page[page.length - 1]!.seq, scope) : null;
    return {
      nextCursor,
      deliveries: page.map((d) => ({
        id: d.deliveryId,
        eventId: d.eventId,
        eventType: d.eventType,
        status: d.status,
        scheduledAt: d.scheduledAt,
        nextAttemptAt: d.nextAttemptAt,
        cancelReason: d.cancelReason,
        attempts: d.attempts,
      })),
    };
  }
}
