import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '@svc/domain';
import { ApiErrors, Hex64Param, SlugParam } from '@svc/http';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type DocumentDoc } from '@svc/projections';
import { CLOCK, commandContext, type Clock } from '@svc/application';
import { ApiKeyGuard, CurrentKey, RequireScope, type AuthenticatedKey } from '../api-keys/api-key.guard';
import { AcceptanceSearchQuery } from '../acceptances/search/acceptance-search.dto';
import { AcceptanceSearch } from '../acceptances/search/acceptance-search.service';
import { versionView } from '../organizations/views';
import { CreateAcceptanceSession, type AcceptanceSessionResult } from './acceptance-session.handlers';
import { ReplayedSecret } from '../system/idempotency.interceptor';
import { CreateAcceptanceSessionRequest } from './acceptance-sessions.dto';
import { AcceptancePageResponse, AcceptanceResponse } from '../acceptances/acceptance.responses';
import { AcceptanceSessionResponse, LatestVersionResponse } from './server.responses';
import { Authenticated } from '../auth/authenticated';

/**
 * Endpoints for an organization's server (spec §4.5, §4.2 "latest"), authenticated by `Authorization: Bearer
 * <API key>`; every resource is the key's organization's, others read as 404.
 */
@ApiTags('server: sessions, acceptances, documents')
@ApiBearerAuth()
@Authenticated(ApiKeyGuard)
@Controller('v1')
export class ServerController {
  constructor(
    private readonly commands: CommandBus,
    private readonly search: AcceptanceSearch,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Opens a single-use acceptance session: 200 `{sessionToken, expiresAt}` (spec §2.4; every success of §4 is 200). */
  @Post('acceptance-sessions')
  @HttpCode(200)
  @ReplayedSecret('sessionToken')
  @RequireScope('acceptances:write')
  @ApiOkResponse({ type: AcceptanceSessionResponse })
  @ApiErrors('invalid_request', 'unauthorized', 'forbidden', 'not_found')
  createSession(@Body() body: CreateAcceptanceSessionRequest, @CurrentKey() key: AuthenticatedKey, @Req() req: FastifyRequest): Promise<AcceptanceSessionResult> {
    return this.commands.execute(new CreateAcceptanceSession(key, body, commandContext(`api-key:${key.keyId}`, req.id, this.clock.now())));
  }

  /** Acceptance search: `{acceptances: [record], nextCursor}`, newest first (docs/api.md "Acceptance search"). */
  @Get('acceptances')
  @RequireScope('acceptances:read')
  @ApiOkResponse({ type: AcceptancePageResponse })
  @ApiErrors('invalid_request', 'invalid_address', 'invalid_cursor', 'unauthorized', 'forbidden')
  acceptances(@Query() query: AcceptanceSearchQuery, @CurrentKey() key: AuthenticatedKey) {
    return this.search.search(key.organizationId, query);
  }

  /** `{acceptance, receiptUrl}`; 404 for acceptances of other organizations. */
  @Get('acceptances/:acceptanceId')
  @RequireScope('acceptances:read')
  @ApiOkResponse({ type: AcceptanceResponse })
  @ApiErrors('invalid_request', 'unauthorized', 'forbidden', 'not_found')
  acceptance(@Param('acceptanceId', Hex64Param('acceptanceId')) acceptanceId: string, @CurrentKey() key: AuthenticatedKey) {
    return this.search.one(key.organizationId, acceptanceId);
  }

  /**
   * The current version of one of the key's organization's documents: `{organization: ADDR, document: ADDR,
   * version: {address, number, label, title, fingerprint, effectiveAt, contentHash, …}}` (spec §2.2).
   * 404 for an unknown slug; 409 no_published_version when it has no version yet.
   */
  @Get('documents/by-slug/:slug/latest')
  @RequireScope('documents:read')
  @ApiOkResponse({ type: LatestVersionResponse })
  @ApiErrors('invalid_request', 'unauthorized', 'forbidden', 'not_found', 'no_published_version')
  async latest(@Param('slug', SlugParam()) slug: string, @CurrentKey() key: AuthenticatedKey) {
    const doc = await this.readStore.collection<DocumentDoc>(COLLECTIONS.documents).findOne({ organizationId: key.organizationId, slug });
    if (!doc) throw new DomainError('not_found', 'document not found');
    if (!doc.currentVersion) throw new DomainError('no_published_version', 'the document has no published version');
    return { organization: doc.organization, document: doc.address, version: versionView(doc.currentVersion) };
  }
}
