import { dashboardFixture, type DashboardFixture } from './support/raw-http';
import { startTestService, type TestService } from './support/test-service';

/**
 * CORS over real HTTP (spec §5): public endpoints are callable from any website without credentials; the cookie
 * endpoints answer with credentials to the app's own origin only, so a page of another site can neither read a
 * signed-in dashboard's answers nor send its writes.
 */
describe('CORS', () => {
  let service: TestService;
  let fixture: DashboardFixture;
  const foreign = 'https://shop.example';

  beforeAll(async () => {
    service = await startTestService({ env: { RATE_LIMIT_SIGNIN_PER_MINUTE: '1000' } });
    fixture = await dashboardFixture(service);
  });
  afterAll(() => service.destroy());

  const preflight = (path: string, origin: string, method: string, headers: string) =>
    fetch(`${service.baseUrl}/api${path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
    });
  const cookie = () => `svc_session=${fixture.session.session}; svc_csrf=${fixture.session.csrf}`;

  it('lets any site read public endpoints, without credentials', async () => {
    const answer = await fetch(`${service.baseUrl}/api/v1/public/organizations/${fixture.organization.address}`, { headers: { origin: foreign } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
    expect(answer.headers.get('vary') ?? '').toMatch(/\borigin\b/i);
    // What a page needs to read: the request id and the rate headers.
    const exposed = (answer.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['x-request-id', 'x-ratelimit-remaining', 'retry-after', 'idempotent-replayed']));
  });

  it("lets a page of another site revalidate a document's content and read its etag and declared hash", async () => {
    const answer = await preflight('/v1/public/content/' + 'a'.repeat(64), foreign, 'GET', 'if-none-match');
    expect(answer.status).toBe(204);
    expect((answer.headers.get('access-control-allow-headers') ?? '').split(/,\s*/)).toContain('if-none-match');
    const read = await fetch(`${service.baseUrl}/api/v1/public/content/${'a'.repeat(64)}`, { headers: { origin: foreign } });
    expect((read.headers.get('access-control-expose-headers') ?? '').split(/,\s*/)).toEqual(expect.arrayContaining(['etag', 'x-content-sha256']));
  });

  it('answers the preflight of a signing site for the acceptance endpoints', async () => {
    const answer = await preflight('/v1/acceptance/challenges', foreign, 'POST', 'content-type,x-client-binding');
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('access-control-allow-methods')).toContain('POST');
    expect(answer.headers.get('access-control-allow-headers')).toMatch(/content-type/);
    expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('lets a page of another site read the refusals given before any route runs (415, 414, an unreadable URL), with their request id', async () => {
    const answers = await Promise.all([
      fetch(`${service.baseUrl}/api/v1/acceptance/challenges`, { method: 'POST', headers: { origin: foreign, 'content-type': 'text/plain' }, body: 'x' }),
      fetch(`${service.baseUrl}/api/v1/public/versions/${'a'.repeat(300)}`, { headers: { origin: foreign } }),
      fetch(`${service.baseUrl}/api/v1/public/organizations/%C3%28`, { headers: { origin: foreign } }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([415, 414, 400]);
    for (const answer of answers) {
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(answer.headers.get('access-control-expose-headers') ?? '').toContain('x-request-id');
      expect(answer.headers.get('x-request-id')).toMatch(/\S/);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    }
  });

  it('answers an OPTIONS request that is not a complete preflight with 204, never a plain-text error', async () => {
    const answer = await fetch(`${service.baseUrl}/api/v1/network`, { method: 'OPTIONS', headers: { origin: foreign } });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(await answer.text()).toBe('');
  });

  it('answers the preflight of a page whose @solana/web3.js Connection calls the ledger RPC (it sends solana-client)', async () => {
    const answer = await fetch(`${service.baseUrl}/rpc`, {
      method: 'OPTIONS',
      headers: { origin: foreign, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,solana-client' },
    });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect((answer.headers.get('access-control-allow-headers') ?? '').split(/,\s*/)).toEqual(expect.arrayContaining(['content-type', 'solana-client']));
  });

  it('lets the app origin send credentials, authorization and idempotency-key', async () => {
    const app = new URL(service.baseUrl).origin;
    const answer = await preflight(`/v1/drafts/00000000-0000-4000-8000-000000000000`, app, 'PATCH', 'content-type,authorization,idempotency-key,x-csrf-token');
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(app);
    expect(answer.headers.get('access-control-allow-credentials')).toBe('true');
    const allowed = (answer.headers.get('access-control-allow-headers') ?? '').split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'idempotency-key', 'x-csrf-token', 'content-type']));
    expect(answer.headers.get('access-control-allow-methods')).toContain('PATCH');
    // The simple request itself, with the dashboard's cookies: readable by the app, and cached per origin.
    const read = await fetch(`${service.baseUrl}/api/v1/organizations`, { headers: { origin: app, cookie: cookie() } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe(app);
    expect(read.headers.get('access-control-allow-credentials')).toBe('true');
    expect(read.headers.get('vary') ?? '').toMatch(/\borigin\b/i);
    // An API-key call from a server-side page of the app declares authorization and idempotency-key as well.
    const keyed = await preflight('/v1/organizations', foreign, 'GET', 'authorization,idempotency-key');
    expect((keyed.headers.get('access-control-allow-headers') ?? '').split(/,\s*/)).toEqual(expect.arrayContaining(['authorization', 'idempotency-key']));
    expect(keyed.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('never grants credentials to another site: its reads of a cookie endpoint stay unreadable and its writes are refused', async () => {
    const read = await fetch(`${service.baseUrl}/api/v1/organizations`, { headers: { origin: foreign, cookie: cookie() } });
    // The browser would hide this answer: credentials are not allowed for the wildcard origin.
    expect(read.headers.get('access-control-allow-credentials')).toBeNull();
    expect(read.headers.get('access-control-allow-origin')).not.toBe(foreign);
    const write = await fetch(`${service.baseUrl}/api/v1/organizations/sync`, {
      method: 'POST',
      headers: { origin: foreign, cookie: cookie(), 'x-csrf-token': fixture.session.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ address: fixture.organization.address }),
    });
    expect(write.status).toBe(403);
    expect(((await write.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    const preflighted = await preflight('/v1/organizations/sync', foreign, 'POST', 'content-type,x-csrf-token');
    expect(preflighted.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
