import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, UuidParam } from '@svc/http';
import { CurrentSession, SessionGuard, type DashboardSession } from '../../auth/session.guard';
import { DashboardAccess } from '../../organizations/access.service';
import { AcceptancePageResponse } from '../acceptance.responses';
import { AcceptanceSearchQuery } from './acceptance-search.dto';
import { AcceptanceSearch } from './acceptance-search.service';
import { Authenticated } from '../../auth/authenticated';

/** Acceptance search for the dashboard (spec §4.5, same query as `GET /v1/acceptances`); members only. */
@ApiTags('dashboard: acceptances')
@ApiCookieAuth()
@Authenticated(SessionGuard)
@Controller('v1/organizations/:orgId/acceptances')
export class DashboardAcceptancesController {
  constructor(
    private readonly search: AcceptanceSearch,
    private readonly access: DashboardAccess,
  ) {}

  /** `{acceptances: [record], nextCursor}`, newest first. */
  @Get()
  @ApiOkResponse({ type: AcceptancePageResponse })
  @ApiErrors('invalid_request', 'invalid_address', 'invalid_cursor', 'forbidden', 'not_found')
  async acceptances(@Param('orgId', UuidParam('orgId')) orgId: string, @Query() query: AcceptanceSearchQuery, @CurrentSession() session: DashboardSession) {
    await this.access.organization(orgId, session.address);
    return this.search.search(orgId, query);
  }
}
