import { generateKeyPairSigner } from '@solana/kit';
import { canonicalContent, contentHash } from '@svc/evidence';
import { ApiClient } from '../apps/cli/src/api-client';
import { signIn } from '../apps/cli/src/operations';
import { codeOf } from './support/durability';
import { publishedDocument, termsOfService, type PublishedDocument } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';

/** Draft text is private; only content of published versions is public (docs/api.md "Documents"). */
describe('content routes: published content public, draft text private', () => {
  let service: TestService;
  let doc: PublishedDocument;

  beforeAll(async () => {
    service = await startTestService({ env: { RATE_LIMIT_SIGNIN_PER_MINUTE: '1000' } });
    doc = await publishedDocument(service, [1]);
  });
  afterAll(() => service.destroy());

  const get = (route: string) => fetch(`${service.baseUrl}/api${route}`);

  it('serves a published version with nosniff, and its parsed blocks', async () => {
    const hash = doc.versions[0]!.contentHash;
    const res = await get(`/v1/public/content/${hash}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await res.text()).toBe(canonicalContent(termsOfService(1)).toString('utf8'));
    const parsed = await get(`/v1/public/content/${hash}/parsed`);
    expect(parsed.status).toBe(200);
    expect(parsed.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("404s a draft's text publicly and serves it to its organization only, until it is published", async () => {
    const source = termsOfService(2);
    const { draft } = await doc.dashboard.request<{ draft: { id: string; contentHash: string; contentUrl: string } }>('POST', `/v1/documents/${doc.document.id}/drafts`, {
      title: 'Terms of Service',
      versionLabel: 'v2',
      source,
    });
    expect(draft.contentHash).toBe(contentHash(canonicalContent(source)));
    expect(draft.contentUrl).toBe(`${service.baseUrl}/api/v1/drafts/${draft.id}/content`);
    expect((await get(`/v1/public/content/${draft.contentHash}`)).status).toBe(404);
    expect((await get(`/v1/public/content/${draft.contentHash}/parsed`)).status).toBe(404);

    const own = await doc.dashboard.raw('GET', `/v1/drafts/${draft.id}/content`);
    expect(own.response.status).toBe(200);
    expect(own.response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(own.response.headers.get('cache-control')).toBe('private, no-store');
    expect(own.text).toBe(canonicalContent(source).toString('utf8'));
    expect(await codeOf(new ApiClient(service.baseUrl).request('GET', `/v1/drafts/${draft.id}/content`))).toBe('403 forbidden');
    const stranger = new ApiClient(service.baseUrl).useSession(await signIn(new ApiClient(service.baseUrl), await generateKeyPairSigner()));
    expect(await codeOf(stranger.request('GET', `/v1/drafts/${draft.id}/content`))).toBe('404 not_found');

    // Publishing a version with that text makes it public.
    await doc.publish(2);
    const published = await get(`/v1/public/content/${draft.contentHash}`);
    expect(published.status).toBe(200);
    expect(await published.text()).toBe(canonicalContent(source).toString('utf8'));
  });
});
