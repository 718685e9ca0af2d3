import { Body, Controller, Get, HttpCode, Inject, Param, Patch, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiErrors, UuidParam } from '@svc/http';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type VersionDoc } from '@svc/projections';
import { CurrentSession, SessionGuard, type DashboardSession } from '../auth/session.guard';
import { commandContext, NetworkService } from '@svc/application';
import { DashboardAccess } from './access.service';
import { SyncDocument } from './document.handlers';
import { AbandonDraft, CreateDraft, PrepareDraft, UpdateDraft } from './draft.handlers';
import { RefreshOrganization, SyncOrganization } from './organization.handlers';
import { AddressRequest, ConfirmPublicationRequest, CreateDraftRequest, UpdateDraftRequest } from './organizations.dto';
import { ConfirmPublication } from './publication.handlers';
import { documentView, draftView, organizationView, versionListView, versionView } from './views';
import {
  DocumentListResponse,
  DocumentResponse,
  DocumentWithVersionsResponse,
  DraftResponse,
  OrganizationListResponse,
  OrganizationResponse,
  PreparedDraftResponse,
  PublicationConfirmedResponse,
} from './dashboard.responses';
import { Authenticated } from '../auth/authenticated';
import { createdIdOf } from '../system/idempotency.interceptor';

const ctxOf = (session: DashboardSession, req: FastifyRequest) => commandContext(`wallet:${session.address}`, req.id);

/**
 * Dashboard endpoints for what publishing needs (spec §4.10). The dashboard never writes to the ledger:
 * the organization's wallet creates organizations, documents and versions; these endpoints read the result.
 */
@ApiTags('dashboard: organizations and documents')
@ApiCookieAuth()
@Authenticated(SessionGuard)
@Controller('v1')
export class DashboardController {
  constructor(
    private readonly commands: CommandBus,
    private readonly access: DashboardAccess,
    private readonly network: NetworkService,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /** Organizations where the signed-in wallet is the owner or a member: `{organizations: [organization]}`. */
  @Get('organizations')
  @ApiOkResponse({ type: OrganizationListResponse })
  @ApiErrors('forbidden')
  async organizations(@CurrentSession() session: DashboardSession) {
    const ids = (await this.access.memberships.find({ member: session.address })).map((m) => m.organizationId);
    const orgs = ids.length === 0 ? [] : await this.access.organizations.find({ _id: { $in: ids } }, { sort: { syncedAt: 1 } });
    return { organizations: orgs.map(organizationView) };
  }

  /** Reads an organization from the ledger and records it: `{organization}`. */
  @Post('organizations/sync')
  @HttpCode(200)
  @ApiOkResponse({ type: OrganizationResponse })
  @ApiErrors('invalid_request', 'invalid_address', 'forbidden', 'not_found', 'chain_state')
  async syncOrganization(@Body() body: AddressRequest, @CurrentSession() session: DashboardSession, @Req() req: FastifyRequest) {
    const org = await this.commands.execute(new SyncOrganization(body.address, session.address, ctxOf(session, req)));
    return { organization: organizationView(org) };
  }

  /** `{organization}` */
  @Get('organizations/:orgId')
  @ApiOkResponse({ type: OrganizationResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  async organization(@Param('orgId', UuidParam('orgId')) orgId: string, @CurrentSession() session: DashboardSession) {
    return { organization: organizationView(await this.access.organization(orgId, session.address)) };
  }

  /** Re-reads the organization from the ledger: `{organization}`. */
  @Post('organizations/:orgId/refresh')
  @HttpCode(200)
  @ApiOkResponse({ type: OrganizationResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  async refresh(@Param('orgId', UuidParam('orgId')) orgId: string, @CurrentSession() session: DashboardSession, @Req() req: FastifyRequest) {
    const org = await this.commands.execute(new RefreshOrganization(orgId, session.address, ctxOf(session, req)));
    return { organization: organizationView(org) };
  }

  /** `{documents: [document]}` with each document's current version. */
  @Get('organizations/:orgId/documents')
  @ApiOkResponse({ type: DocumentListResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  async documents(@Param('orgId', UuidParam('orgId')) orgId: string, @CurrentSession() session: DashboardSession) {
    await this.access.organization(orgId, session.address);
    const docs = await this.access.documents.find({ organizationId: orgId }, { sort: { slug: 1 } });
    return { documents: docs.map(documentView) };
  }

  /** Reads a document from the ledger and records it: `{document}`. */
  @Post('organizations/:orgId/documents/sync')
  @HttpCode(200)
  @ApiOkResponse({ type: DocumentResponse })
  @ApiErrors('invalid_request', 'invalid_address', 'forbidden', 'not_found', 'chain_state')
  async syncDocument(
    @Param('orgId', UuidParam('orgId')) orgId: string,
    @Body() body: AddressRequest,
    @CurrentSession() session: DashboardSession,
    @Req() req: FastifyRequest,
  ) {
    const doc = await this.commands.execute(new SyncDocument(orgId, body.address, session.address, ctxOf(session, req)));
    return { document: documentView(doc) };
  }

  /** `{document, versions: [version]}`, versions oldest first. */
  @Get('documents/:documentId')
  @ApiOkResponse({ type: DocumentWithVersionsResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  async document(@Param('documentId', UuidParam('documentId')) documentId: string, @CurrentSession() session: DashboardSession) {
    const { document } = await this.access.document(documentId, session.address);
    const versions = await this.readStore.collection<VersionDoc>(COLLECTIONS.versions).find({ documentId }, { sort: { number: 1 } });
    return { document: documentView(document), versions: versionListView(versions) };
  }

  /** Creates a draft of the next version: `{draft}`. */
  @Post('documents/:documentId/drafts')
  @HttpCode(200)
  @ApiOkResponse({ type: DraftResponse })
  @ApiErrors('invalid_request', 'invalid_content', 'invalid_effective_date', 'forbidden', 'not_found', 'chain_state')
  async createDraft(
    @Param('documentId', UuidParam('documentId')) documentId: string,
    @Body() body: CreateDraftRequest,
    @CurrentSession() session: DashboardSession,
    @Req() req: FastifyRequest,
  ) {
    const draft = await this.commands.execute(new CreateDraft(documentId, body, session.address, ctxOf(session, req), createdIdOf(req, 'draft')));
    return { draft: draftView(draft, this.network.network.contentMirror) };
  }

  /** `{draft}` */
  @Get('drafts/:draftId')
  @ApiOkResponse({ type: DraftResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  async draft(@Param('draftId', UuidParam('draftId')) draftId: string, @CurrentSession() session: DashboardSession) {
    const { draft } = await this.access.draft(draftId, session.address);
    return { draft: draftView(draft, this.network.network.contentMirror) };
  }

  /** Changes an open draft (a prepared draft returns to open): `{draft}`. */
  @Patch('drafts/:draftId')
  @ApiOkResponse({ type: DraftResponse })
  @ApiErrors('invalid_request', 'invalid_content', 'invalid_effective_date', 'forbidden', 'not_found', 'draft_published', 'draft_closed', 'chain_state')
  async updateDraft(
    @Param('draftId', UuidParam('draftId')) draftId: string,
    @Body() body: UpdateDraftRequest,
    @CurrentSession() session: DashboardSession,
    @Req() req: FastifyRequest,
  ) {
    const draft = await this.commands.execute(new UpdateDraft(draftId, body, session.address, ctxOf(session, req)));
    return { draft: draftView(draft, this.network.network.contentMirror) };
  }

  /** `{draft}` with status `abandoned`. */
  @Post('drafts/:draftId/abandon')
  @HttpCode(200)
  @ApiOkResponse({ type: DraftResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found', 'draft_published', 'draft_closed')
  async abandonDraft(@Param('draftId', UuidParam('draftId')) draftId: string, @CurrentSession() session: DashboardSession, @Req() req: FastifyRequest) {
    const draft = await this.commands.execute(new AbandonDraft(draftId, session.address, ctxOf(session, req)));
    return { draft: draftView(draft, this.network.network.contentMirror) };
  }

  /**
   * Fixes the version number and fingerprint: `{draft, publication: {organization, document, number, label, title,
   * contentHash, fingerprint, effectiveAt, memo}}`. The wallet then publishes with a fresh version key pair
   * co-signing `memo` (docs/protocol.md) and calls `POST /v1/publications/confirm`. `409 version_superseded` when the
   * ledger already holds an unrecorded version of that number or later (docs/api.md "Publishing", step 4);
   * `409 chain_state` when the organization's wallet has too long a history to read.
   */
  @Post('drafts/:draftId/prepare')
  @HttpCode(200)
  @ApiOkResponse({ type: PreparedDraftResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found', 'draft_published', 'draft_closed', 'version_superseded', 'chain_state')
  async prepareDraft(@Param('draftId', UuidParam('draftId')) draftId: string, @CurrentSession() session: DashboardSession, @Req() req: FastifyRequest) {
    const { draft, publication } = await this.commands.execute(new PrepareDraft(draftId, session.address, ctxOf(session, req)));
    return { draft: draftView(draft, this.network.network.contentMirror), publication };
  }

  /** Reads the publication transaction from the ledger and records the version: `{version, document}`. */
  @Post('publications/confirm')
  @HttpCode(200)
  @ApiOkResponse({ type: PublicationConfirmedResponse })
  @ApiErrors('invalid_request', 'invalid_signature', 'forbidden', 'not_found', 'not_a_publication', 'transaction_failed', 'version_superseded', 'chain_state')
  async confirmPublication(@Body() body: ConfirmPublicationRequest, @CurrentSession() session: DashboardSession, @Req() req: FastifyRequest) {
    const { version, document } = await this.commands.execute(new ConfirmPublication(body.signature, session.address, ctxOf(session, req)));
    return { version: versionView(version), document: documentView(document) };
  }
}
