import { connect } from 'node:net';
import { generateKeyPairSigner } from '@solana/kit';
import { AdjustableClock } from '@svc/application';
import { EVENT_STORE, type EventStore } from '@svc/event-store';
import { ApiClient } from '../apps/cli/src/api-client';
import { signIn, signText } from '../apps/cli/src/operations';
import { dashboardFixture, envelopeCode, outcome, send, type DashboardFixture, type RawAnswer } from './support/raw-http';
import { startTestService, type TestService } from './support/test-service';

/**
 * `Idempotency-Key` on authenticated writes over real HTTP (spec §7 rule 4, §8; docs/api.md "Idempotency"):
 * replay, reuse for another request, key format, caller scope, stored refusals, and concurrent requests.
 */
/** An API key of the fixture's organization with every scope, created through the dashboard. */
async function createApiKey(service: TestService, fixture: DashboardFixture): Promise<string> {
  const created = await send(service.baseUrl, 'POST', `/v1/organizations/${fixture.organization.id}/api-keys`, {
    body: JSON.stringify({ name: 'idempotency', scopes: ['acceptances:write', 'acceptances:read', 'documents:read'] }),
    session: fixture.session,
  });
  return (created.json as { key: string }).key;
}

describe('Idempotency-Key on authenticated writes', () => {
  let service: TestService;
  let fixture: DashboardFixture;
  let events: EventStore;
  const drafts = () => `/v1/documents/${fixture.document.id}/drafts`;
  const draftBody = (label: string) => JSON.stringify({ title: 'Terms of Service', versionLabel: label, source: `# Terms ${label}\n` });
  const withKey = (key: string, method: string, path: string, body?: string, session = fixture.session): Promise<RawAnswer> =>
    send(service.baseUrl, method, path, { body, session, headers: { 'idempotency-key': key } });

  beforeAll(async () => {
    service = await startTestService({ env: { RATE_LIMIT_GENERAL_PER_MINUTE: '100000', RATE_LIMIT_SIGNIN_PER_MINUTE: '1000' } });
    fixture = await dashboardFixture(service);
    events = service.app.get<EventStore>(EVENT_STORE);
  });
  afterAll(() => service.destroy());

  it('replays the stored response of a key with idempotent-replayed: true, and runs the request once', async () => {
    const first = await withKey('create-draft-1', 'POST', drafts(), draftBody('a'));
    expect(outcome(first)).toBe('200 ok');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const head = await events.headPosition();
    // Key order and spacing of the body do not make it another request.
    const again = await withKey('create-draft-1', 'POST', drafts(), JSON.stringify({ source: '# Terms a\n', versionLabel: 'a', title: 'Terms of Service' }));
    expect(again.status).toBe(first.status);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.text).toBe(first.text);
    expect(await events.headPosition()).toBe(head);
    // Without the key, the same request is a new one.
    const fresh = await send(service.baseUrl, 'POST', drafts(), { body: draftBody('a'), session: fixture.session });
    expect((fresh.json as { draft: { id: string } }).draft.id).not.toBe((first.json as { draft: { id: string } }).draft.id);
  });

  it('refuses a key reused for another body, route or path parameter with 422 idempotency_key_reused', async () => {
    const created = await withKey('reuse-1', 'POST', drafts(), draftBody('b'));
    const id = (created.json as { draft: { id: string } }).draft.id;
    const head = await events.headPosition();
    expect(outcome(await withKey('reuse-1', 'POST', drafts(), draftBody('c')))).toBe('422 idempotency_key_reused');
    expect(outcome(await withKey('reuse-1', 'PATCH', `/v1/drafts/${id}`, JSON.stringify({ title: 'Other' })))).toBe('422 idempotency_key_reused');
    expect(outcome(await withKey('reuse-1', 'POST', `/v1/drafts/${id}/abandon`))).toBe('422 idempotency_key_reused');
    expect(await events.headPosition()).toBe(head);
  });

  it('every authenticated write of the OpenAPI description takes the key (a malformed one is refused before anything runs)', async () => {
    const described = (await (await fetch(`${service.baseUrl}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
    };
    const key = await createApiKey(service, fixture);
    const head = await events.headPosition();
    const checked: string[] = [];
    for (const [route, operations] of Object.entries(described.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
        if (!['post', 'patch', 'put', 'delete'].includes(method) || schemes.length === 0) continue;
        const path = route.replace(/\{orgId\}/g, fixture.organization.id).replace(/\{[A-Za-z]+\}/g, '0b8e0ab6-2f39-4d5c-9a59-6a3fb3c2e0d1');
        const headers: Record<string, string> = { 'idempotency-key': 'k'.repeat(256) };
        if (schemes.includes('bearer')) headers.authorization = `Bearer ${key}`;
        const answer = await send(service.baseUrl, method.toUpperCase(), path, { body: '{}', session: schemes.includes('bearer') ? undefined : fixture.session, headers });
        expect([method, route, outcome(answer)]).toEqual([method, route, '400 invalid_idempotency_key']);
        checked.push(`${method} ${route}`);
      }
    }
    expect(checked.length).toBeGreaterThanOrEqual(12);
    expect(checked).toEqual(expect.arrayContaining(['post /v1/acceptance-sessions', 'post /v1/organizations/{orgId}/api-keys', 'patch /v1/organizations/{orgId}/settings']));
    expect(await events.headPosition()).toBe(head);
  });

  it('refuses a key that is not 1 to 255 printable ASCII characters with 400 invalid_idempotency_key, before anything runs', async () => {
    const head = await events.headPosition();
    let checked = 0;
    for (const key of ['', 'k'.repeat(256), 'tab\there', 'caf\u00e9']) {
      const headers = { 'idempotency-key': key };
      const answer = await send(service.baseUrl, 'POST', drafts(), { body: draftBody('d'), session: fixture.session, headers }).catch((err: Error) => err);
      // fetch itself refuses some header values (not ISO-8859-1): those never reach a server.
      if (answer instanceof Error) continue;
      expect([key.length, outcome(answer)]).toEqual([key.length, '400 invalid_idempotency_key']);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(3);
    expect(await events.headPosition()).toBe(head);
    expect(outcome(await withKey('k'.repeat(255), 'POST', drafts(), draftBody('d')))).toBe('200 ok');
    expect(outcome(await withKey(' !~ key with spaces ~! ', 'POST', drafts(), draftBody('e')))).toBe('200 ok');
  });

  it('ignores the header on public routes', async () => {
    const answer = await send(service.baseUrl, 'POST', '/v1/acceptance/challenges', { body: '{}', headers: { 'idempotency-key': '', origin: 'https://shop.example' } });
    expect(envelopeCode(answer)).not.toBe('invalid_idempotency_key');
    expect(answer.headers.get('idempotent-replayed')).toBeNull();
  });

  it('scopes keys to the caller: another wallet with the same key runs its own request', async () => {
    const created = await withKey('shared-key', 'POST', drafts(), draftBody('f'));
    const other = await signIn(new ApiClient(service.baseUrl), await generateKeyPairSigner());
    // Another wallet sees the document as not found: its answer is its own, not the first caller's replay.
    const theirs = await withKey('shared-key', 'POST', drafts(), draftBody('f'), other);
    expect(outcome(theirs)).toBe('404 not_found');
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(created.status).toBe(200);
  });

  it('logout and re-authentication ignore the key: each session is signed out by its own request, whatever key it sends', async () => {
    const second = await signIn(new ApiClient(service.baseUrl), fixture.owner);
    const third = await signIn(new ApiClient(service.baseUrl), fixture.owner);
    for (const session of [second, third]) {
      const answer = await withKey('logout-1', 'POST', '/v1/auth/logout', undefined, session);
      expect([outcome(answer), answer.headers.get('idempotent-replayed')]).toEqual(['200 ok', null]);
      expect(outcome(await send(service.baseUrl, 'GET', '/v1/auth/me', { session }))).toBe('403 forbidden');
      // Signing out again (a retry after a lost answer) answers as the first time, and clears the cookies again.
      const again = await withKey('logout-1', 'POST', '/v1/auth/logout', undefined, session);
      expect([outcome(again), again.json]).toEqual(['200 ok', { signedOut: true }]);
      expect(again.headers.getSetCookie().join('\n')).toMatch(/svc_session=;/);
      // It still needs the session's CSRF token and origin, and a cookie naming a session.
      const noCsrf = await send(service.baseUrl, 'POST', '/v1/auth/logout', { headers: { cookie: `svc_session=${session.session}; svc_csrf=${session.csrf}`, origin: new URL(service.baseUrl).origin } });
      expect(outcome(noCsrf)).toBe('403 forbidden');
    }
    expect(outcome(await send(service.baseUrl, 'POST', '/v1/auth/logout', { session: { ...fixture.session, session: 'not-a-session' } }))).toBe('403 forbidden');
    expect(outcome(await send(service.baseUrl, 'GET', '/v1/auth/me', { session: fixture.session }))).toBe('200 ok');
  });

  it('a re-authentication challenge ignores the key too: each session gets its own nonce and completes with it', async () => {
    const sessions = [await signIn(new ApiClient(service.baseUrl), fixture.owner), await signIn(new ApiClient(service.baseUrl), fixture.owner)];
    const nonces: string[] = [];
    for (const session of sessions) {
      const answer = await withKey('reauth-challenge-1', 'POST', '/v1/auth/reauthenticate/challenge', undefined, session);
      expect([outcome(answer), answer.headers.get('idempotent-replayed')]).toEqual(['200 ok', null]);
      const challenge = answer.json as { message: string; nonce: string };
      nonces.push(challenge.nonce);
      const signature = await signText(fixture.owner, challenge.message);
      const completed = await send(service.baseUrl, 'POST', '/v1/auth/reauthenticate', { body: JSON.stringify({ signedMessage: challenge.message, signature }), session });
      expect(outcome(completed)).toBe('200 ok');
    }
    expect(new Set(nonces).size).toBe(2);
  });

  it('answers to signed-in callers and writes are not to be cached (no-store); public reads set their own', async () => {
    const created = await send(service.baseUrl, 'POST', `/v1/organizations/${fixture.organization.id}/api-keys`, { body: JSON.stringify({ name: 'cache', scopes: ['documents:read'] }), session: fixture.session });
    expect([outcome(created), created.headers.get('cache-control')]).toEqual(['200 ok', 'no-store']);
    expect((await send(service.baseUrl, 'GET', `/v1/organizations/${fixture.organization.id}`, { session: fixture.session })).headers.get('cache-control')).toBe('no-store');
    const challenge = await send(service.baseUrl, 'POST', '/v1/auth/challenge', { body: JSON.stringify({ address: fixture.owner.address }) });
    expect(challenge.headers.get('cache-control')).toBe('no-store');
    expect((await send(service.baseUrl, 'GET', '/v1/network')).headers.get('cache-control')).not.toBe('no-store');
  });

  it('stores refusals (4xx) too: a replay answers the same refusal', async () => {
    const created = await withKey('to-abandon', 'POST', drafts(), draftBody('g'));
    const id = (created.json as { draft: { id: string } }).draft.id;
    expect(outcome(await send(service.baseUrl, 'POST', `/v1/drafts/${id}/abandon`, { session: fixture.session }))).toBe('200 ok');
    const refused = await withKey('edit-abandoned', 'PATCH', `/v1/drafts/${id}`, JSON.stringify({ title: 'Edited' }));
    expect(outcome(refused)).toBe('409 draft_closed');
    const replay = await withKey('edit-abandoned', 'PATCH', `/v1/drafts/${id}`, JSON.stringify({ title: 'Edited' }));
    expect([outcome(replay), replay.headers.get('idempotent-replayed'), replay.text]).toEqual(['409 draft_closed', 'true', refused.text]);
  });

  it('takes a UUID in the path in either case, and no body, null or {}, as the same request', async () => {
    const created = await withKey('case-1', 'POST', drafts(), draftBody('i'));
    const id = (created.json as { draft: { id: string } }).draft.id;
    const upper = await withKey('case-1', 'POST', `/v1/documents/${fixture.document.id.toUpperCase()}/drafts`, draftBody('i'));
    expect([outcome(upper), upper.headers.get('idempotent-replayed'), upper.text]).toEqual(['200 ok', 'true', created.text]);
    const abandoned = await withKey('empty-1', 'POST', `/v1/drafts/${id}/abandon`);
    expect(outcome(abandoned)).toBe('200 ok');
    for (const body of ['{}', 'null']) {
      const again = await withKey('empty-1', 'POST', `/v1/drafts/${id}/abandon`, body);
      expect([body, outcome(again), again.headers.get('idempotent-replayed')]).toEqual([body, '200 ok', 'true']);
    }
  });

  it('refuses the header sent twice with 400 invalid_idempotency_key rather than reading both as one key', async () => {
    const cookie = `svc_session=${fixture.session.session}; svc_csrf=${fixture.session.csrf}`;
    const body = draftBody('j');
    const { host, port } = new URL(service.baseUrl);
    // Raw HTTP: fetch joins repeated headers before they leave.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), host.split(':')[0]!, () => {
        socket.end(
          `POST /api${drafts()} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
            `Cookie: ${cookie}\r\nOrigin: ${new URL(service.baseUrl).origin}\r\nx-csrf-token: ${fixture.session.csrf}\r\n` +
            `Idempotency-Key: dup-1\r\nIdempotency-Key: dup-2\r\nConnection: close\r\n\r\n${body}`,
        );
      });
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('"code":"invalid_idempotency_key"');
  });

  it('runs one of three concurrent requests with one key; the others wait for it and replays its response', async () => {
    const created = await withKey('to-edit', 'POST', drafts(), draftBody('h'));
    const id = (created.json as { draft: { id: string } }).draft.id;
    const head = await events.headPosition();
    const edit = JSON.stringify({ title: 'Edited once', changeSummary: 'concurrent retry' });
    const answers = await Promise.all([1, 2, 3].map(() => withKey('concurrent-edit', 'PATCH', `/v1/drafts/${id}`, edit)));
    expect(answers.map(outcome)).toEqual(['200 ok', '200 ok', '200 ok']);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(2);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    // One edit, one event.
    expect(await events.headPosition()).toBe(head + 1n);
  });
});

describe('Idempotency-Key and the fresh-signature window', () => {
  const clock = new AdjustableClock();
  let service: TestService;
  let fixture: DashboardFixture;
  beforeAll(async () => {
    service = await startTestService({ clock, env: { RATE_LIMIT_SIGNIN_PER_MINUTE: '1000' } });
    fixture = await dashboardFixture(service);
  });
  afterAll(() => service.destroy());

  it('does not store 403 reauthentication_required: after re-authenticating, the same key makes the change', async () => {
    const settings = `/v1/organizations/${fixture.organization.id}/settings`;
    const change = JSON.stringify({ requireAcceptanceSessions: true });
    const patch = () => send(service.baseUrl, 'PATCH', settings, { body: change, session: fixture.session, headers: { 'idempotency-key': 'settings-1' } });
    clock.advance(11 * 60);
    expect(outcome(await patch())).toBe('403 reauthentication_required');
    const dashboard = new ApiClient(service.baseUrl).useSession(fixture.session);
    const challenge = await dashboard.request<{ message: string }>('POST', '/v1/auth/reauthenticate/challenge');
    await dashboard.request('POST', '/v1/auth/reauthenticate', { signedMessage: challenge.message, signature: await signText(fixture.owner, challenge.message) });
    const done = await patch();
    expect([outcome(done), done.headers.get('idempotent-replayed')]).toEqual(['200 ok', null]);
    expect((done.json as { organization: { settings: { requireAcceptanceSessions: boolean } } }).organization.settings.requireAcceptanceSessions).toBe(true);
    // That answer is the one stored now.
    const replay = await patch();
    expect([outcome(replay), replay.headers.get('idempotent-replayed'), replay.text]).toEqual(['200 ok', 'true', done.text]);
  });
});
