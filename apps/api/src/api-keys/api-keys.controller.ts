import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiErrors, UuidParam } from '@svc/http';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type ApiKeyDoc } from '@svc/projections';
import { CLOCK, commandContext, type Clock } from '@svc/application';
import { CurrentSession, SessionGuard, type DashboardSession } from '../auth/session.guard';
import { DashboardAccess } from '../organizations/access.service';
import { apiKeyView, CreateApiKey, RevokeApiKey } from './api-key.handlers';
import { createdIdOf, OneTimeSecret } from '../system/idempotency.interceptor';
import { CreateApiKeyRequest } from './api-keys.dto';
import { ApiKeyListResponse, ApiKeyOneResponse, CreatedApiKeyResponse } from './api-keys.responses';
import { Authenticated } from '../auth/authenticated';
import { FreshSignatureGuard } from '../auth/fresh-signature.guard';

/**
 * API keys of an organization's servers (spec §4.10, §5). Creating needs the owner or an admin and a wallet
 * signature within the fresh-signature window; the key is in the creation response only.
 */
@ApiTags('dashboard: API keys')
@ApiCookieAuth()
@Authenticated(SessionGuard)
@Controller('v1/organizations/:orgId/api-keys')
export class ApiKeysController {
  constructor(
    private readonly commands: CommandBus,
    private readonly access: DashboardAccess,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** `{apiKeys: [{id, name, scopes, prefix, status, createdAt, createdBy, expiresAt, revokedAt}]}`, newest first, revoked ones included. */
  @Get()
  @ApiOkResponse({ type: ApiKeyListResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  async list(@Param('orgId', UuidParam('orgId')) orgId: string, @CurrentSession() session: DashboardSession) {
    await this.access.organization(orgId, session.address);
    const docs = await this.readStore.collection<ApiKeyDoc>(COLLECTIONS.apiKeys).find({ organizationId: orgId }, { sort: { createdAt: -1 } });
    const now = this.clock.now();
    return { apiKeys: docs.map((d) => apiKeyView(d, now)) };
  }

  /** 200 `{apiKey, key}`: `key` (`svc_test_…` or `svc_live_…`) is shown this once. 403 reauthentication_required without a fresh signature. */
  @Post()
  @HttpCode(200)
  // As a guard (not only in the decider), so a replay of a stored answer needs a fresh signature too.
  @UseGuards(FreshSignatureGuard)
  @OneTimeSecret('key')
  @ApiOkResponse({ type: CreatedApiKeyResponse })
  @ApiErrors('invalid_request', 'forbidden', 'reauthentication_required', 'not_found')
  create(@Param('orgId', UuidParam('orgId')) orgId: string, @Body() body: CreateApiKeyRequest, @CurrentSession() session: DashboardSession, @Req() req: FastifyRequest) {
    return this.commands.execute(new CreateApiKey(orgId, body, session, commandContext(`wallet:${session.address}`, req.id, this.clock.now()), createdIdOf(req, 'api-key')));
  }

  /** Revokes the key (idempotent): `{apiKey}` with `status: "revoked"`. The next request with it is refused, on every replica. */
  @Delete(':keyId')
  @ApiOkResponse({ type: ApiKeyOneResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  revoke(
    @Param('orgId', UuidParam('orgId')) orgId: string,
    @Param('keyId', UuidParam('keyId')) keyId: string,
    @CurrentSession() session: DashboardSession,
    @Req() req: FastifyRequest,
  ) {
    return this.commands.execute(new RevokeApiKey(orgId, keyId, session, commandContext(`wallet:${session.address}`, req.id, this.clock.now())));
  }
}
