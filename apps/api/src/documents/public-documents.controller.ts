import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { createHash } from 'node:crypto';
import { CLOCK, type Clock } from '@svc/application';
import { DomainError } from '@svc/domain';
import { ADDR, AddressParam, ApiErrors, Hex64Param, MatchPipe, ORG_REF, SlugParam } from '@svc/http';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type ContentDoc, type DocumentDoc, type OrganizationDoc, type VersionDoc } from '@svc/projections';
import { versionView } from '../organizations/views';
import { ParsedContent } from './parsed-content.service';
import { namedByIfNoneMatch, sendContent, sendNotModified, verifiedBytes, CONTENT_HEADERS } from './content-response';
import { ParsedContentResponse, PublicDocumentResponse, PublicOrganizationResponse, PublicVersionResponse } from './public-documents.responses';

/** Names the block format of `/parsed` answers in their etag; a change of the blocks' shapes or rules moves it. */
const PARSED_FORMAT = 'blocks-1';

/** The organization's verified domain while in force at `now`, else null. */
function verifiedDomainOf(org: OrganizationDoc, now: Date): string | null {
  const expiresAt = org.verifiedDomainExpiresAt;
  return org.verifiedDomain && expiresAt && Date.parse(expiresAt) > now.getTime() ? org.verifiedDomain : null;
}

/** Public document reads (spec §4.2): no authentication, callable from any website. */
@ApiTags('public: documents')
@Controller('v1/public')
export class PublicDocumentsController {
  /** Verified canonical bytes by hash, bounded (content is immutable, so entries never go stale). */
  private readonly verified = new Map<string, Buffer>();
  private static readonly CACHE_ENTRIES = 64;

  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly parsedContent: ParsedContent,
  ) {}

  private get organizations() {
    return this.readStore.collection<OrganizationDoc>(COLLECTIONS.organizations);
  }
  private get documents() {
    return this.readStore.collection<DocumentDoc>(COLLECTIONS.documents);
  }
  private get versions() {
    return this.readStore.collection<VersionDoc>(COLLECTIONS.versions);
  }

  /**
   * The organization at an address, or holding `ref` as a verified domain not yet expired (docs/api.md "Domains"); the
   * domain an organization claims in its ledger record names nothing.
   * @throws DomainError not_found (404)
   */
  private async organizationByRef(ref: string): Promise<OrganizationDoc> {
    const org = ADDR.test(ref) ? await this.organizations.findOne({ address: ref }) : await this.byVerifiedDomain(ref.toLowerCase());
    if (!org) throw new DomainError('not_found', 'organization not found');
    return org;
  }

  private async byVerifiedDomain(domain: string): Promise<OrganizationDoc | undefined> {
    const now = this.clock.now();
    return (await this.organizations.find({ verifiedDomain: domain })).find((o) => verifiedDomainOf(o, now) === domain);
  }

  /**
   * Organization by address or verified domain: `{organization: {address, name, domain, signingPolicy,
   * documents: [{address, slug, title, version}]}}` (version: spec §2.2 plus contentHash, or null).
   */
  @Get('organizations/:ref')
  @ApiOkResponse({ type: PublicOrganizationResponse })
  @ApiErrors('invalid_request', 'not_found')
  async organization(@Param('ref', new MatchPipe('ref', ORG_REF)) ref: string) {
    const org = await this.organizationByRef(ref);
    const docs = await this.documents.find({ organizationId: org.organizationId }, { sort: { slug: 1 } });
    return {
      organization: {
        address: org.address,
        name: org.name,
        domain: verifiedDomainOf(org, this.clock.now()),
        signingPolicy: org.settings.signingPolicy,
        documents: docs.map((d) => ({ address: d.address, slug: d.slug, title: d.title, version: d.currentVersion ? versionView(d.currentVersion) : null })),
      },
    };
  }

  /**
   * Document with its current version and history: `{organization: ADDR, document: {address, slug, title},
   * version: {…§2.2, contentHash}|null, contentHash, versions: [version], gatePolicy: null}`.
   */
  @Get('organizations/:ref/documents/:slug')
  @ApiOkResponse({ type: PublicDocumentResponse })
  @ApiErrors('invalid_request', 'not_found')
  async document(@Param('ref', new MatchPipe('ref', ORG_REF)) ref: string, @Param('slug', SlugParam()) slug: string) {
    const org = await this.organizationByRef(ref);
    const doc = await this.documents.findOne({ organization: org.address, slug });
    if (!doc) throw new DomainError('not_found', 'document not found');
    const versions = await this.versions.find({ documentId: doc.documentId }, { sort: { number: -1 } });
    const current = doc.currentVersion ? versionView(doc.currentVersion) : null;
    return {
      organization: org.address,
      document: { address: doc.address, slug: doc.slug, title: doc.title },
      version: current,
      contentHash: current?.contentHash ?? null,
      versions: versions.map(versionView),
      gatePolicy: null,
    };
  }

  /** One version with its document and organization: `{organization: ADDR, document: {address, slug, title}, version, latest: boolean}`. */
  @Get('versions/:address')
  @ApiOkResponse({ type: PublicVersionResponse })
  @ApiErrors('invalid_address', 'not_found')
  async version(@Param('address', AddressParam()) address: string) {
    const v = await this.versions.findOne({ _id: address });
    if (!v) throw new DomainError('not_found', 'version not found');
    const doc = await this.documents.findOne({ _id: v.documentId });
    return {
      organization: v.organization,
      document: doc ? { address: doc.address, slug: doc.slug, title: doc.title } : { address: v.document, slug: null, title: null },
      version: versionView(v),
      latest: doc?.currentVersion?.address === v.address,
    };
  }

  /**
   * The canonical bytes of a published version's content. A draft's text is not public (docs/api.md "Documents"):
   * content no published version has reads as not found, like content never stored. Only published content is
   * cached (publication is final, so an entry never goes stale).
   * @throws DomainError not_found (404)
   */
  private async canonicalBytes(hash: string): Promise<Buffer> {
    const cached = this.verified.get(hash);
    if (cached) return cached;
    const content = await this.readStore.collection<ContentDoc>(COLLECTIONS.contents).findOne({ _id: hash });
    if (!content || !content.published) throw new DomainError('not_found', 'content not found');
    const bytes = verifiedBytes(content.text, hash);
    if (this.verified.size >= PublicDocumentsController.CACHE_ENTRIES) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(hash, bytes);
    return bytes;
  }

  /** The canonical bytes of a version (`text/markdown; charset=utf-8`), only when their SHA-256 equals `hash`. */
  @Get('content/:hash')
  @ApiProduces('text/markdown')
  @ApiOkResponse({ description: 'The canonical bytes (text/markdown; charset=utf-8)', content: { 'text/markdown': { schema: { type: 'string' } } }, headers: CONTENT_HEADERS })
  @ApiResponse({ status: 304, description: 'Not Modified: `If-None-Match` names the hash (no body)', headers: CONTENT_HEADERS })
  @ApiErrors('invalid_request', 'not_found')
  async content(@Param('hash', Hex64Param('hash')) hash: string, @Res() reply: FastifyReply): Promise<void> {
    sendContent(reply, await this.canonicalBytes(hash), hash, 'public, max-age=31536000, immutable');
  }

  /**
   * The same content as structured blocks: `{contentHash, format: "markdown", blocks}` (block shapes:
   * parsed-content.ts), parsed off the event loop and kept (ParsedContent). `etag` names the content and the block
   * format; `If-None-Match` naming it is answered 304.
   */
  @Get('content/:hash/parsed')
  @ApiOkResponse({ type: ParsedContentResponse, headers: { etag: { description: 'The content hash and the block format: `"<sha256 hex>.blocks-1"`', schema: { type: 'string' } } } })
  @ApiResponse({ status: 304, description: 'Not Modified: `If-None-Match` names the etag (no body)' })
  @ApiErrors('invalid_request', 'not_found', 'rate_limited')
  async parsed(@Param('hash', Hex64Param('hash')) hash: string, @Res() reply: FastifyReply): Promise<void> {
    const json = await this.parsedContent.answer(hash, async () => (await this.canonicalBytes(hash)).toString('utf8'));
    const etag = `"${hash}.${PARSED_FORMAT}"`;
    void reply.header('x-content-type-options', 'nosniff').header('etag', etag).header('cache-control', 'public, max-age=86400');
    if (namedByIfNoneMatch(reply, etag)) return sendNotModified(reply, Buffer.byteLength(json));
    void reply.header('content-type', 'application/json; charset=utf-8').send(json);
  }
}
