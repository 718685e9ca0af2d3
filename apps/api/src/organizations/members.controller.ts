import { Body, Controller, Param, Patch, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AddressParam, ApiErrors, UuidParam } from '@svc/http';
import { commandContext } from '@svc/application';
import { CurrentSession, SessionGuard, type DashboardSession } from '../auth/session.guard';
import { SetMemberLabel } from './members.handlers';
import { MemberLabelRequest } from './members.dto';
import { organizationView } from './views';
import { OrganizationResponse } from './dashboard.responses';
import { Authenticated } from '../auth/authenticated';

/**
 * Members of an organization (spec §4.10, §5; docs/api.md "Members and roles"). Members and their roles come from
 * the organization's member records on the ledger (read by sync and refresh); only the label is the dashboard's.
 */
@ApiTags('dashboard: members')
@ApiCookieAuth()
@Authenticated(SessionGuard)
@Controller('v1/organizations/:orgId/members')
export class MembersController {
  constructor(private readonly commands: CommandBus) {}

  /** Sets or clears a member's dashboard label (owner or admin): `{organization}`. */
  @Patch(':memberAddress')
  @ApiOkResponse({ type: OrganizationResponse, description: '`{organization}` with `members[].label` updated' })
  @ApiErrors('invalid_request', 'invalid_address', 'forbidden', 'not_found')
  async setLabel(
    @Param('orgId', UuidParam('orgId')) orgId: string,
    @Param('memberAddress', AddressParam('memberAddress')) memberAddress: string,
    @Body() body: MemberLabelRequest,
    @CurrentSession() session: DashboardSession,
    @Req() req: FastifyRequest,
  ) {
    const ctx = commandContext(`wallet:${session.address}`, req.id);
    const org = await this.commands.execute(new SetMemberLabel(orgId, memberAddress, body.label, session.address, ctx));
    return { organization: organizationView(org) };
  }
}
