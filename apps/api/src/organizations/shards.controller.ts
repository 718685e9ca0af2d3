import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiErrors, UuidParam } from '@svc/http';
import { CLOCK, commandContext, type Clock } from '@svc/application';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type ShardDoc } from '@svc/projections';
import { CurrentSession, SessionGuard, type DashboardSession } from '../auth/session.guard';
import { DashboardAccess } from './access.service';
import { AddressRequest } from './organizations.dto';
import { SyncShard } from './shards.handlers';
import { ShardListResponse, ShardResponse } from './shards.dto';
import { shardView } from './views';
import { Authenticated } from '../auth/authenticated';

/**
 * Capacity shards (spec §4.10; docs/protocol.md "Shard record"): created on the ledger by the organization's wallet,
 * read here. Owners and admins sync; every member lists.
 */
@ApiTags('dashboard: shards')
@ApiCookieAuth()
@Authenticated(SessionGuard)
@Controller('v1/organizations/:orgId/shards')
export class ShardsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly access: DashboardAccess,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The organization's shards, oldest first: `{shards}`. Any member. */
  @Get()
  @ApiOkResponse({ type: ShardListResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  async list(@Param('orgId', UuidParam('orgId')) orgId: string, @CurrentSession() session: DashboardSession) {
    await this.access.organization(orgId, session.address);
    const docs = await this.readStore.collection<ShardDoc>(COLLECTIONS.shards).find({ organizationId: orgId }, { sort: { slot: 1 } });
    return { shards: docs.map(shardView) };
  }

  /** Reads the shard at `address` from the ledger and records it (owner or admin): `{shard}`. */
  @Post('sync')
  @HttpCode(200)
  @ApiBody({ type: AddressRequest })
  @ApiOkResponse({ type: ShardResponse })
  @ApiErrors('invalid_request', 'invalid_address', 'forbidden', 'not_found', 'chain_state')
  async sync(@Param('orgId', UuidParam('orgId')) orgId: string, @Body() body: AddressRequest, @CurrentSession() session: DashboardSession, @Req() req: FastifyRequest) {
    const doc = await this.commands.execute(new SyncShard(orgId, body.address, session.address, commandContext(`wallet:${session.address}`, req.id, this.clock.now())));
    return { shard: shardView(doc) };
  }
}
