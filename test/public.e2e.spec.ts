import { createHash } from 'node:crypto';
import { isSolanaChain } from '@solana/wallet-standard-chains';
import { ApiClient } from '../apps/cli/src/api-client';
import { publishedDocument, termsOfService, type PublishedDocument } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';

describe('service endpoints and public document reads', () => {
  let service: TestService;
  let client: ApiClient;
  let doc: PublishedDocument;

  beforeAll(async () => {
    service = await startTestService();
    client = new ApiClient(service.baseUrl);
    doc = await publishedDocument(service, [1, 2]);
  });
  afterAll(() => service.destroy());

  it('reports health, readiness and the network, with the ledger JSON-RPC among the public RPC URLs', async () => {
    expect(await client.request('GET', '/health')).toEqual({ status: 'ok' });
    expect(await client.request('GET', '/ready')).toEqual({
      status: 'ready',
      components: { eventStore: 'up', eventLog: 'up', readStore: 'up', ledger: 'up', projections: 'up', processors: 'up' },
      // The check of the whole log made at start-up may still be running on a slow machine.
      eventLogCheck: { state: expect.stringMatching(/^(running|passed)$/), checked: expect.any(Number), through: expect.stringMatching(/^-?\d+$/) },
      eventLogFaults: [],
      projectionFaults: [],
      processorFaults: [],
      // The ledger is up: nothing to explain.
      ledgerProblem: null,
      // This process runs the projections and processors (the embedded default).
      runner: { state: 'self', pid: process.pid, beatAt: null, ageSeconds: null },
    });
    const network = await client.request<Record<string, unknown>>('GET', '/v1/network');
    expect(network).toMatchObject({
      cluster: 'localnet',
      programId: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
      publicRpcUrls: [service.rpcUrl],
      hostedAcceptDomain: new URL(service.baseUrl).host,
    });
    expect(network.chainId).toMatch(/^solana:[1-9A-HJ-NP-Za-km-z]{32}$/);
    const rpc = await fetch(service.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getGenesisHash' }) });
    const genesis = ((await rpc.json()) as { result: string }).result;
    expect(network.chainId).toBe(`solana:${genesis.slice(0, 32)}`);
    // A chain wallets list (Wallet Standard), so that a page can filter the discovered wallets by it.
    expect(network.walletChain).toBe('solana:localnet');
    expect(isSolanaChain(network.walletChain as `${string}:${string}`)).toBe(true);
  });

  it('serves an OpenAPI 3 description of version 1.0.0 naming the endpoints', async () => {
    const doc = await client.request<{ openapi: string; info: { version: string }; paths: Record<string, unknown> }>('GET', '/v1/openapi.json');
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.version).toBe('1.0.0');
    for (const p of ['/v1/network', '/v1/acceptance/challenges', '/v1/acceptance/challenges/{challengeId}/submit', '/v1/public/acceptances/{acceptanceId}/receipt', '/v1/publications/confirm', '/v1/auth/verify']) {
      expect(Object.keys(doc.paths)).toContain(p);
    }
  });

  it('serves the document, its current version and history by organization and slug', async () => {
    const res = await client.request<{ organization: string; document: { address: string; slug: string }; version: { number: number; address: string; fingerprint: string }; versions: unknown[]; contentHash: string; gatePolicy: null }>(
      'GET',
      `/v1/public/organizations/${doc.organization.address}/documents/terms-of-service`,
    );
    expect(res.organization).toBe(doc.organization.address);
    expect(res.document.address).toBe(doc.document.address);
    expect(res.version.number).toBe(2);
    expect(res.version.address).toBe(doc.versions[1].address);
    expect(res.versions).toHaveLength(2);
    expect(res.contentHash).toBe(doc.versions[1].contentHash);
    const one = await client.request<{ version: { number: number }; latest: boolean }>('GET', `/v1/public/versions/${doc.versions[0].address}`);
    expect(one.version.number).toBe(1);
    expect(one.latest).toBe(false);
  });

  it('serves the canonical bytes by hash, whose SHA-256 is the hash, and their parsed blocks', async () => {
    const hash = doc.versions[0].contentHash;
    const res = await fetch(`${service.baseUrl}/api/v1/public/content/${hash}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/markdown/);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(hash);
    expect(bytes.toString('utf8')).toContain('GitHub Terms of Service');
    expect(bytes.toString('utf8').length).toBeGreaterThan(termsOfService(1).length * 0.9);
    expect(res.headers.get('etag')).toBe(`"${hash}"`);
    // Revalidation (RFC 9110 §13.1.2): the hash named in If-None-Match, alone or in a list, weak or strong, is 304
    // without a body; another tag is the bytes again.
    for (const tag of [`"${hash}"`, `W/"${hash}"`, `"${'1'.repeat(64)}", "${hash}"`, '*']) {
      const again = await fetch(`${service.baseUrl}/api/v1/public/content/${hash}`, { headers: { 'if-none-match': tag } });
      expect([tag, again.status, again.headers.get('etag'), (await again.arrayBuffer()).byteLength]).toEqual([tag, 304, `"${hash}"`, 0]);
    }
    const head = await fetch(`${service.baseUrl}/api/v1/public/content/${hash}`, { method: 'HEAD', headers: { 'if-none-match': `"${hash}"` } });
    expect([head.status, head.headers.get('content-length')]).toEqual([304, String(bytes.length)]);
    const other = await fetch(`${service.baseUrl}/api/v1/public/content/${hash}`, { headers: { 'if-none-match': `"${'1'.repeat(64)}"` } });
    expect([other.status, Buffer.from(await other.arrayBuffer()).equals(bytes)]).toEqual([200, true]);

    const parsed = await client.request<{ blocks: { type: string; level?: number; text?: string }[] }>('GET', `/v1/public/content/${hash}/parsed`);
    const headings = parsed.blocks.filter((b) => b.type === 'heading');
    expect(headings.length).toBeGreaterThan(5);
    expect(parsed.blocks.some((b) => b.type === 'table')).toBe(true);
    expect(parsed.blocks.some((b) => b.type === 'list')).toBe(true);
    const parsedRes = await fetch(`${service.baseUrl}/api/v1/public/content/${hash}/parsed`);
    expect([parsedRes.status, parsedRes.headers.get('content-type'), parsedRes.headers.get('etag')]).toEqual([200, 'application/json; charset=utf-8', `"${hash}.blocks-1"`]);
    expect(await parsedRes.json()).toEqual(parsed);
    const parsedAgain = await fetch(`${service.baseUrl}/api/v1/public/content/${hash}/parsed`, { headers: { 'if-none-match': `"${hash}.blocks-1"` } });
    expect([parsedAgain.status, (await parsedAgain.arrayBuffer()).byteLength]).toEqual([304, 0]);
    const parsedHead = await fetch(`${service.baseUrl}/api/v1/public/content/${hash}/parsed`, { method: 'HEAD', headers: { 'if-none-match': `"${hash}.blocks-1"` } });
    expect([parsedHead.status, parsedHead.headers.get('content-length')]).toEqual([304, String(Buffer.byteLength(JSON.stringify(await (await fetch(`${service.baseUrl}/api/v1/public/content/${hash}/parsed`)).json())))]);

    const missing = await fetch(`${service.baseUrl}/api/v1/public/content/${'0'.repeat(64)}`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const bad = await fetch(`${service.baseUrl}/api/v1/public/content/XYZ`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
  });

  it('answers unknown routes and bad addresses with the error envelope', async () => {
    const unknown = await fetch(`${service.baseUrl}/api/v1/nothing-here`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    const bad = await fetch(`${service.baseUrl}/api/v1/public/versions/0OIl`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_address');
    const malformed = await fetch(`${service.baseUrl}/api/v1/acceptance/challenges`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://a.example' }, body: '{"organization":' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
  });

  it('puts the rate-limit headers on every response', async () => {
    const res = await fetch(`${service.baseUrl}/api/v1/network`);
    expect(Number(res.headers.get('x-ratelimit-limit'))).toBe(300);
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(300);
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });
});

describe('rate limits', () => {
  let service: TestService;
  afterAll(() => service?.destroy());

  it('answers 429 rate_limited with retry-after once a bucket is spent; buckets are separate', async () => {
    service = await startTestService({ env: { RATE_LIMIT_GENERAL_PER_MINUTE: '5', RATE_LIMIT_ACCEPTANCE_PER_MINUTE: '2', RATE_LIMIT_SIGNIN_PER_MINUTE: '3' } });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await fetch(`${service.baseUrl}/api/health`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = await fetch(`${service.baseUrl}/api/v1/network`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });

    const post = (p: string) => fetch(`${service.baseUrl}/api${p}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://a.example' }, body: '{}' });
    // Each bucket's refusal is the spec's (§7 rule 2): 429 rate_limited with retry-after in seconds.
    const spent = async (res: Response) => ({ status: res.status, retryAfter: Number(res.headers.get('retry-after')), code: ((await res.json()) as { error: { code: string } }).error.code });
    const acceptance = [await post('/v1/acceptance/challenges'), await post('/v1/acceptance/challenges'), await post('/v1/acceptance/challenges')];
    expect(acceptance.map((r) => r.status)).toEqual([400, 400, 429]);
    expect(await spent(acceptance[2])).toEqual({ status: 429, retryAfter: expect.any(Number), code: 'rate_limited' });
    expect(Number(acceptance[2].headers.get('retry-after'))).toBeGreaterThan(0);
    const signin = [await post('/v1/auth/challenge'), await post('/v1/auth/challenge'), await post('/v1/auth/challenge'), await post('/v1/auth/challenge')];
    expect(signin.map((r) => r.status)).toEqual([400, 400, 400, 429]);
    const signinSpent = await spent(signin[3]);
    expect(signinSpent).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(signinSpent.retryAfter).toBeGreaterThan(0);
  });

  it('takes the client address from x-forwarded-for only behind a trusted proxy', async () => {
    const trusted = await startTestService({ env: { RATE_LIMIT_GENERAL_PER_MINUTE: '2', TRUST_PROXY: '127.0.0.1' } });
    try {
      const from = (ip: string) => fetch(`${trusted.baseUrl}/api/health`, { headers: { 'x-forwarded-for': ip } }).then((r) => r.status);
      expect([await from('203.0.113.1'), await from('203.0.113.1'), await from('203.0.113.1')]).toEqual([200, 200, 429]);
      const third = await fetch(`${trusted.baseUrl}/api/health`, { headers: { 'x-forwarded-for': '203.0.113.1' } });
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await third.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      expect(await from('203.0.113.2')).toBe(200);
    } finally {
      await trusted.destroy();
    }
  });
});
