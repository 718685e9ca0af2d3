import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiCookieAuth, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { DomainError } from '@svc/domain';
import { ApiErrors, UuidParam } from '@svc/http';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type ContentDoc } from '@svc/projections';
import { CurrentSession, SessionGuard, type DashboardSession } from '../auth/session.guard';
import { DashboardAccess } from '../organizations/access.service';
import { sendContent, verifiedBytes, CONTENT_HEADERS } from './content-response';
import { Authenticated } from '../auth/authenticated';

/** A draft's text, for its organization only: drafts are not public (docs/api.md "Publishing"). */
@ApiTags('dashboard: organizations and documents')
@ApiCookieAuth()
@Authenticated(SessionGuard)
@Controller('v1')
export class DraftContentController {
  constructor(
    private readonly access: DashboardAccess,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /**
   * The canonical bytes of the draft's current source (`text/markdown; charset=utf-8`, never cached: an edit
   * changes them). The draft's `contentUrl`.
   * @throws DomainError unauthorized (401) without a session; not_found (404) for a draft of another organization.
   */
  @Get('drafts/:draftId/content')
  @ApiProduces('text/markdown')
  @ApiOkResponse({ description: "The draft's canonical source (text/markdown; charset=utf-8)", content: { 'text/markdown': { schema: { type: 'string' } } }, headers: CONTENT_HEADERS })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  async content(@Param('draftId', UuidParam('draftId')) draftId: string, @CurrentSession() session: DashboardSession, @Res() reply: FastifyReply): Promise<void> {
    const { draft } = await this.access.draft(draftId, session.address);
    const content = await this.readStore.collection<ContentDoc>(COLLECTIONS.contents).findOne({ _id: draft.contentHash });
    if (!content) throw new DomainError('not_found', 'draft content not found');
    sendContent(reply, verifiedBytes(content.text, draft.contentHash), draft.contentHash, 'private, no-store');
  }
}
