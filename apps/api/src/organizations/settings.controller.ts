import { Body, Controller, Inject, Param, Patch, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiErrors, UuidParam } from '@svc/http';
import { CLOCK, commandContext, type Clock } from '@svc/application';
import { CurrentSession, SessionGuard, type DashboardSession } from '../auth/session.guard';
import { SettingsRequest } from './settings.dto';
import { ChangeSettings } from './settings.handlers';
import { organizationView } from './views';
import { OrganizationResponse } from './dashboard.responses';
import { Authenticated } from '../auth/authenticated';

/** Organization settings (spec §2.8, §4.10). */
@ApiTags('dashboard: organizations and documents')
@ApiCookieAuth()
@Authenticated(SessionGuard)
@Controller('v1/organizations/:orgId/settings')
export class SettingsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Sets the given keys: `{organization}` with every setting in force. Owner or admin; `evidenceMode` admin only;
   * the acceptance policy (signingPolicy, requireAcceptanceSessions, allowedRequestDomains) needs a fresh signature.
   */
  @Patch()
  @ApiOkResponse({ type: OrganizationResponse })
  @ApiErrors('invalid_request', 'forbidden', 'reauthentication_required', 'not_found')
  async change(@Param('orgId', UuidParam('orgId')) orgId: string, @Body() body: SettingsRequest, @CurrentSession() session: DashboardSession, @Req() req: FastifyRequest) {
    const changes = { ...body, ...(body.products ? { products: { gate: body.products.gate } } : {}) };
    const org = await this.commands.execute(new ChangeSettings(orgId, changes, session, commandContext(`wallet:${session.address}`, req.id, this.clock.now())));
    return { organization: organizationView(org) };
  }
}
