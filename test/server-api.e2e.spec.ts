/**
 * The organization's server integration (spec §4.5, §5, §2.8): API keys, acceptance sessions, acceptance search
 * with cursors, the latest-version read, and the settings that govern signing — over real HTTP against the
 * embedded stores and ledger.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { AdjustableClock } from '@svc/application';
import { ApiClient } from '../apps/cli/src/api-client';
import { acceptAsWallet, signIn, signText } from '../apps/cli/src/operations';
import { apiMain } from '../apps/cli/src/paths';
import { startService, type RunningService } from '../apps/cli/src/service-process';
import { filesUnder } from './support/data-files';
import { codeOf, issueChallenge, ORIGIN, submitSigned, type IssuedChallenge } from './support/durability';
import { publishedDocument, type PublishedDocument } from './support/fixtures';
import { startTestService, tempDataDir, type TestService } from './support/test-service';

const GENEROUS_LIMITS = { RATE_LIMIT_SIGNIN_PER_MINUTE: '1000', RATE_LIMIT_ACCEPTANCE_PER_MINUTE: '100000', RATE_LIMIT_GENERAL_PER_MINUTE: '100000' };

interface CreatedKey {
  apiKey: { id: string; name: string; scopes: string[]; prefix: string; status: string; expiresAt: string | null; revokedAt: string | null };
  key: string;
}

interface AcceptancePage {
  acceptances: { acceptanceId: string; signer: string; versionAddress: string; externalUserRef: string | null; blockTime: string; commitment: string }[];
  nextCursor: string | null;
}

function createKey(doc: PublishedDocument, scopes: string[], extra: Record<string, unknown> = {}): Promise<CreatedKey> {
  return doc.dashboard.request<CreatedKey>('POST', `/v1/organizations/${doc.organization.id}/api-keys`, { name: 'Checkout server', scopes, ...extra });
}

/** A client of the organization's server: every request carries `Authorization: Bearer <key>`. */
function server(service: Pick<TestService, 'baseUrl'>, key: string) {
  const client = new ApiClient(service.baseUrl);
  return {
    request: <T = Record<string, unknown>>(method: string, route: string, body?: unknown) => client.request<T>(method, route, body, { headers: { authorization: `Bearer ${key}` } }),
    raw: (method: string, route: string, body: unknown, headers: Record<string, string>) => client.raw(method, route, body, { headers: { ...headers, authorization: `Bearer ${key}` } }),
  };
}

/** Accepts with a session token: challenge with `sessionToken`, sign, submit. */
async function acceptWithSession(client: ApiClient, doc: PublishedDocument, signer: KeyPairSigner, sessionToken: string) {
  const challenge = await client.request<IssuedChallenge>(
    'POST',
    '/v1/acceptance/challenges',
    { organization: doc.organization.address, document: doc.document.address, signer: signer.address, sessionToken },
    { origin: ORIGIN },
  );
  return submitSigned(client, challenge, signer);
}

describe('API keys, sessions and acceptance search', () => {
  let service: TestService;
  let client: ApiClient;
  let doc: PublishedDocument;
  let other: PublishedDocument;

  beforeAll(async () => {
    service = await startTestService({ env: GENEROUS_LIMITS });
    client = new ApiClient(service.baseUrl);
    [doc, other] = await Promise.all([publishedDocument(service, [1]), publishedDocument(service, [1], 'privacy')]);
  });
  afterAll(() => service.destroy());

  it('creates a key shown once (svc_test_ on a test network), lists it without the key, and stores only its hash', async () => {
    const created = await createKey(doc, ['acceptances:read', 'acceptances:write'], { expiresInDays: 30 });
    expect(created.key).toMatch(/^svc_test_[A-Za-z0-9_-]{43}$/);
    expect(created.apiKey).toMatchObject({ name: 'Checkout server', scopes: ['acceptances:read', 'acceptances:write'], status: 'active', revokedAt: null });
    expect(created.key.startsWith(created.apiKey.prefix)).toBe(true);
    expect(Date.parse(created.apiKey.expiresAt!) - Date.now()).toBeGreaterThan(29 * 86_400_000);

    const listed = await doc.dashboard.request<{ apiKeys: Record<string, unknown>[] }>('GET', `/v1/organizations/${doc.organization.id}/api-keys`);
    expect(listed.apiKeys.map((k) => k.id)).toContain(created.apiKey.id);
    expect(JSON.stringify(listed)).not.toContain(created.key);

    // Neither the event log, nor the read models, nor any other file of the data directory holds the key.
    for (const file of filesUnder(service.dataDir)) expect(readFileSync(file).includes(Buffer.from(created.key))).toBe(false);
  });

  it('never stores an API key in an idempotent response (only its hash is kept): the replay answers it as null', async () => {
    const path = `/v1/organizations/${doc.organization.id}/api-keys`;
    const body = { name: 'Idempotent key', scopes: ['acceptances:read'] };
    const headers = { 'idempotency-key': 'create-key-once' };
    const first = await doc.dashboard.raw('POST', path, body, { headers });
    const created = JSON.parse(first.text) as CreatedKey;
    expect(created.key).toMatch(/^svc_test_/);
    const replay = await doc.dashboard.raw('POST', path, body, { headers });
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(JSON.parse(replay.text)).toEqual({ ...created, key: null });
    for (const file of filesUnder(service.dataDir)) expect([file, readFileSync(file).includes(Buffer.from(created.key))]).toEqual([file, false]);
  });

  it('refuses missing, malformed, unknown and other-network keys with 401, and a missing scope with 403', async () => {
    const { key } = await createKey(doc, ['documents:read']);
    const anon = new ApiClient(service.baseUrl);
    expect(await codeOf(anon.request('GET', '/v1/acceptances'))).toBe('401 unauthorized');
    expect(await codeOf(anon.request('GET', '/v1/acceptances', undefined, { headers: { authorization: 'Basic abc' } }))).toBe('401 unauthorized');
    expect(await codeOf(server(service, `svc_test_${'A'.repeat(43)}`).request('GET', '/v1/acceptances'))).toBe('401 unauthorized');
    expect(await codeOf(server(service, key.replace('svc_test_', 'svc_live_')).request('GET', '/v1/acceptances'))).toBe('401 unauthorized');
    expect(await codeOf(server(service, key).request('GET', '/v1/acceptances'))).toBe('403 forbidden');
    expect(await codeOf(server(service, key).request('POST', '/v1/acceptance-sessions', {}))).toBe('403 forbidden');
    expect(await codeOf(server(service, key).request('GET', `/v1/documents/by-slug/${doc.document.slug}/latest`))).toBe('ok');
  });

  it('validates key creation and refuses it to another organization', async () => {
    const base = `/v1/organizations/${doc.organization.id}/api-keys`;
    for (const body of [
      { name: '', scopes: ['acceptances:read'] },
      { name: 'x'.repeat(81), scopes: ['acceptances:read'] },
      { name: 'a\u0000b', scopes: ['acceptances:read'] },
      { name: 'two\nlines', scopes: ['acceptances:read'] },
      { name: '\ud800', scopes: ['acceptances:read'] },
      { name: 'n', scopes: [] },
      { name: 'n', scopes: ['acceptances:delete'] },
      { name: 'n', scopes: ['acceptances:read'], expiresInDays: 0 },
      { name: 'n', scopes: ['acceptances:read'], expiresInDays: 731 },
      { name: 'n', scopes: ['acceptances:read'], expiresInDays: 1.5 },
      { name: 'n', scopes: ['acceptances:read'], admin: true },
    ]) {
      expect([JSON.stringify(body), await codeOf(doc.dashboard.request('POST', base, body))]).toEqual([JSON.stringify(body), '400 invalid_request']);
    }
    const notAList = await doc.dashboard.request('POST', base, { name: 'n', scopes: 'acceptances:read' }).then(() => 'ok', (err: Error) => err.message);
    expect(notAList).toBe('400 invalid_request: scopes: must be an array of scopes');
    expect(await codeOf(other.dashboard.request('POST', base, { name: 'n', scopes: ['acceptances:read'] }))).toBe('404 not_found');
    expect(await codeOf(other.dashboard.request('GET', base))).toBe('404 not_found');
  });

  it('a revoked key is refused on the very next request; revoking again is harmless; others cannot revoke it', async () => {
    const { key, apiKey } = await createKey(doc, ['acceptances:read']);
    const api = server(service, key);
    expect(await codeOf(api.request('GET', '/v1/acceptances'))).toBe('ok');
    expect(await codeOf(other.dashboard.request('DELETE', `/v1/organizations/${other.organization.id}/api-keys/${apiKey.id}`))).toBe('404 not_found');
    const revoked = await doc.dashboard.request<{ apiKey: { status: string; revokedAt: string } }>('DELETE', `/v1/organizations/${doc.organization.id}/api-keys/${apiKey.id}`);
    expect(revoked.apiKey.status).toBe('revoked');
    expect(await codeOf(api.request('GET', '/v1/acceptances'))).toBe('401 unauthorized');
    expect(await codeOf(doc.dashboard.request('DELETE', `/v1/organizations/${doc.organization.id}/api-keys/${apiKey.id}`))).toBe('ok');
    expect(await codeOf(doc.dashboard.request('DELETE', `/v1/organizations/${doc.organization.id}/api-keys/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`))).toBe('404 not_found');
  });

  it('reads the latest version by slug for the key owner only', async () => {
    const { key } = await createKey(doc, ['documents:read']);
    const latest = await server(service, key).request<{ organization: string; document: string; version: { address: string; number: number; fingerprint: string } }>(
      'GET',
      `/v1/documents/by-slug/${doc.document.slug}/latest`,
    );
    expect(latest).toMatchObject({ organization: doc.organization.address, document: doc.document.address, version: { address: doc.versions[0]!.address, number: 1 } });
    expect(await codeOf(server(service, key).request('GET', `/v1/documents/by-slug/${other.document.slug}/latest`))).toBe('404 not_found');
    expect(await codeOf(server(service, key).request('GET', '/v1/documents/by-slug/Not_A_Slug/latest'))).toBe('400 invalid_request');
  });

  it('links an acceptance to the user through a session, off the ledger and out of public reads', async () => {
    const { key } = await createKey(doc, ['acceptances:read', 'acceptances:write']);
    const api = server(service, key);
    const session = await api.request<{ sessionToken: string; expiresAt: string }>('POST', '/v1/acceptance-sessions', { document: doc.document.slug, externalUserRef: 'user-7f3a', ttlSeconds: 600 });
    expect(session.sessionToken).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(Math.abs(Date.parse(session.expiresAt) - Date.now() - 600_000)).toBeLessThan(5_000);

    const signer = await generateKeyPairSigner();
    const outcome = await acceptWithSession(client, doc, signer, session.sessionToken);
    if (outcome.kind !== 'ok') throw new Error(`submit failed: ${JSON.stringify(outcome)}`);
    const { acceptanceId } = outcome.result;

    const own = await api.request<{ acceptance: { externalUserRef: string | null; signer: string }; receiptUrl: string }>('GET', `/v1/acceptances/${acceptanceId}`);
    expect(own.acceptance).toMatchObject({ externalUserRef: 'user-7f3a', signer: signer.address });
    expect(own.receiptUrl).toContain(acceptanceId);
    const publicRead = await client.request<{ acceptance: { externalUserRef: string | null } }>('GET', `/v1/public/acceptances/${acceptanceId}`);
    expect(publicRead.acceptance.externalUserRef).toBeNull();
    // Neither the ledger's memo nor the signed message carries the reference.
    const receipt = await client.request<Record<string, unknown>>('GET', `/v1/public/acceptances/${acceptanceId}/receipt`);
    expect(JSON.stringify(receipt)).not.toContain('user-7f3a');

    // Used up: a second challenge with the same token is refused, saying why.
    const again = await codeOf(acceptWithSession(client, doc, await generateKeyPairSigner(), session.sessionToken).then((o) => (o.kind === 'ok' ? o : Promise.reject(o.kind === 'api_error' ? o.error : o.error))));
    expect(again).toBe('403 forbidden');
  });

  it('answers a session retried with its Idempotency-Key with the same token, which opens a signature once', async () => {
    const { key } = await createKey(doc, ['acceptances:write']);
    const api = server(service, key);
    const body = { document: doc.document.slug, externalUserRef: 'user-retried', ttlSeconds: 600 };
    const headers = { 'idempotency-key': 'open-session-once' };
    const first = await api.raw('POST', '/v1/acceptance-sessions', body, headers);
    const replay = await api.raw('POST', '/v1/acceptance-sessions', body, headers);
    expect([first.response.status, replay.response.status, replay.response.headers.get('idempotent-replayed')]).toEqual([200, 200, 'true']);
    const session = JSON.parse(first.text) as { sessionToken: string; expiresAt: string };
    expect(session.sessionToken).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(JSON.parse(replay.text)).toEqual(session);
    // Kept sealed for the replay: no file of the data directory holds the token's text.
    for (const file of filesUnder(service.dataDir)) expect([file, readFileSync(file).includes(Buffer.from(session.sessionToken))]).toEqual([file, false]);
    const outcome = await acceptWithSession(client, doc, await generateKeyPairSigner(), session.sessionToken);
    expect(outcome.kind).toBe('ok');
  });

  it('refuses unknown, malformed and other-document sessions with 403 naming why', async () => {
    const { key } = await createKey(doc, ['acceptances:write']);
    const api = server(service, key);
    const forOther = await api.request<{ sessionToken: string }>('POST', '/v1/acceptance-sessions', { document: doc.document.address });
    const signer = await generateKeyPairSigner();
    const target = { organization: other.organization.address, document: other.document.address };
    const challenge = (sessionToken: string) =>
      client.request('POST', '/v1/acceptance/challenges', { ...target, signer: signer.address, sessionToken }, { origin: ORIGIN }).then(
        () => 'ok',
        (err: { status: number; code: string; message: string }) => `${err.status} ${err.code}: ${err.message}`,
      );
    expect(await challenge(forOther.sessionToken)).toMatch(/^403 forbidden: .*another organization/);
    expect(await challenge('A'.repeat(64))).toMatch(/^403 forbidden: .*unknown acceptance session/);
    expect(await challenge('not-a-token')).toMatch(/^403 forbidden: .*not an acceptance session token/);

    expect(await codeOf(api.request('POST', '/v1/acceptance-sessions', { document: other.document.address }))).toBe('404 not_found');
    for (const body of [{ ttlSeconds: 59 }, { ttlSeconds: 3601 }, { externalUserRef: 'has space' }, { externalUserRef: 'x'.repeat(129) }, { document: 'Not A Slug' }, { extra: 1 }]) {
      expect([body, await codeOf(api.request('POST', '/v1/acceptance-sessions', body))]).toEqual([body, '400 invalid_request']);
    }
  });

  it('two submissions racing on one session: exactly one is recorded', async () => {
    const { key } = await createKey(doc, ['acceptances:write']);
    const { sessionToken } = await server(service, key).request<{ sessionToken: string }>('POST', '/v1/acceptance-sessions', {});
    const [a, b] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    const target = { organization: doc.organization.address, document: doc.document.address };
    const challenges = await Promise.all(
      [a, b].map((s) =>
        client.request<IssuedChallenge>('POST', '/v1/acceptance/challenges', { ...target, signer: s.address, sessionToken }, { origin: ORIGIN }),
      ),
    );
    const outcomes = await Promise.all([submitSigned(client, challenges[0]!, a), submitSigned(client, challenges[1]!, b)]);
    const kinds = outcomes.map((o) => (o.kind === 'ok' ? 'ok' : o.kind === 'api_error' ? `${o.error.status} ${o.error.code}` : 'connection_error')).sort();
    expect(kinds).toEqual(['403 forbidden', 'ok']);
  });

  it('a refused submission does not use the session up', async () => {
    const { key } = await createKey(doc, ['acceptances:write']);
    const { sessionToken } = await server(service, key).request<{ sessionToken: string }>('POST', '/v1/acceptance-sessions', {});
    const signer = await generateKeyPairSigner();
    const challenge = await client.request<IssuedChallenge>(
      'POST',
      '/v1/acceptance/challenges',
      { organization: doc.organization.address, document: doc.document.address, signer: signer.address, sessionToken },
      { origin: ORIGIN },
    );
    const wrong = await signText(await generateKeyPairSigner(), challenge.message);
    expect(await codeOf(client.request('POST', `/v1/acceptance/challenges/${challenge.challengeId}/submit`, { clientBinding: challenge.clientBinding, signature: wrong }, { origin: ORIGIN }))).toBe(
      '400 invalid_signature',
    );
    const retried = await submitSigned(client, challenge, signer);
    expect(retried.kind).toBe('ok');
  });

  it('answers "did this user accept the current version" with the recipe of spec §4.5', async () => {
    const { key } = await createKey(doc, ['acceptances:read', 'acceptances:write', 'documents:read']);
    const api = server(service, key);
    const ask = async (userRef: string) => {
      const latest = await api.request<{ version: { address: string } }>('GET', `/v1/documents/by-slug/${doc.document.slug}/latest`);
      const page = await api.request<AcceptancePage>('GET', `/v1/acceptances?externalUserRef=${userRef}&version=${latest.version.address}&limit=1`);
      return page.acceptances.length === 1;
    };
    expect(await ask('user-recipe')).toBe(false);
    const { sessionToken } = await api.request<{ sessionToken: string }>('POST', '/v1/acceptance-sessions', { document: doc.document.address, externalUserRef: 'user-recipe' });
    expect((await acceptWithSession(client, doc, await generateKeyPairSigner(), sessionToken)).kind).toBe('ok');
    expect(await ask('user-recipe')).toBe(true);
    expect(await ask('someone-else')).toBe(false);
  });

  it("keeps organizations apart: B's key reads A's acceptance as 404 and never lists it", async () => {
    const accepted = await acceptAsWallet(client, await generateKeyPairSigner(), { organization: doc.organization.address, document: doc.document.address, origin: ORIGIN });
    const { key } = await createKey(other, ['acceptances:read']);
    expect(await codeOf(server(service, key).request('GET', `/v1/acceptances/${accepted.acceptanceId}`))).toBe('404 not_found');
    const page = await server(service, key).request<AcceptancePage>('GET', '/v1/acceptances?limit=200');
    expect(page.acceptances.map((a) => a.acceptanceId)).not.toContain(accepted.acceptanceId);
    expect(await codeOf(other.dashboard.request('GET', `/v1/organizations/${doc.organization.id}/acceptances`))).toBe('404 not_found');
  });

  it('validates the search query: limits, cursors (malformed or foreign), dates, unknown parameters', async () => {
    const { key } = await createKey(doc, ['acceptances:read']);
    const api = server(service, key);
    for (const [query, expected] of [
      ['limit=0', '400 invalid_request'],
      ['limit=201', '400 invalid_request'],
      ['limit=abc', '400 invalid_request'],
      ['cursor=%2B%2B', '400 invalid_cursor'],
      [`cursor=${'A'.repeat(161)}`, '400 invalid_cursor'],
      ['cursor=AAAA', '400 invalid_cursor'],
      ['from=yesterday', '400 invalid_request'],
      // Days that are not in the calendar (Date.parse would roll them over), and one that is.
      ['from=2026-02-30T00:00:00Z', '400 invalid_request'],
      ['to=2026-11-31T00:00:00Z', '400 invalid_request'],
      ['from=2025-02-29T00:00:00Z', '400 invalid_request'],
      ['from=2024-02-29T00:00:00Z', 'ok'],
      // A calendar date is that day in UTC; the basic form and dates not in the calendar are not taken.
      ['from=2024-02-29&to=2024-02-29', 'ok'],
      ['to=2026-02-30', '400 invalid_request'],
      ['before=20261128', '400 invalid_request'],
      ['from=2026-11', '400 invalid_request'],
      // A query that is not percent-encoded UTF-8.
      ['externalUserRef=%FF', '400 invalid_request'],
      ['externalUserRef=user%6', '400 invalid_request'],
      ['externalUserRef=%ZZ', '400 invalid_request'],
      ['externalUserRef=caf%C3%A9', 'ok'],
      ['signer=nope', '400 invalid_address'],
      ['colour=blue', '400 invalid_request'],
      // Names of Object.prototype members, which class-transformer would drop unseen.
      ['toString=1', '400 invalid_request'],
      ['hasOwnProperty=1', '400 invalid_request'],
      ['constructor=1', '400 invalid_request'],
      ['__proto__=1', '400 invalid_request'],
      ['limit=200', 'ok'],
    ] as const) {
      expect([query, await codeOf(api.request('GET', `/v1/acceptances?${query}`))]).toEqual([query, expected]);
    }
    const first = await api.request<AcceptancePage>('GET', '/v1/acceptances?limit=1');
    expect(first.nextCursor).not.toBeNull();
    expect(first.nextCursor!.length).toBeLessThanOrEqual(160);
    // A cursor is bound to its filters and its organization.
    expect(await codeOf(api.request('GET', `/v1/acceptances?limit=1&signer=${first.acceptances[0]!.signer}&cursor=${first.nextCursor}`))).toBe('400 invalid_cursor');
    const { key: otherKey } = await createKey(other, ['acceptances:read']);
    expect(await codeOf(server(service, otherKey).request('GET', `/v1/acceptances?limit=1&cursor=${first.nextCursor}`))).toBe('400 invalid_cursor');
    // A cursor whose position was changed (here: to the start of the log, or one further) is refused too.
    const bytes = Buffer.from(first.nextCursor!, 'base64url');
    for (const position of [0n, bytes.readBigUInt64BE(0) + 1n]) {
      const changed = Buffer.from(bytes);
      changed.writeBigUInt64BE(position);
      expect(await codeOf(api.request('GET', `/v1/acceptances?limit=1&cursor=${changed.toString('base64url')}`))).toBe('400 invalid_cursor');
    }
    expect((await api.request<AcceptancePage>('GET', `/v1/acceptances?limit=1&cursor=${first.nextCursor}`)).acceptances).toHaveLength(1);
  });

  it('walks hundreds of acceptances in pages of 7 with no gap and no duplicate while new ones arrive', async () => {
    const walked = await publishedDocument(service, [1], 'walk');
    const target = { organization: walked.organization.address, document: walked.document.address, origin: ORIGIN };
    const acceptMany = async (count: number) => {
      const ids: string[] = [];
      const queue = Array.from({ length: count }, () => 0);
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (queue.pop() !== undefined) ids.push((await acceptAsWallet(client, await generateKeyPairSigner(), target)).acceptanceId);
        }),
      );
      return ids;
    };
    const before = await acceptMany(500);
    const { key } = await createKey(walked, ['acceptances:read']);
    const api = server(service, key);
    const seen: string[] = [];
    let cursor: string | null = null;
    const arriving = acceptMany(60);
    do {
      const page: AcceptancePage = await api.request<AcceptancePage>('GET', `/v1/acceptances?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.acceptances.length).toBeLessThanOrEqual(7);
      seen.push(...page.acceptances.map((a) => a.acceptanceId));
      cursor = page.nextCursor;
    } while (cursor);
    const arrived = await arriving;
    expect(new Set(seen).size).toBe(seen.length);
    const unseen = before.filter((id) => !seen.includes(id));
    expect(unseen).toEqual([]);
    // Whatever else the walk saw arrived during it.
    expect(seen.filter((id) => !before.includes(id)).every((id) => arrived.includes(id))).toBe(true);

    // The dashboard's search is the same, and filters narrow it.
    const dashboardPage = await walked.dashboard.request<AcceptancePage>('GET', `/v1/organizations/${walked.organization.id}/acceptances?limit=3`);
    expect(dashboardPage.acceptances).toHaveLength(3);
    const signer = dashboardPage.acceptances[1]!.signer;
    const bySigner = await api.request<AcceptancePage>('GET', `/v1/acceptances?signer=${signer}`);
    expect(bySigner.acceptances.map((a) => a.signer)).toEqual([signer]);
    const blockTime = dashboardPage.acceptances[0]!.blockTime;
    const inclusive = await api.request<AcceptancePage>('GET', `/v1/acceptances?from=${encodeURIComponent(blockTime)}&to=${encodeURIComponent(blockTime)}&limit=200`);
    expect(inclusive.acceptances.length).toBeGreaterThan(0);
    expect(inclusive.acceptances.every((a) => a.blockTime === blockTime)).toBe(true);
    const strictlyBefore = await api.request<AcceptancePage>('GET', `/v1/acceptances?before=${encodeURIComponent(blockTime)}&limit=200`);
    expect(strictlyBefore.acceptances.every((a) => Date.parse(a.blockTime) < Date.parse(blockTime))).toBe(true);
    // Bounds keep their meaning below the millisecond: one nanosecond past the block time is after it.
    const nanosecondAfter = `${new Date(blockTime).toISOString().slice(0, 19)}.000000001Z`;
    const ids = async (query: string) => (await api.request<AcceptancePage>('GET', `/v1/acceptances?${query}&limit=200`)).acceptances.map((a) => a.acceptanceId);
    const atBlockTime = inclusive.acceptances.map((a) => a.acceptanceId);
    expect((await ids(`from=${nanosecondAfter}`)).filter((id) => atBlockTime.includes(id))).toEqual([]);
    expect(await ids(`before=${nanosecondAfter}&from=${encodeURIComponent(blockTime)}`)).toEqual(atBlockTime);
    expect(await ids(`to=${nanosecondAfter}&from=${encodeURIComponent(blockTime)}`)).toEqual(atBlockTime);
    // A date covers its whole UTC day.
    const day = new Date(blockTime).toISOString().slice(0, 10);
    expect((await ids(`from=${day}&to=${day}`)).filter((id) => atBlockTime.includes(id))).toEqual(atBlockTime);
    expect((await ids(`before=${day}`)).filter((id) => atBlockTime.includes(id))).toEqual([]);
  });
});

describe('organization settings', () => {
  let service: TestService;
  let client: ApiClient;
  let doc: PublishedDocument;

  beforeAll(async () => {
    service = await startTestService({ env: GENEROUS_LIMITS });
    client = new ApiClient(service.baseUrl);
    doc = await publishedDocument(service, [1]);
  });
  afterAll(() => service.destroy());

  const patch = (body: unknown) => doc.dashboard.request<{ organization: { settings: Record<string, unknown> } }>('PATCH', `/v1/organizations/${doc.organization.id}/settings`, body);

  it('returns every setting with its default, and validates each key exactly', async () => {
    const { organization } = await doc.dashboard.request<{ organization: { settings: Record<string, unknown> } }>('GET', `/v1/organizations/${doc.organization.id}`);
    expect(organization.settings).toEqual({
      requireAcceptanceSessions: false,
      allowedRequestDomains: [],
      signingPolicy: 'WALLET_ONLY',
      feeSponsor: 'svc',
      sponsorFallbackToStele: true,
      sponsorLowBalanceLamports: 0,
      evidenceMode: 'DIRECT_ONCHAIN',
      products: { gate: false },
    });
    for (const body of [
      { unknownKey: true },
      { requireAcceptanceSessions: 'yes' },
      { allowedRequestDomains: Array.from({ length: 21 }, (_, i) => `s${i}.example.com`) },
      { allowedRequestDomains: ['x'.repeat(49)] },
      { allowedRequestDomains: ['https://shop.example.com'] },
      // Ports no Origin can carry (the requestDomain rule: 1 to 65535).
      { allowedRequestDomains: ['shop.example.com:0'] },
      { allowedRequestDomains: ['shop.example.com:99999'] },
      { signingPolicy: 'ANYONE' },
      { feeSponsor: 'stele' },
      { sponsorLowBalanceLamports: -1 },
      { sponsorLowBalanceLamports: 1_000_000_000_001 },
      { evidenceMode: 'BATCHED' },
      { products: {} },
      { products: { gate: true, extra: 1 } },
    ]) {
      expect([body, await codeOf(patch(body))]).toEqual([body, '400 invalid_request']);
    }
    // A value of the wrong type is refused for its type, not for a rule only an array or an object can break.
    for (const [body, message] of [
      [{ allowedRequestDomains: 'shop.example.com' }, '400 invalid_request: allowedRequestDomains: must be an array of host names'],
      [{ products: 'gate' }, '400 invalid_request: products: must be an object {gate: boolean}'],
    ] as const) {
      expect([body, await patch(body).then(() => 'ok', (err: Error) => err.message)]).toEqual([body, message]);
    }
  });

  it('enforces the allowed requesting sites against the Origin', async () => {
    const updated = await patch({ allowedRequestDomains: ['shop.example.com'], products: { gate: true } });
    expect(updated.organization.settings).toMatchObject({ allowedRequestDomains: ['shop.example.com'], products: { gate: true } });
    const target = { organization: doc.organization.address, document: doc.document.address };
    const signer = await generateKeyPairSigner();
    expect(await codeOf(issueChallenge(client, target, signer, 'https://evil.example.net'))).toBe('403 forbidden');
    expect(await codeOf(issueChallenge(client, target, signer, ORIGIN))).toBe('ok');
    await patch({ allowedRequestDomains: [] });
  });

  it('stores an allowed site written with its default port as the Origin names it, so the browser at that site may sign', async () => {
    const target = { organization: doc.organization.address, document: doc.document.address };
    for (const [entry, stored] of [
      ['shop.example.com:443', 'shop.example.com'],
      ['shop.example.com:80', 'shop.example.com'],
    ] as const) {
      const updated = await patch({ allowedRequestDomains: [entry, 'pay.example.com:8443'] });
      expect([entry, updated.organization.settings.allowedRequestDomains]).toEqual([entry, [stored, 'pay.example.com:8443']]);
      // Browsers leave the default port out of Origin (https://shop.example.com), and spelled out it names the same site.
      expect([entry, await codeOf(issueChallenge(client, target, await generateKeyPairSigner(), ORIGIN))]).toEqual([entry, 'ok']);
      expect([entry, await codeOf(issueChallenge(client, target, await generateKeyPairSigner(), 'https://shop.example.com:443'))]).toEqual([entry, 'ok']);
      expect([entry, await codeOf(issueChallenge(client, target, await generateKeyPairSigner(), 'http://shop.example.com'))]).toEqual([entry, 'ok']);
      // Another port is another site.
      expect([entry, await codeOf(issueChallenge(client, target, await generateKeyPairSigner(), 'https://shop.example.com:8443'))]).toEqual([entry, '403 forbidden']);
      expect([entry, await codeOf(issueChallenge(client, target, await generateKeyPairSigner(), 'https://pay.example.com:8443'))]).toEqual([entry, 'ok']);
    }
    // Both spellings of one site are kept once.
    expect((await patch({ allowedRequestDomains: ['shop.example.com', 'shop.example.com:443'] })).organization.settings.allowedRequestDomains).toEqual(['shop.example.com']);
    await patch({ allowedRequestDomains: [] });
  });

  it('requires sessions when asked to', async () => {
    await patch({ requireAcceptanceSessions: true });
    const target = { organization: doc.organization.address, document: doc.document.address };
    expect(await codeOf(issueChallenge(client, target, await generateKeyPairSigner()))).toBe('403 forbidden');
    await patch({ requireAcceptanceSessions: false });
    expect(await codeOf(issueChallenge(client, target, await generateKeyPairSigner()))).toBe('ok');
  });

  it('stores settings this deployment does not offer yet, and refuses them at challenge time with a clear error unless the service may pay instead', async () => {
    const target = { organization: doc.organization.address, document: doc.document.address };
    const accepted = await generateKeyPairSigner();
    expect((await submitSigned(client, await issueChallenge(client, target, accepted), accepted)).kind).toBe('ok');
    for (const [setting, expected] of [
      [{ feeSponsor: 'organization', sponsorFallbackToStele: false }, '402 sponsorship_unavailable'],
      [{ signingPolicy: 'PASSKEY_ONLY' }, '400 passkey_required'],
    ] as const) {
      const { organization } = await patch(setting);
      expect(organization.settings).toMatchObject(setting);
      expect([setting, await codeOf(issueChallenge(client, target, await generateKeyPairSigner()))]).toEqual([setting, expected]);
      // A signer who already accepted is told so: the refusal concerns only a signature still to come.
      expect([setting, await codeOf(issueChallenge(client, target, accepted))]).toEqual([setting, '409 already_accepted']);
      await patch({ evidenceMode: 'DIRECT_ONCHAIN', feeSponsor: 'svc', sponsorFallbackToStele: true, signingPolicy: 'WALLET_ONLY' });
    }
    // With the fallback on (the default), the organization's shard being unable to pay, the service pays (spec §7 rule 5).
    await patch({ feeSponsor: 'organization' });
    expect((await issueChallenge(client, target, await generateKeyPairSigner())).feeSponsor).toBe('svc');
    await patch({ feeSponsor: 'svc' });
    await patch({ signingPolicy: 'WALLET_OR_PASSKEY' });
    expect(await codeOf(issueChallenge(client, target, await generateKeyPairSigner()))).toBe('ok');
    // Batched evidence is offered: the challenge says so.
    await patch({ evidenceMode: 'MERKLE_BATCHED' });
    expect((await issueChallenge(client, target, await generateKeyPairSigner())).evidenceMode).toBe('MERKLE_BATCHED');
    await patch({ evidenceMode: 'DIRECT_ONCHAIN' });
  });

  it('lets only members change settings, and wants the CSRF header', async () => {
    const stranger = await publishedDocument(service, [1], 'stranger');
    expect(await codeOf(stranger.dashboard.request('PATCH', `/v1/organizations/${doc.organization.id}/settings`, { products: { gate: true } }))).toBe('404 not_found');
    const noCsrf = await new ApiClient(service.baseUrl).request('PATCH', `/v1/organizations/${doc.organization.id}/settings`, { products: { gate: true } }, { origin: service.baseUrl }).then(
      () => 'ok',
      (e: { status: number; code: string }) => `${e.status} ${e.code}`,
    );
    expect(noCsrf).toBe('403 forbidden');
  });
});

describe('the fresh-signature window and expiries (injected clock)', () => {
  const clock = new AdjustableClock();
  let service: TestService;
  let client: ApiClient;
  let doc: PublishedDocument;

  beforeAll(async () => {
    service = await startTestService({ env: GENEROUS_LIMITS, clock });
    client = new ApiClient(service.baseUrl);
    doc = await publishedDocument(service, [1]);
  });
  afterAll(() => service.destroy());

  it('11 minutes after sign-in: no key creation and no acceptance-policy change; keys and sessions expire', async () => {
    const { key } = await createKey(doc, ['acceptances:write', 'acceptances:read'], { expiresInDays: 1 });
    const api = server(service, key);
    const short = await api.request<{ sessionToken: string }>('POST', '/v1/acceptance-sessions', { ttlSeconds: 60 });
    const keyed = () => doc.dashboard.request('POST', `/v1/organizations/${doc.organization.id}/api-keys`, { name: 'Replayed', scopes: ['documents:read'] }, { headers: { 'idempotency-key': 'stale-replay' } });
    expect(await codeOf(keyed())).toBe('ok');

    clock.advance(11 * 60);
    expect(await codeOf(createKey(doc, ['acceptances:read']))).toBe('403 reauthentication_required');
    // A replay of the stored answer needs the fresh signature too (docs/api.md "Idempotency": guards run first).
    expect(await codeOf(keyed())).toBe('403 reauthentication_required');
    for (const policy of [{ signingPolicy: 'WALLET_OR_PASSKEY' }, { requireAcceptanceSessions: true }, { allowedRequestDomains: ['shop.example.com'] }]) {
      expect([policy, await codeOf(doc.dashboard.request('PATCH', `/v1/organizations/${doc.organization.id}/settings`, policy))]).toEqual([policy, '403 reauthentication_required']);
    }
    expect(await codeOf(doc.dashboard.request('PATCH', `/v1/organizations/${doc.organization.id}/settings`, { products: { gate: true } }))).toBe('ok');

    const signer = await generateKeyPairSigner();
    const expired = await client
      .request('POST', '/v1/acceptance/challenges', { organization: doc.organization.address, document: doc.document.address, signer: signer.address, sessionToken: short.sessionToken }, { origin: ORIGIN })
      .then(() => 'ok', (e: { status: number; code: string; message: string }) => `${e.status} ${e.code}: ${e.message}`);
    expect(expired).toMatch(/^403 forbidden: .*expired/);

    expect(await codeOf(api.request('GET', '/v1/acceptances'))).toBe('ok');
    clock.advance(86_400);
    expect(await codeOf(api.request('GET', '/v1/acceptances'))).toBe('401 unauthorized');
  });
});

const apiBuilt = existsSync(apiMain());

(apiBuilt ? describe : describe.skip)(`two API processes sharing one data store${apiBuilt ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  let primary: TestService;
  let replica: RunningService;
  let doc: PublishedDocument;

  beforeAll(async () => {
    primary = await startTestService({ env: GENEROUS_LIMITS });
    // The replica is another process: it reads and writes the same event store and read store, uses the primary's
    // ledger, and leaves the projections to the primary (as API replicas beside a worker do).
    replica = await startService({ dataDir: primary.dataDir, env: { ...GENEROUS_LIMITS, RUN_PROJECTIONS: 'false', LEDGER_RPC_URL: primary.rpcUrl } });
    doc = await publishedDocument(primary, [1]);
  });
  afterAll(async () => {
    await replica?.stop();
    await primary?.destroy();
  });

  it('a key revoked through one process is refused by the other on the next request', async () => {
    const { key, apiKey } = await createKey(doc, ['acceptances:read', 'acceptances:write']);
    const onReplica = server(replica, key);
    expect(await codeOf(onReplica.request('GET', '/v1/acceptances'))).toBe('ok');
    const session = await onReplica.request<{ sessionToken: string }>('POST', '/v1/acceptance-sessions', { externalUserRef: 'replica-user' });
    // A session opened on the replica is usable on the primary at once (it is read from its stream).
    const signer = await generateKeyPairSigner();
    const outcome = await acceptWithSession(new ApiClient(primary.baseUrl), doc, signer, session.sessionToken);
    expect(outcome.kind).toBe('ok');
    const found = await onReplica.request<AcceptancePage>('GET', '/v1/acceptances?externalUserRef=replica-user');
    expect(found.acceptances).toHaveLength(1);

    await doc.dashboard.request('DELETE', `/v1/organizations/${doc.organization.id}/api-keys/${apiKey.id}`);
    expect(await codeOf(onReplica.request('GET', '/v1/acceptances'))).toBe('401 unauthorized');
    expect(await codeOf(server(primary, key).request('GET', '/v1/acceptances'))).toBe('401 unauthorized');
  });
});

(apiBuilt ? describe : describe.skip)(`one rate-limit budget for two API processes${apiBuilt ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  let primary: TestService;
  let replica: RunningService;
  const LIMIT = 6;

  beforeAll(async () => {
    const env = { ...GENEROUS_LIMITS, RATE_LIMIT_SIGNIN_PER_MINUTE: String(LIMIT) };
    primary = await startTestService({ env });
    replica = await startService({ dataDir: primary.dataDir, env: { ...env, RUN_PROJECTIONS: 'false', LEDGER_RPC_URL: primary.rpcUrl } });
  });
  afterAll(async () => {
    await replica?.stop();
    await primary?.destroy();
  });

  it('sign-in requests alternating between the processes share the per-minute budget (docs/api.md bound: limit + 1 here)', async () => {
    // Windows are whole minutes: start well inside one, so that the run does not straddle two.
    const probe = await fetch(`${primary.baseUrl}/api/v1/network`);
    await probe.arrayBuffer();
    const reset = Number(probe.headers.get('x-ratelimit-reset'));
    if (reset < 3) await new Promise((r) => setTimeout(r, (reset + 1) * 1000));
    const statuses: number[] = [];
    for (let i = 0; i < 2 * LIMIT; i++) {
      const base = i % 2 === 0 ? primary.baseUrl : replica.baseUrl;
      const wallet = await generateKeyPairSigner();
      const res = await fetch(`${base}/api/v1/auth/challenge`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address: wallet.address }) });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    const admitted = statuses.filter((s) => s === 200).length;
    // Alone, each process would admit all of its 6; together they admit the budget, at most one more (the bound).
    expect(admitted).toBeGreaterThanOrEqual(LIMIT);
    expect(admitted).toBeLessThanOrEqual(LIMIT + 1);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
  });
});



(apiBuilt ? describe : describe.skip)(`secrets stay out of the logs${apiBuilt ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  let service: RunningService;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDataDir();
    // The most verbose level: every request is logged.
    service = await startService({ dataDir, env: { ...GENEROUS_LIMITS, LOG_LEVEL: 'trace' }, captureLogs: true });
  });
  afterAll(async () => {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('neither an API key, nor a session token, nor the dashboard cookie, nor a query value reaches the log', async () => {
    const doc = await publishedDocument({ baseUrl: service.baseUrl, rpcUrl: service.rpcUrl }, [1]);
    const { key, apiKey } = await createKey(doc, ['acceptances:read', 'acceptances:write']);
    const api = server(service, key);
    const { sessionToken } = await api.request<{ sessionToken: string }>('POST', '/v1/acceptance-sessions', {});
    await api.request('GET', '/v1/acceptances');
    await api.request('GET', '/v1/acceptances?externalUserRef=customer-4711&limit=5');
    await codeOf(server(service, `${key.slice(0, -1)}x`).request('GET', '/v1/acceptances'));
    await doc.dashboard.request('DELETE', `/v1/organizations/${doc.organization.id}/api-keys/${apiKey.id}`);
    await codeOf(api.request('GET', '/v1/acceptances'));
    const dashboard = await signIn(new ApiClient(service.baseUrl), doc.owner);
    await new ApiClient(service.baseUrl).useSession(dashboard).request('GET', `/v1/organizations/${doc.organization.id}/api-keys`);
    const log = service.stdout.join('');
    expect(log).toContain('/api/v1/acceptances');
    expect(log).toContain(`/api/v1/organizations/${doc.organization.id}/api-keys`);
    // Query values (a customer's own reference here) are personal data: the log keeps the parameters' names only.
    expect(log).toContain('/api/v1/acceptances?externalUserRef=…&limit=…');
    expect(log).not.toContain('customer-4711');
    for (const secret of [key, sessionToken, dashboard.session, dashboard.csrf]) {
      expect(log.includes(secret)).toBe(false);
    }
    for (const file of filesUnder(dataDir)) {
      const bytes = readFileSync(file);
      expect([file, bytes.includes(Buffer.from(key)) || bytes.includes(Buffer.from(sessionToken))]).toEqual([file, false]);
    }
  });
});
