import { generateKeyPairSigner } from '@solana/kit';
import { coSignedMemoTransactionSize, TRANSACTION_SIZE_LIMIT } from '@svc/evidence';
import { dashboardFixture, outcome, send, type DashboardFixture } from './support/raw-http';
import { startTestService, type TestService } from './support/test-service';
import { EVENT_STORE, type EventStore } from '@svc/event-store';

/** Base58 text of the address/signature shape that does not decode to 32 (or 64) bytes. */
const SHORT_ADDRESS = '2'.repeat(32); // about 23 bytes
const LONG_ADDRESS = 'z'.repeat(44); // 33 bytes
const SHORT_SIGNATURE = '2'.repeat(64); // about 47 bytes
const LONG_SIGNATURE = 'z'.repeat(90); // 66 bytes

describe('HTTP edge: field rules are the protocol rules', () => {
  let service: TestService;
  let fixture: DashboardFixture;

  beforeAll(async () => {
    service = await startTestService({ env: { RATE_LIMIT_SIGNIN_PER_MINUTE: '1000', RATE_LIMIT_ACCEPTANCE_PER_MINUTE: '1000', RATE_LIMIT_GENERAL_PER_MINUTE: '10000' } });
    fixture = await dashboardFixture(service);
  });
  afterAll(() => service.destroy());

  /** A JSON POST; public requests come from a shop's site (acceptance challenges need an Origin), dashboard ones from the app. */
  const post = (path: string, body: unknown, authenticated = false) =>
    send(service.baseUrl, 'POST', path, {
      body: JSON.stringify(body),
      session: authenticated ? fixture.session : undefined,
      headers: path.startsWith('/v1/auth/') ? {} : { origin: 'https://shop.example.com' },
    });

  it('refuses base58 addresses and signatures that do not decode to 32 and 64 bytes (400, never 500)', async () => {
    const valid = (await generateKeyPairSigner()).address;
    for (const bad of [SHORT_ADDRESS, LONG_ADDRESS]) {
      expect(outcome(await post('/v1/auth/challenge', { address: bad }))).toBe('400 invalid_address');
      expect(outcome(await post('/v1/acceptance/challenges', { organization: bad, document: valid, signer: valid }))).toBe('400 invalid_address');
      expect(outcome(await post('/v1/acceptance/challenges', { organization: valid, document: bad, signer: valid }))).toBe('400 invalid_address');
      expect(outcome(await post('/v1/acceptance/challenges', { organization: valid, document: valid, signer: bad }))).toBe('400 invalid_signer');
      expect(outcome(await post('/v1/organizations/sync', { address: bad }, true))).toBe('400 invalid_address');
      expect(outcome(await post(`/v1/organizations/${fixture.organization.id}/documents/sync`, { address: bad }, true))).toBe('400 invalid_address');
      expect(outcome(await send(service.baseUrl, 'GET', `/v1/public/versions/${bad}`))).toBe('400 invalid_address');
      expect(outcome(await send(service.baseUrl, 'GET', `/v1/public/signers/${bad}`))).toBe('400 invalid_signer');
    }
    for (const bad of [SHORT_SIGNATURE, LONG_SIGNATURE]) {
      expect(outcome(await send(service.baseUrl, 'GET', `/v1/public/transactions/${bad}/acceptance`))).toBe('400 invalid_signature');
      expect(outcome(await post('/v1/auth/verify', { address: valid, signedMessage: 'x', signature: bad }))).toBe('400 invalid_signature');
      expect(outcome(await post('/v1/publications/confirm', { signature: bad }, true))).toBe('400 invalid_signature');
    }
    // The all-zero address ('1' x 32) decodes to 32 bytes and is a well-formed address.
    expect(outcome(await send(service.baseUrl, 'GET', `/v1/public/versions/${'1'.repeat(32)}`))).toBe('404 not_found');
  });

  it('refuses the passkey signer types this release does not serve: 400 unsupported_signer', async () => {
    const wallet = (await generateKeyPairSigner()).address;
    const p256 = `p256:02${'ab'.repeat(32)}`;
    for (const [signerType, signer] of [['passkey', wallet], ['passkey_p256', p256]]) {
      expect([signerType, outcome(await post('/v1/acceptance/challenges', { organization: fixture.organization.address, document: fixture.document.address, signer, signerType }))]).toEqual([signerType, '400 unsupported_signer']);
    }
    expect(outcome(await post('/v1/acceptance/challenges', { organization: fixture.organization.address, document: fixture.document.address, signer: wallet, signerType: 'webauthn' }))).toBe('400 invalid_request');
  });

  describe('drafts', () => {
    const create = (fields: Record<string, unknown>) =>
      post(`/v1/documents/${fixture.document.id}/drafts`, { title: 'Terms of Service', versionLabel: 'v1', source: '# Terms\n', ...fields }, true);

    it.each([
      ['a 140-character title of astral characters (4 bytes each)', { title: '😀'.repeat(140) }],
      ['a 200-character title of 3-byte characters', { title: '中'.repeat(200) }],
      ['a 16-character label of astral characters', { versionLabel: '𝔳'.repeat(16) }],
      ['a title with a line separator (U+2028, not a control character)', { title: 'Terms\u2028of Service' }],
      ['the largest effectiveAt (2^53 - 1)', { effectiveAt: Number.MAX_SAFE_INTEGER }],
      ['effectiveAt 1', { effectiveAt: 1 }],
      ['effectiveAt null and changeSummary null', { effectiveAt: null, changeSummary: null }],
    ])('accepts %s, and the draft can be prepared into a transaction within the ledger size', async (_name, fields) => {
      const created = await create(fields);
      expect(outcome(created)).toBe('200 ok');
      const draftId = (created.json as { draft: { id?: string; draftId?: string } }).draft;
      const id = draftId.id ?? draftId.draftId;
      const prepared = await post(`/v1/drafts/${id}/prepare`, {}, true);
      expect(outcome(prepared)).toBe('200 ok');
      const publication = (prepared.json as { publication: Record<string, unknown> }).publication;
      expect(coSignedMemoTransactionSize(publication['memo'] as string)).toBeLessThanOrEqual(TRANSACTION_SIZE_LIMIT);
      for (const [key, value] of Object.entries(fields)) {
        const published = key === 'versionLabel' ? 'label' : key;
        if (published in publication) expect(publication[published]).toEqual(value);
      }
    });

    it.each([
      ['a title with a line feed', { title: 'Terms\nof Service' }, 'invalid_request'],
      ['a title with a carriage return', { title: 'Terms\r' }, 'invalid_request'],
      ['a title with a tab', { title: 'Terms\tof Service' }, 'invalid_request'],
      ['a title with NUL', { title: 'Terms\u0000' }, 'invalid_request'],
      ['a title with DEL', { title: 'Terms\u007f' }, 'invalid_request'],
      ['a title with a C1 control (NEL)', { title: 'Terms\u0085' }, 'invalid_request'],
      ['a title with a lone surrogate', { title: 'Terms \ud800' }, 'invalid_request'],
      ['an empty title', { title: '' }, 'invalid_request'],
      ['a 201-character title', { title: 'a'.repeat(201) }, 'invalid_request'],
      ['a 200-character title of astral characters, whose record would not fit one transaction', { title: '😀'.repeat(200) }, 'invalid_request'],
      ['a null title', { title: null }, 'invalid_request'],
      ['a label with a line feed', { versionLabel: 'v\n1' }, 'invalid_request'],
      ['a label with a lone low surrogate', { versionLabel: '\udc00' }, 'invalid_request'],
      ['a 17-character label', { versionLabel: 'a'.repeat(17) }, 'invalid_request'],
      ['effectiveAt 2^53', { effectiveAt: 2 ** 53 }, 'invalid_effective_date'],
      ['effectiveAt 1e300', { effectiveAt: 1e300 }, 'invalid_effective_date'],
      ['effectiveAt 0', { effectiveAt: 0 }, 'invalid_effective_date'],
      ['a fractional effectiveAt', { effectiveAt: 1.5 }, 'invalid_effective_date'],
      ['effectiveAt as a string', { effectiveAt: '1700000000' }, 'invalid_effective_date'],
      ['a source with a lone surrogate', { source: 'Terms \ud83d' }, 'invalid_content'],
      ['an empty source', { source: '' }, 'invalid_request'],
      ['a 4001-character change summary', { changeSummary: 'a'.repeat(4001) }, 'invalid_request'],
      ['an unknown field', { author: 'me' }, 'invalid_request'],
    ])('refuses %s with 400', async (_name, fields, code) => {
      expect(outcome(await create(fields))).toBe(`400 ${code}`);
    });

    it('applies the same rules to PATCH, where absent keys stay unchanged and null is refused', async () => {
      const created = await create({});
      const draft = (created.json as { draft: { id?: string; draftId?: string } }).draft;
      const path = `/v1/drafts/${draft.id ?? draft.draftId}`;
      const patch = (body: unknown) => send(service.baseUrl, 'PATCH', path, { body: JSON.stringify(body), session: fixture.session });
      expect(outcome(await patch({ title: 'Line\nbreak' }))).toBe('400 invalid_request');
      expect(outcome(await patch({ title: null }))).toBe('400 invalid_request');
      expect(outcome(await patch({ versionLabel: null }))).toBe('400 invalid_request');
      expect(outcome(await patch({ source: null }))).toBe('400 invalid_request');
      expect(outcome(await patch({ effectiveAt: 2 ** 53 }))).toBe('400 invalid_effective_date');
      expect(outcome(await patch({ source: '\udfff' }))).toBe('400 invalid_content');
      expect(outcome(await patch({ title: 'é'.repeat(200), effectiveAt: null }))).toBe('200 ok');
      expect(outcome(await post(`${path}/prepare`, {}, true))).toBe('200 ok');
    });

    it('a draft refused for its title stores nothing, not even the new source it came with', async () => {
      const events = service.app.get<EventStore>(EVENT_STORE);
      const created = await create({});
      const draft = (created.json as { draft: { id: string } }).draft;
      const head = await events.headPosition();
      const source = `# Terms\n\nA source this test sends once: ${Math.random()}\n`;
      expect(outcome(await create({ title: '😀'.repeat(200), source }))).toBe('400 invalid_request');
      const patched = await send(service.baseUrl, 'PATCH', `/v1/drafts/${draft.id}`, { body: JSON.stringify({ title: '😀'.repeat(200), source }), session: fixture.session });
      expect(outcome(patched)).toBe('400 invalid_request');
      expect(await events.headPosition()).toBe(head);
    });
  });
});
