/**
 * Domain verification over real HTTP (spec §4.2, §4.10, §5; docs/api.md "Domains"): the service looks TXT records up
 * through a real DNS server on loopback (`dns2`) whose records the test controls; a verified domain names the
 * organization in the public reads until it expires or is revoked; revoking needs a fresh signature.
 */
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import dns2 from 'dns2';
import { AdjustableClock } from '@svc/application';
import { ApiClient } from '../apps/cli/src/api-client';
import { signIn, writeMemberOnLedger } from '../apps/cli/src/operations';
import { codeOf } from './support/durability';
import { publishedDocument, type PublishedDocument } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';

interface Verification {
  id: string;
  domain: string;
  status: string;
  record: { type: 'TXT'; name: string; value: string };
  checkBefore: string;
  verifiedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  attestationTransaction: null;
}
interface CheckAnswer {
  verification: Verification;
  lookup: { found: boolean; values: string[]; error: string | null };
}
interface PublicOrganization {
  organization: { address: string; name: string; domain: string | null };
}

const DAY = 86_400;
const SERVFAIL = 2;

describe('domain verification', () => {
  const txt = new Map<string, string[]>();
  const failing = new Set<string>();
  let dns: ReturnType<typeof dns2.createServer>;
  const clock = new AdjustableClock();
  let service: TestService;
  let org: PublishedDocument;
  let other: PublishedDocument;
  let anonymous: ApiClient;

  beforeAll(async () => {
    dns = dns2.createServer({
      udp: true,
      handle: (request, send) => {
        const response = dns2.Packet.createResponseFromRequest(request);
        const question = request.questions[0]!;
        if (failing.has(question.name.toLowerCase())) return void send(dns2.Packet.createErrorResponseFromRequest(request, SERVFAIL));
        if (question.type === dns2.Packet.TYPE.TXT) {
          for (const data of txt.get(question.name.toLowerCase()) ?? []) response.answers.push(dns2.Packet.createResourceFromQuestion(question, { ttl: 1, data }));
        }
        void send(response);
      },
    });
    const addresses = await dns.listen({ udp: { port: 0, address: '127.0.0.1' } });
    service = await startTestService({
      clock,
      env: { DNS_SERVERS: `127.0.0.1:${addresses.udp!.port}`, RATE_LIMIT_SIGNIN_PER_MINUTE: '1000', RATE_LIMIT_DNS_CHECK_PER_MINUTE: '1000', LEDGER_AIRDROPS_PER_MINUTE: '1000', SESSION_TTL_SECONDS: String(400 * DAY) },
    });
    [org, other] = await Promise.all([publishedDocument(service, []), publishedDocument(service, [], 'privacy')]);
    anonymous = new ApiClient(service.baseUrl);
  });
  afterAll(async () => {
    await service?.destroy();
    await dns?.close();
  });

  const domainsOf = (d: PublishedDocument) => `/v1/organizations/${d.organization.id}/domains`;
  const session = async (wallet: KeyPairSigner) => new ApiClient(service.baseUrl).useSession(await signIn(new ApiClient(service.baseUrl), wallet));
  const start = async (d: PublishedDocument, domain: string) => (await d.dashboard.request<{ verification: Verification }>('POST', domainsOf(d), { domain })).verification;
  const check = (client: ApiClient, d: PublishedDocument, id: string) => client.request<CheckAnswer>('POST', `${domainsOf(d)}/${id}/check`);
  const publicByRef = (ref: string) => anonymous.request<PublicOrganization>('GET', `/v1/public/organizations/${ref}`);

  it('answers identical starts sent at once with the one verification they share', async () => {
    const busy = await publishedDocument(service, [], 'busy');
    const answers = await Promise.all(Array.from({ length: 5 }, () => start(busy, 'concurrent.example.net')));
    expect(new Set(answers.map((v) => v.id)).size).toBe(1);
    expect((await busy.dashboard.request<{ verifications: Verification[] }>('GET', domainsOf(busy))).verifications.map((v) => v.id)).toEqual([answers[0]!.id]);
  });

  it('stays pending while the TXT record is absent, verifies once it is published, and names the organization publicly', async () => {
    const started = await start(org, 'Shop.Example.com');
    expect(started).toMatchObject({ domain: 'shop.example.com', status: 'pending', verifiedAt: null, expiresAt: null, attestationTransaction: null });
    expect(started.record.name).toBe('_svc-verification.shop.example.com');
    expect(started.record.value).toMatch(/^svc-verification=[0-9a-f]{32}$/);
    // Starting again while pending answers the same verification.
    expect((await start(org, 'shop.example.com')).id).toBe(started.id);

    txt.set(started.record.name, ['unrelated=1']);
    const absent = await check(org.dashboard, org, started.id);
    expect(absent.verification.status).toBe('pending');
    expect(absent.lookup).toEqual({ found: false, values: ['unrelated=1'], error: null });
    expect(await codeOf(publicByRef('shop.example.com'))).toBe('404 not_found');
    // A failing DNS server leaves it pending and says why.
    failing.add(started.record.name);
    const failed = await check(org.dashboard, org, started.id);
    expect([failed.verification.status, failed.lookup]).toEqual(['pending', { found: false, values: [], error: 'ESERVFAIL' }]);
    failing.clear();

    txt.set(started.record.name, ['unrelated=1', started.record.value]);
    const found = await check(org.dashboard, org, started.id);
    expect(found.lookup.found).toBe(true);
    expect(found.verification.status).toBe('verified');
    expect(Date.parse(found.verification.expiresAt!) - Date.parse(found.verification.verifiedAt!)).toBe(365 * DAY * 1000);

    const byDomain = await publicByRef('SHOP.example.com');
    expect(byDomain.organization).toMatchObject({ address: org.organization.address, domain: 'shop.example.com' });
    expect((await publicByRef(org.organization.address)).organization.domain).toBe('shop.example.com');
    const listed = await org.dashboard.request<{ verifications: Verification[] }>('GET', domainsOf(org));
    expect(listed.verifications.map((v) => [v.id, v.status])).toEqual([[started.id, 'verified']]);
    const dashboardOrg = await org.dashboard.request<{ organization: { verifiedDomain: string | null } }>('GET', `/v1/organizations/${org.organization.id}`);
    expect(dashboardOrg.organization.verifiedDomain).toBe('shop.example.com');
  });

  it('refuses a domain verified elsewhere or not yet due for renewal, bad input, other organizations and publishers', async () => {
    expect(await codeOf(other.dashboard.request('POST', domainsOf(other), { domain: 'shop.example.com' }))).toBe('409 domain_already_verified');
    expect(await codeOf(org.dashboard.request('POST', domainsOf(org), { domain: 'shop.example.com' }))).toBe('409 domain_already_verified');
    const [verified] = (await org.dashboard.request<{ verifications: Verification[] }>('GET', domainsOf(org))).verifications;
    expect(await codeOf(check(org.dashboard, org, verified!.id))).toBe('409 domain_already_verified');

    for (const domain of ['not a host', 'пример.рф', 'bücher.de', 'localhost', 'shop.example.com.', 'shop_x.example.com', 'http://a.example.com', `${'a'.repeat(41)}.example`, 5, null, '']) {
      expect(`${domain}: ${await codeOf(org.dashboard.request('POST', domainsOf(org), { domain }))}`).toBe(`${domain}: 400 invalid_domain`);
    }
    expect(await codeOf(org.dashboard.request('POST', domainsOf(org), {}))).toBe('400 invalid_domain');
    expect(await codeOf(org.dashboard.request('POST', domainsOf(org), { domain: 'a.example.com', verified: true }))).toBe('400 invalid_request');
    expect(await codeOf(org.dashboard.request('POST', `${domainsOf(org)}/not-a-uuid/check`))).toBe('400 invalid_request');

    // Another organization's verification does not exist for it, through either organization's path.
    expect(await codeOf(check(other.dashboard, other, verified!.id))).toBe('404 not_found');
    expect(await codeOf(check(other.dashboard, org, verified!.id))).toBe('404 not_found');
    expect(await codeOf(other.dashboard.request('POST', `${domainsOf(other)}/${verified!.id}/revoke`))).toBe('404 not_found');
    expect(await codeOf(other.dashboard.request('GET', domainsOf(org)))).toBe('404 not_found');
    expect(await codeOf(anonymous.request('GET', domainsOf(org)))).toBe('403 forbidden');

    const publisher = await generateKeyPairSigner();
    await writeMemberOnLedger(org.ledger, org.owner, { organization: org.organization.address, member: publisher.address, roles: ['publisher'], active: true });
    await org.dashboard.request('POST', `/v1/organizations/${org.organization.id}/refresh`);
    const asPublisher = await session(publisher);
    expect(await codeOf(asPublisher.request('POST', domainsOf(org), { domain: 'docs.example.com' }))).toBe('403 forbidden');
    expect(await codeOf(check(asPublisher, org, verified!.id))).toBe('403 forbidden');
    expect(await codeOf(asPublisher.request('POST', `${domainsOf(org)}/${verified!.id}/revoke`))).toBe('403 forbidden');
    // Members read.
    expect((await asPublisher.request<{ verifications: Verification[] }>('GET', domainsOf(org))).verifications).toHaveLength(1);
  });

  it('revokes only with a fresh signature; a revoked domain names nobody and cannot be checked', async () => {
    const [verified] = (await org.dashboard.request<{ verifications: Verification[] }>('GET', domainsOf(org))).verifications;
    const revokePath = `${domainsOf(org)}/${verified!.id}/revoke`;
    clock.advance(11 * 60);
    expect(await codeOf(org.dashboard.request('POST', revokePath))).toBe('403 reauthentication_required');
    expect((await publicByRef('shop.example.com')).organization.address).toBe(org.organization.address);

    const fresh = await session(org.owner);
    // Revokes sent at once (a double click): each answers the verification revoked, the same revocation.
    const answers = await Promise.all(Array.from({ length: 4 }, () => fresh.request<{ verification: Verification }>('POST', revokePath)));
    expect(answers.map((a) => a.verification.status)).toEqual(['revoked', 'revoked', 'revoked', 'revoked']);
    expect(new Set(answers.map((a) => a.verification.revokedAt)).size).toBe(1);
    const [revoked] = answers;
    expect(revoked!.verification.revokedAt).not.toBeNull();
    expect(await codeOf(publicByRef('shop.example.com'))).toBe('404 not_found');
    expect((await publicByRef(org.organization.address)).organization.domain).toBeNull();
    expect(await codeOf(check(fresh, org, verified!.id))).toBe('409 chain_state');
    // Now the other organization may take the name.
    const taken = await start(other, 'shop.example.com');
    txt.set(taken.record.name, [taken.record.value]);
    expect((await check(other.dashboard, other, taken.id)).verification.status).toBe('verified');
    expect((await publicByRef('shop.example.com')).organization.address).toBe(other.organization.address);
  });

  it('closes the window to publish after 7 days and lets a verified domain lapse after 365 days', async () => {
    const late = await start(org, 'late.example.net');
    clock.advance(8 * DAY);
    expect(await codeOf(check(org.dashboard, org, late.id))).toBe('409 domain_expiring');
    const listed = await org.dashboard.request<{ verifications: Verification[] }>('GET', domainsOf(org));
    expect(listed.verifications.find((v) => v.id === late.id)?.status).toBe('expired');

    // The other organization's domain (verified 8 days ago) can be renewed in its last 30 days only.
    const [held] = (await other.dashboard.request<{ verifications: Verification[] }>('GET', domainsOf(other))).verifications;
    expect(await codeOf(check(other.dashboard, other, held!.id))).toBe('409 domain_already_verified');
    clock.advance(340 * DAY);
    expect((await check(other.dashboard, other, held!.id)).verification.status).toBe('verified');
    txt.clear();
    clock.advance(366 * DAY);
    expect(await codeOf(publicByRef('shop.example.com'))).toBe('404 not_found');
    expect((await publicByRef(other.organization.address)).organization.domain).toBeNull();
  });
});

describe('DNS checks are rate limited (spec §8: 10 per minute)', () => {
  let service: TestService;
  let dns: ReturnType<typeof dns2.createServer>;

  beforeAll(async () => {
    dns = dns2.createServer({ udp: true, handle: (request, send) => void send(dns2.Packet.createResponseFromRequest(request)) });
    const addresses = await dns.listen({ udp: { port: 0, address: '127.0.0.1' } });
    service = await startTestService({ env: { DNS_SERVERS: `127.0.0.1:${addresses.udp!.port}`, RATE_LIMIT_SIGNIN_PER_MINUTE: '1000' } });
  });
  afterAll(async () => {
    await service?.destroy();
    await dns?.close();
  });

  it('answers the eleventh check of a minute with 429 rate_limited and retry-after', async () => {
    const d = await publishedDocument(service, []);
    const { verification } = await d.dashboard.request<{ verification: Verification }>('POST', `/v1/organizations/${d.organization.id}/domains`, { domain: 'limits.example.org' });
    const path = `/v1/organizations/${d.organization.id}/domains/${verification.id}/check`;
    // Windows are fixed minutes: one that turns over during the run admits at most ten more, never fewer.
    const answers = [];
    for (let i = 0; i < 21 && answers.at(-1)?.response.status !== 429; i++) answers.push(await d.dashboard.raw('POST', path));
    const statuses = answers.map((a) => a.response.status);
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    const limited = answers.find((a) => a.response.status === 429);
    if (!limited) throw new Error(`no 429 among ${statuses.join(', ')}`);
    expect(JSON.parse(limited.text).error.code).toBe('rate_limited');
    expect(Number(limited.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.response.headers.get('x-ratelimit-limit')).toBe('10');
  });
});
