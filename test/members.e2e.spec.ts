/**
 * Members and roles over real HTTP (spec §4.10, §5; docs/api.md "Members and roles"): member records written on the
 * ledger by the organization's wallet, read by refresh; a publisher may prepare drafts but not act as an admin; a
 * non-member sees 404; labels are the dashboard's own.
 */
import { generateKeyPairSigner, lamports } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { AdjustableClock } from '@svc/application';
import { LEDGER, type Ledger } from '@svc/ledger';
import { buildTransaction } from '../libs/ledger/src/testing/test-transactions';
import { buildPublicationTransaction, type VersionFields } from '@svc/evidence';
import { ApiClient } from '../apps/cli/src/api-client';
import { codeOf } from './support/durability';
import { signIn, writeMemberOnLedger } from '../apps/cli/src/operations';
import { publishedDocument, termsOfService, type PublishedDocument } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';

interface OrgView {
  id: string;
  address: string;
  members: { address: string; roles: string[]; label: string | null }[];
}

/** The `publication` of `POST /v1/drafts/{id}/prepare`: the fields of the version record to sign. */
type PreparedPublication = VersionFields & { fingerprint: string };

describe('members and roles', () => {
  let service: TestService;
  let doc: PublishedDocument;

  beforeAll(async () => {
    service = await startTestService({ env: { RATE_LIMIT_SIGNIN_PER_MINUTE: '1000' } });
    doc = await publishedDocument(service, [1]);
  });
  afterAll(() => service.destroy());

  const session = async (wallet: Awaited<ReturnType<typeof generateKeyPairSigner>>) =>
    new ApiClient(service.baseUrl).useSession(await signIn(new ApiClient(service.baseUrl), wallet));

  it('reads member records from the ledger on refresh: a publisher drafts, prepares and confirms what the organization wallet co-signed, is refused admin work, sees the organization listed', async () => {
    const publisher = await generateKeyPairSigner();
    const stranger = await generateKeyPairSigner();
    const asPublisher = await session(publisher);
    const asStranger = await session(stranger);
    const orgPath = `/v1/organizations/${doc.organization.id}`;

    // Before the record: not a member, so the organization does not exist for this wallet.
    expect(await codeOf(asPublisher.request('GET', orgPath))).toBe('404 not_found');
    await writeMemberOnLedger(doc.ledger, doc.owner, { organization: doc.organization.address, member: publisher.address, roles: ['publisher'], active: true });
    const refreshed = await doc.dashboard.request<{ organization: OrgView }>('POST', `${orgPath}/refresh`);
    expect(refreshed.organization.members).toEqual([
      { address: doc.owner.address, roles: ['owner', 'admin', 'publisher'], label: null },
      { address: publisher.address, roles: ['publisher'], label: null },
    ]);

    const listed = await asPublisher.request<{ organizations: OrgView[] }>('GET', '/v1/organizations');
    expect(listed.organizations.map((o) => o.id)).toEqual([doc.organization.id]);
    expect((await asStranger.request<{ organizations: OrgView[] }>('GET', '/v1/organizations')).organizations).toEqual([]);

    // A publisher prepares a draft...
    const { draft } = await asPublisher.request<{ draft: { id: string } }>('POST', `/v1/documents/${doc.document.id}/drafts`, { title: 'Terms of Service', versionLabel: 'v2', source: termsOfService(2) });
    const prepared = await asPublisher.request<{ draft: { status: string }; publication: PreparedPublication }>('POST', `/v1/drafts/${draft.id}/prepare`);
    expect(prepared.draft.status).toBe('prepared');
    // A version whose record only the publisher's own key co-signed would not verify as the organization's
    // (docs/protocol.md §7.2): refused, and the draft stays prepared.
    await doc.ledger.requestAirdrop(publisher.address, 100_000_000n);
    const ownKey = await buildPublicationTransaction({ authority: publisher, version: await generateKeyPairSigner(), ...prepared.publication, lifetime: await doc.ledger.getLatestBlockhash() });
    await doc.ledger.sendTransaction(ownKey.wire, { commitment: 'confirmed' });
    expect(await codeOf(asPublisher.request('POST', '/v1/publications/confirm', { signature: ownKey.signature }))).toBe('409 chain_state');
    expect((await asPublisher.request<{ draft: { status: string } }>('GET', `/v1/drafts/${draft.id}`)).draft.status).toBe('prepared');
    // Co-signed by the organization's wallet, the publisher confirms it.
    const versionKey = await generateKeyPairSigner();
    const cosigned = await buildPublicationTransaction({ authority: doc.owner, version: versionKey, ...prepared.publication, lifetime: await doc.ledger.getLatestBlockhash() });
    await doc.ledger.sendTransaction(cosigned.wire, { commitment: 'confirmed' });
    const confirmed = await asPublisher.request<{ version: { address: string; number: number } }>('POST', '/v1/publications/confirm', { signature: cosigned.signature });
    expect(confirmed.version).toMatchObject({ address: versionKey.address, number: 2 });
    // ...but may not do what owners and admins do.
    expect(await codeOf(asPublisher.request('PATCH', `${orgPath}/members/${publisher.address}`, { label: 'me' }))).toBe('403 forbidden');
    // A non-member gets 404 everywhere.
    expect(await codeOf(asStranger.request('GET', orgPath))).toBe('404 not_found');
    expect(await codeOf(asStranger.request('PATCH', `${orgPath}/members/${publisher.address}`, { label: 'x' }))).toBe('404 not_found');
    expect(await codeOf(asStranger.request('POST', `/v1/drafts/${draft.id}/prepare`))).toBe('404 not_found');
  });

  it('an admin without the publisher role may label members but not prepare drafts; a revoked member loses access', async () => {
    const admin = await generateKeyPairSigner();
    const asAdmin = await session(admin);
    const orgPath = `/v1/organizations/${doc.organization.id}`;
    await writeMemberOnLedger(doc.ledger, doc.owner, { organization: doc.organization.address, member: admin.address, roles: ['admin'], active: true });
    await doc.dashboard.request('POST', `${orgPath}/refresh`);

    const labelled = await asAdmin.request<{ organization: OrgView }>('PATCH', `${orgPath}/members/${doc.owner.address}`, { label: 'Founder' });
    expect(labelled.organization.members.find((m) => m.address === doc.owner.address)?.label).toBe('Founder');
    const cleared = await asAdmin.request<{ organization: OrgView }>('PATCH', `${orgPath}/members/${doc.owner.address}`, { label: null });
    expect(cleared.organization.members.find((m) => m.address === doc.owner.address)?.label).toBeNull();
    expect(await codeOf(asAdmin.request('POST', `/v1/documents/${doc.document.id}/drafts`, { title: 'T', versionLabel: 'v9', source: 'x' }))).toBe('403 forbidden');

    await writeMemberOnLedger(doc.ledger, doc.owner, { organization: doc.organization.address, member: admin.address, roles: [], active: false });
    const after = await doc.dashboard.request<{ organization: OrgView }>('POST', `${orgPath}/refresh`);
    expect(after.organization.members.map((m) => m.address)).not.toContain(admin.address);
    expect(await codeOf(asAdmin.request('GET', orgPath))).toBe('404 not_found');
  });

  it('applies a revocation buried under more than 10,000 later transfers to the wallet', async () => {
    const admin = await generateKeyPairSigner();
    const asAdmin = await session(admin);
    const orgPath = `/v1/organizations/${doc.organization.id}`;
    await writeMemberOnLedger(doc.ledger, doc.owner, { organization: doc.organization.address, member: admin.address, roles: ['admin'], active: true });
    await doc.dashboard.request('POST', `${orgPath}/refresh`);
    expect((await asAdmin.request<{ organization: OrgView }>('GET', orgPath)).organization.members.map((m) => m.address)).toContain(admin.address);

    await writeMemberOnLedger(doc.ledger, doc.owner, { organization: doc.organization.address, member: admin.address, roles: [], active: false });
    // Anyone may send to the organization's wallet: 10,001 transfers after the revocation.
    const ledger = service.app.get<Ledger>(LEDGER);
    const sender = await generateKeyPairSigner();
    await ledger.requestAirdrop(sender.address, 1_000_000_000n);
    let lifetime = await ledger.getLatestBlockhash();
    for (let i = 0; i < 10_001; i++) {
      if (i % 500 === 0) lifetime = await ledger.getLatestBlockhash();
      const transfer = await buildTransaction(lifetime, sender, [getTransferSolInstruction({ source: sender, destination: doc.owner.address, amount: lamports(BigInt(1 + i)) })]);
      await ledger.sendTransaction(transfer.wire, { commitment: 'processed' });
    }

    const after = await doc.dashboard.request<{ organization: OrgView }>('POST', `${orgPath}/refresh`);
    expect(after.organization.members.map((m) => m.address)).not.toContain(admin.address);
    expect(await codeOf(asAdmin.request('GET', orgPath))).toBe('404 not_found');
  });

  it('validates the label request: required key, at most 80 characters or null, nothing else, a member address', async () => {
    const orgPath = `/v1/organizations/${doc.organization.id}/members/${doc.owner.address}`;
    expect(await codeOf(doc.dashboard.request('PATCH', orgPath, {}))).toBe('400 invalid_request');
    expect(await codeOf(doc.dashboard.request('PATCH', orgPath, { label: 'x'.repeat(81) }))).toBe('400 invalid_request');
    expect(await codeOf(doc.dashboard.request('PATCH', orgPath, { label: 5 }))).toBe('400 invalid_request');
    expect(await codeOf(doc.dashboard.request('PATCH', orgPath, { label: 'ok', role: 'admin' }))).toBe('400 invalid_request');
    expect(await codeOf(doc.dashboard.request('PATCH', `/v1/organizations/${doc.organization.id}/members/nope`, { label: 'ok' }))).toBe('400 invalid_address');
    const unknown = await generateKeyPairSigner();
    expect(await codeOf(doc.dashboard.request('PATCH', `/v1/organizations/${doc.organization.id}/members/${unknown.address}`, { label: 'ok' }))).toBe('404 not_found');
    expect(await codeOf(doc.dashboard.request('PATCH', orgPath, { label: 'x'.repeat(80) }))).toBe('ok');
    // Display text: characters are code points (80 emoji fit), and control characters or unpaired surrogates do not.
    expect(await codeOf(doc.dashboard.request('PATCH', orgPath, { label: '🙂'.repeat(80) }))).toBe('ok');
    for (const label of ['a\u0000b', 'two\nlines', 'tab\there', '\ud800', 'del\u007f']) {
      expect([label, await codeOf(doc.dashboard.request('PATCH', orgPath, { label }))]).toEqual([label, '400 invalid_request']);
    }
  });
});

describe('operations that need a fresh signature, after the window', () => {
  let service: TestService;
  let doc: PublishedDocument;
  const clock = new AdjustableClock();

  beforeAll(async () => {
    service = await startTestService({ clock, env: { RATE_LIMIT_SIGNIN_PER_MINUTE: '1000' } });
    doc = await publishedDocument(service, [1]);
  });
  afterAll(() => service.destroy());

  it('answer a non-member 404 and a publisher 403 forbidden, as when the signature is fresh; only the owner and admins are asked to re-sign', async () => {
    const [admin, publisher, stranger] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
    for (const [member, roles] of [[admin, ['admin']], [publisher, ['publisher']]] as const) {
      await writeMemberOnLedger(doc.ledger, doc.owner, { organization: doc.organization.address, member: member.address, roles: [...roles], active: true });
    }
    const orgPath = `/v1/organizations/${doc.organization.id}`;
    await doc.dashboard.request('POST', `${orgPath}/refresh`);
    const clients = {
      owner: doc.dashboard,
      admin: new ApiClient(service.baseUrl).useSession(await signIn(new ApiClient(service.baseUrl), admin)),
      publisher: new ApiClient(service.baseUrl).useSession(await signIn(new ApiClient(service.baseUrl), publisher)),
      stranger: new ApiClient(service.baseUrl).useSession(await signIn(new ApiClient(service.baseUrl), stranger)),
    };
    const someId = '4d3c2b1a-0f9e-4d8c-8b7a-6f5e4d3c2b1a';
    const operations: [string, string, unknown][] = [
      ['POST', `${orgPath}/api-keys`, { name: 'Checkout server', scopes: ['acceptances:read'] }],
      ['POST', `${orgPath}/webhooks`, { url: 'https://hooks.example.com/agreements', events: ['agreement.accepted'] }],
      ['POST', `${orgPath}/webhooks/${someId}/rotate-secret`, undefined],
      ['POST', `${orgPath}/domains/${someId}/revoke`, undefined],
    ];
    const answers = async () => {
      const seen: Record<string, string[]> = {};
      for (const [who, client] of Object.entries(clients)) {
        seen[who] = await Promise.all(operations.map(([method, path, body]) => codeOf(client.request(method, path, body))));
      }
      return seen;
    };
    // Fresh: the stranger and the publisher are refused by access, the managers get past it.
    const fresh = await answers();
    expect(fresh.stranger).toEqual(Array(4).fill('404 not_found'));
    expect(fresh.publisher).toEqual(Array(4).fill('403 forbidden'));

    clock.advance(11 * 60);
    expect(await answers()).toEqual({
      owner: Array(4).fill('403 reauthentication_required'),
      admin: Array(4).fill('403 reauthentication_required'),
      publisher: Array(4).fill('403 forbidden'),
      stranger: Array(4).fill('404 not_found'),
    });
  });
});
