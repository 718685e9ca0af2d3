import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { generateKeyPairSigner } from '@solana/kit';
import { ApiClient } from '../apps/cli/src/api-client';
import { signText } from '../apps/cli/src/operations';
import { dashboardFixture, envelopeCode, outcome, send, type DashboardFixture } from './support/raw-http';
import { startTestService, type TestService } from './support/test-service';

/** Raw HTTP/1.1 exchange (fetch cannot send some of these requests): status and body of the answer. */
function rawExchange(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('HTTP edge: request bodies, content types, limits of the request line and headers', () => {
  let service: TestService;
  let fixture: DashboardFixture;
  let port: number;

  beforeAll(async () => {
    service = await startTestService({ env: { RATE_LIMIT_SIGNIN_PER_MINUTE: '1000', RATE_LIMIT_GENERAL_PER_MINUTE: '10000' } });
    port = Number(new URL(service.baseUrl).port);
    fixture = await dashboardFixture(service);
  });
  afterAll(() => service.destroy());

  it('refuses deeply nested JSON with 400 before validation, and never stalls', async () => {
    // 10,000 levels used to overflow the validator's stack (500).
    const deep = await send(service.baseUrl, 'POST', '/v1/auth/verify', { body: `{"address":${nested(10_000)}}` });
    expect(outcome(deep)).toBe('400 invalid_request');
    expect((deep.json as { error: { message: string } }).error.message).toMatch(/nested deeper than 32/);
    // Millions of levels on the one route that takes megabytes: answered at once, not after a minute.
    const started = Date.now();
    const huge = await send(service.baseUrl, 'POST', `/v1/documents/${fixture.document.id}/drafts`, { body: nested(3_900_000), session: fixture.session });
    expect(outcome(huge)).toBe('400 invalid_request');
    expect(Date.now() - started).toBeLessThan(5_000);
    // 32 levels parse; the body is then refused for its shape, not its depth.
    const ok = await send(service.baseUrl, 'POST', '/v1/auth/challenge', { body: `{"address":${nested(31)}}` });
    expect(outcome(ok)).toBe('400 invalid_address');
    // Brackets inside strings do not count.
    const inString = await send(service.baseUrl, 'POST', '/v1/auth/challenge', { body: JSON.stringify({ address: '['.repeat(5000) }) });
    expect(outcome(inString)).toBe('400 invalid_address');
  });

  it('refuses a body that is not a JSON object where a request object is expected (400)', async () => {
    for (const body of ['[]', '[{}]', '"text"', '1', 'null', 'true']) {
      expect(outcome(await send(service.baseUrl, 'POST', '/v1/auth/challenge', { body }))).toBe('400 invalid_request');
      // Every key of a draft change is optional: an array must not pass for an empty change.
      expect(outcome(await send(service.baseUrl, 'PATCH', `/v1/drafts/${randomUUID()}`, { body, session: fixture.session }))).toBe('400 invalid_request');
    }
  });

  it('refuses prototype-poisoning keys of well-formed JSON with 400, naming the key', async () => {
    const cases: [string, string][] = [
      ['{"address":"x","__proto__":{"admin":true}}', '__proto__: unknown field'],
      ['{"constructor":{"prototype":{"admin":true}}}', 'constructor: unknown field'],
      ['{"a":[{"__proto__":{}}]}', 'a[0].__proto__: unknown field'],
    ];
    for (const [body, message] of cases) {
      const answer = await send(service.baseUrl, 'POST', '/v1/auth/challenge', { body });
      expect(outcome(answer)).toBe('400 invalid_request');
      expect((answer.json as { error: { message: string } }).error.message).toBe(message);
    }
  });

  it('gives each route the body limit it needs: 64 KiB, and for draft sources 2,000,000 characters however escaped (413 beyond)', async () => {
    const padding = 'x'.repeat(64 * 1024);
    expect(outcome(await send(service.baseUrl, 'POST', '/v1/auth/verify', { body: JSON.stringify({ address: padding }) }))).toBe('413 invalid_request');
    expect(outcome(await send(service.baseUrl, 'POST', '/v1/acceptance/challenges', { body: JSON.stringify({ signer: padding }) }))).toBe('413 invalid_request');
    // The largest source the spec allows (2,000,000 characters) fits.
    const source = `# Terms\n\n${'Lorem ipsum dolor sit amet. '.repeat(71_428)}`.slice(0, 2_000_000);
    const created = await send(service.baseUrl, 'POST', `/v1/documents/${fixture.document.id}/drafts`, {
      body: JSON.stringify({ title: 'Large', versionLabel: 'v1', source }),
      session: fixture.session,
    });
    expect(outcome(created)).toBe('200 ok');
    // Characters JSON must escape (6 bytes each: 12 MB), and emoji written in ASCII-only JSON (12 bytes each: 24 MB).
    const controls = await send(service.baseUrl, 'PATCH', `/v1/drafts/${(created.json as { draft: { id: string } }).draft.id}`, {
      body: JSON.stringify({ source: '\u0001'.repeat(2_000_000) }),
      session: fixture.session,
    });
    expect(outcome(controls)).toBe('200 ok');
    const asciiOnly = `{"title":"Emoji","versionLabel":"v1","source":"${'\\ud83d\\ude00'.repeat(2_000_000)}","changeSummary":"${'\\ud83d\\ude00'.repeat(4000)}"}`;
    expect(asciiOnly.length).toBeGreaterThan(24_000_000);
    const emoji = await send(service.baseUrl, 'POST', `/v1/documents/${fixture.document.id}/drafts`, { body: asciiOnly, session: fixture.session });
    expect(outcome(emoji)).toBe('200 ok');
    const tooLarge = await send(service.baseUrl, 'POST', `/v1/documents/${fixture.document.id}/drafts`, {
      body: JSON.stringify({ title: 'Too large', versionLabel: 'v1', source: 'x'.repeat(24 * 1024 * 1024) }),
      session: fixture.session,
    });
    expect(outcome(tooLarge)).toBe('413 invalid_request');
    // Without a live session (and, for a write, its origin and CSRF token) a draft route refuses before reading the
    // body: a body over the limit (413 once read) and a malformed one (400 once parsed) both get 403.
    const draftId = (created.json as { draft: { id: string } }).draft.id;
    const oversized = 'x'.repeat(25 * 1024 * 1024);
    const own = { origin: new URL(service.baseUrl).origin };
    const refusedBeforeBody: [string, Record<string, string>][] = [
      ['no cookie', {}],
      ['only the CSRF cookie', { cookie: 'svc_csrf=x' }],
      ['a session cookie naming no session', { cookie: 'svc_session=bogus; svc_csrf=x', 'x-csrf-token': 'x', ...own }],
      ['a live session without its CSRF token', { cookie: `svc_session=${fixture.session.session}; svc_csrf=${fixture.session.csrf}`, ...own }],
      ['a live session from another origin', { cookie: `svc_session=${fixture.session.session}; svc_csrf=${fixture.session.csrf}`, 'x-csrf-token': fixture.session.csrf, origin: 'https://elsewhere.example' }],
    ];
    for (const [why, headers] of refusedBeforeBody) {
      const large = await send(service.baseUrl, 'POST', `/v1/documents/${fixture.document.id}/drafts`, { body: oversized, headers });
      expect([why, outcome(large)]).toEqual([why, '403 forbidden']);
      const malformed = await send(service.baseUrl, 'PATCH', `/v1/drafts/${draftId}`, { body: '{"title":', headers });
      expect([why, outcome(malformed)]).toEqual([why, '403 forbidden']);
    }
    // The same requests with the session's headers are read: the body is then judged (413, 400).
    expect(outcome(await send(service.baseUrl, 'POST', `/v1/documents/${fixture.document.id}/drafts`, { body: oversized, session: fixture.session }))).toBe('413 invalid_request');
    expect(outcome(await send(service.baseUrl, 'PATCH', `/v1/drafts/${draftId}`, { body: '{"title":', session: fixture.session }))).toBe('400 invalid_request');
    // One character more than 2,000,000 fits the body but not the field.
    const tooLong = await send(service.baseUrl, 'POST', `/v1/documents/${fixture.document.id}/drafts`, {
      body: JSON.stringify({ title: 'Too long', versionLabel: 'v1', source: '😀'.repeat(2_000_001) }),
      session: fixture.session,
    });
    expect(outcome(tooLong)).toBe('400 invalid_request');
  });

  it('accepts only application/json (UTF-8) bodies: forms, text and other types get 415', async () => {
    const wallet = await generateKeyPairSigner();
    const json = JSON.stringify({ address: wallet.address });
    const challenge = (contentType: string | null, body = json) => send(service.baseUrl, 'POST', '/v1/auth/challenge', { body, contentType });
    expect(outcome(await challenge('application/json'))).toBe('200 ok');
    expect(outcome(await challenge('application/json; charset=utf-8'))).toBe('200 ok');
    expect(outcome(await challenge('Application/JSON; charset="UTF-8"'))).toBe('200 ok');
    expect(outcome(await challenge('application/x-www-form-urlencoded', `address=${wallet.address}`))).toBe('415 invalid_request');
    expect(outcome(await challenge('text/plain'))).toBe('415 invalid_request');
    expect(outcome(await challenge('multipart/form-data; boundary=x', '--x--'))).toBe('415 invalid_request');
    expect(outcome(await challenge('application/json; charset=latin1'))).toBe('415 invalid_request');
    expect(outcome(await challenge('application/jsonx'))).toBe('415 invalid_request');
    expect(outcome(await challenge(null))).toBe('415 invalid_request');
    // Dashboard writes too, and nothing is written.
    const draft = await send(service.baseUrl, 'POST', `/v1/documents/${fixture.document.id}/drafts`, {
      body: 'title=T&versionLabel=v1&source=x',
      contentType: 'application/x-www-form-urlencoded',
      session: fixture.session,
    });
    expect(outcome(draft)).toBe('415 invalid_request');
    // Malformed JSON stays 400.
    expect(outcome(await challenge('application/json', '{"address":'))).toBe('400 invalid_request');
  });

  it('answers a write naming a content type other than JSON 415 whatever the type, with or without a body', async () => {
    const types = ['text/plain', 'text/plain; charset=utf-8', 'TEXT/PLAIN', 'application/xml', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/jsonx'];
    for (const contentType of types) {
      for (const body of [undefined, '']) {
        const request = { headers: { 'content-type': contentType }, ...(body === undefined ? {} : { body, contentType }) };
        const routes = [
          ['POST', '/v1/auth/challenge'],
          ['POST', '/v1/auth/logout'],
          ['PATCH', `/v1/drafts/${randomUUID()}`],
        ] as const;
        for (const [method, route] of routes) {
          const answer = await send(service.baseUrl, method, route, request);
          expect([contentType, body, method, route, outcome(answer)]).toEqual([contentType, body, method, route, '415 invalid_request']);
        }
      }
    }
    // JSON without a body is no body: the request is judged by its route, as without a content type.
    expect(outcome(await send(service.baseUrl, 'POST', '/v1/auth/challenge', { headers: { 'content-type': 'application/json' } }))).toBe('400 invalid_address');
    expect(outcome(await send(service.baseUrl, 'POST', '/v1/auth/challenge'))).toBe('400 invalid_address');
    // Reads take no body: a content type named on a GET changes nothing.
    expect(outcome(await send(service.baseUrl, 'GET', '/v1/network', { headers: { 'content-type': 'text/plain' } }))).toBe('200 ok');
  });

  it('answers an over-long path parameter with 414 and over-large headers with 431, in the envelope', async () => {
    const longParam = await send(service.baseUrl, 'GET', `/v1/public/versions/${'a'.repeat(300)}`);
    expect(outcome(longParam)).toBe('414 invalid_request');
    const longUrl = await rawExchange(port, `/api/v1/public/versions/${'a'.repeat(20_000)}`, {});
    expect(longUrl.status).toBe(431);
    expect(envelopeCode({ status: 431, headers: new Headers(), text: longUrl.body, json: JSON.parse(longUrl.body) })).toBe('invalid_request');
    const bigHeader = await rawExchange(port, '/api/health', { 'x-padding': 'y'.repeat(20_000) });
    expect(bigHeader.status).toBe(431);
    expect(JSON.parse(bigHeader.body)).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });
    // The server goes on serving.
    expect((await send(service.baseUrl, 'GET', '/health')).status).toBe(200);
  });

  it('refuses a sign-in completed from another site (Origin checked like dashboard writes)', async () => {
    const wallet = await generateKeyPairSigner();
    const client = new ApiClient(service.baseUrl);
    const challenge = await client.request<{ message: string }>('POST', '/v1/auth/challenge', { address: wallet.address });
    const body = JSON.stringify({ address: wallet.address, signedMessage: challenge.message, signature: await signText(wallet, challenge.message) });
    const foreign = await send(service.baseUrl, 'POST', '/v1/auth/verify', { body, headers: { origin: 'https://attacker.example' } });
    expect(outcome(foreign)).toBe('403 forbidden');
    expect(foreign.headers.getSetCookie()).toEqual([]);
    expect(outcome(await send(service.baseUrl, 'POST', '/v1/auth/verify', { body, headers: { origin: 'null' } }))).toBe('403 forbidden');
    // The nonce was not used up by the refused attempts: the app's own origin signs in.
    const own = await send(service.baseUrl, 'POST', '/v1/auth/verify', { body, headers: { origin: new URL(service.baseUrl).origin } });
    expect(outcome(own)).toBe('200 ok');
    expect(own.headers.getSetCookie().join('\n')).toMatch(/svc_session=.*\n?.*svc_csrf=|svc_csrf=.*\n?.*svc_session=/s);
  });
});
