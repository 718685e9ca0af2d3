import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiErrors, UuidParam } from '@svc/http';
import { CLOCK, commandContext, type Clock } from '@svc/application';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type DomainVerificationDoc } from '@svc/projections';
import { CurrentSession, SessionGuard, type DashboardSession } from '../auth/session.guard';
import { FreshSignatureGuard } from '../auth/fresh-signature.guard';
import { DashboardAccess } from './access.service';
import { CheckDomainVerification, RevokeDomainVerification, StartDomainVerification } from './domains.handlers';
import { DomainCheckResponse, DomainRequest, DomainVerificationListResponse, DomainVerificationResponse } from './domains.dto';
import { domainVerificationView } from './views';
import { Authenticated } from '../auth/authenticated';

/**
 * Domain verification by DNS TXT record (spec §4.10; docs/api.md "Domains"). Owners and admins start, check and
 * revoke; every member lists. A verified domain names the organization in the public reads (spec §4.2).
 */
@ApiTags('dashboard: domains')
@ApiCookieAuth()
@Authenticated(SessionGuard)
@Controller('v1/organizations/:orgId/domains')
export class DomainsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly access: DashboardAccess,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private ctx(session: DashboardSession, req: FastifyRequest) {
    return commandContext(`wallet:${session.address}`, req.id, this.clock.now());
  }

  /** The organization's verifications, newest first: `{verifications}`. Any member. */
  @Get()
  @ApiOkResponse({ type: DomainVerificationListResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  async list(@Param('orgId', UuidParam('orgId')) orgId: string, @CurrentSession() session: DashboardSession) {
    await this.access.organization(orgId, session.address);
    const docs = await this.readStore.collection<DomainVerificationDoc>(COLLECTIONS.domainVerifications).find({ organizationId: orgId }, { sort: { startedAt: -1 } });
    const now = this.clock.now();
    return { verifications: docs.map((d) => domainVerificationView(d, now)) };
  }

  /**
   * Starts verifying `domain` (owner or admin): `{verification}` with the TXT record to publish within 7 days. While a
   * pending verification of the domain by the organization is open, it is answered again (200 either way).
   */
  @Post()
  @HttpCode(200)
  @ApiBody({ type: DomainRequest })
  @ApiOkResponse({ type: DomainVerificationResponse })
  @ApiErrors('invalid_request', 'invalid_domain', 'forbidden', 'not_found', 'domain_already_verified')
  async start(@Param('orgId', UuidParam('orgId')) orgId: string, @Body() body: DomainRequest, @CurrentSession() session: DashboardSession, @Req() req: FastifyRequest) {
    const ctx = this.ctx(session, req);
    const doc = await this.commands.execute(new StartDomainVerification(orgId, body.domain.toLowerCase(), session.address, ctx));
    return { verification: domainVerificationView(doc, ctx.now) };
  }

  /**
   * Looks up the TXT record through the configured resolver (owner or admin): `{verification, lookup}`; the
   * verification becomes `verified` for 365 days when the record carries the value, else stays as it was.
   */
  @Post(':verificationId/check')
  @HttpCode(200)
  @ApiOkResponse({ type: DomainCheckResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found', 'chain_state', 'domain_already_verified', 'domain_expiring', 'rate_limited')
  async check(
    @Param('orgId', UuidParam('orgId')) orgId: string,
    @Param('verificationId', UuidParam('verificationId')) verificationId: string,
    @CurrentSession() session: DashboardSession,
    @Req() req: FastifyRequest,
  ) {
    const ctx = this.ctx(session, req);
    const { verification, lookup } = await this.commands.execute(new CheckDomainVerification(orgId, verificationId, session.address, ctx));
    return { verification: domainVerificationView(verification, ctx.now), lookup: { found: lookup.found, values: lookup.values, error: lookup.error } };
  }

  /** Revokes the verification (owner or admin, fresh signature): `{verification}`; revoking twice is harmless. */
  @Post(':verificationId/revoke')
  @HttpCode(200)
  @UseGuards(FreshSignatureGuard)
  @ApiOkResponse({ type: DomainVerificationResponse })
  @ApiErrors('invalid_request', 'forbidden', 'reauthentication_required', 'not_found')
  async revoke(
    @Param('orgId', UuidParam('orgId')) orgId: string,
    @Param('verificationId', UuidParam('verificationId')) verificationId: string,
    @CurrentSession() session: DashboardSession,
    @Req() req: FastifyRequest,
  ) {
    const ctx = this.ctx(session, req);
    const doc = await this.commands.execute(new RevokeDomainVerification(orgId, verificationId, session.address, ctx));
    return { verification: domainVerificationView(doc, ctx.now) };
  }
}
