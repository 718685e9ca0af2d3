import { address, generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { buildPublicationTransaction, encodeMemo, versionFingerprint } from '@svc/evidence';
import { getTransferSolInstruction } from '@solana-program/system';
import { ApiClient } from '../apps/cli/src/api-client';
import { codeOf } from './support/durability';
import { acceptAsWallet, createDocumentOnLedger, createOrganizationOnLedger, signIn, signText, writeMemberOnLedger } from '../apps/cli/src/operations';
import { publishedDocument, termsOfService } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';
import { buildTransaction, memoInstruction } from '../libs/ledger/src/testing/test-transactions';

describe('dashboard sign-in, sessions and publishing', () => {
  let service: TestService;
  let client: ApiClient;

  beforeAll(async () => {
    service = await startTestService({ env: { RATE_LIMIT_SIGNIN_PER_MINUTE: '1000' } });
    client = new ApiClient(service.baseUrl);
  });
  afterAll(() => service.destroy());

  it('signs in with a Sign-In-With-Solana style message and a single-use nonce', async () => {
    const wallet = await generateKeyPairSigner();
    const challenge = await client.request<{ message: string; nonce: string; expiresAt: string }>('POST', '/v1/auth/challenge', { address: wallet.address });
    const network = await client.request<{ chainId: string }>('GET', '/v1/network');
    expect(challenge.message).toContain(`wants you to sign in with your Solana account:\n${wallet.address}`);
    expect(challenge.message).toContain(`URI: ${service.baseUrl}`);
    expect(challenge.message).toContain(`Chain ID: ${network.chainId}`);
    expect(challenge.message).toContain(`Nonce: ${challenge.nonce}`);
    expect(Date.parse(challenge.expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(Date.parse(challenge.expiresAt) - Date.now()).toBeLessThanOrEqual(10 * 60_000);

    const signature = await signText(wallet, challenge.message);
    const body = { address: wallet.address, signedMessage: challenge.message, signature };
    const first = await client.raw('POST', '/v1/auth/verify', body);
    expect(first.response.status).toBe(200);
    const setCookie = first.response.headers.getSetCookie().join('\n');
    expect(setCookie).toMatch(/svc_session=[^;]+;.*HttpOnly/i);
    expect(setCookie).toMatch(/svc_csrf=/);
    // The nonce is single use.
    expect(await codeOf(client.request('POST', '/v1/auth/verify', body))).toBe('401 unauthorized');
  });

  it('refuses a bad signature and a message other than the one issued', async () => {
    const wallet = await generateKeyPairSigner();
    const other = await generateKeyPairSigner();
    const challenge = await client.request<{ message: string }>('POST', '/v1/auth/challenge', { address: wallet.address });
    const forged = await signText(other, challenge.message);
    expect(await codeOf(client.request('POST', '/v1/auth/verify', { address: wallet.address, signedMessage: challenge.message, signature: forged }))).toBe('400 invalid_signature');
    const altered = challenge.message.replace('Sign in to', 'Log in to');
    expect(await codeOf(client.request('POST', '/v1/auth/verify', { address: wallet.address, signedMessage: altered, signature: await signText(wallet, altered) }))).toBe('401 unauthorized');
    expect(await codeOf(client.request('POST', '/v1/auth/challenge', { address: 'nope' }))).toBe('400 invalid_address');
  });

  it('guards the dashboard: 403 without a session (spec §7 "session required"), 403 without the CSRF header or from another origin, logout ends it', async () => {
    const wallet = await generateKeyPairSigner();
    expect(await codeOf(client.request('GET', '/v1/auth/me'))).toBe('403 forbidden');
    const session = await signIn(client, wallet);
    const dashboard = new ApiClient(service.baseUrl).useSession(session);
    const me = await dashboard.request<{ address: string; freshUntil: string }>('GET', '/v1/auth/me');
    expect(me.address).toBe(wallet.address);

    const cookie = `svc_session=${session.session}; svc_csrf=${session.csrf}`;
    const noCsrf = await fetch(`${service.baseUrl}/api/v1/organizations/sync`, {
      method: 'POST',
      headers: { cookie, origin: service.baseUrl, 'content-type': 'application/json' },
      body: JSON.stringify({ address: wallet.address }),
    });
    expect(noCsrf.status).toBe(403);
    expect(((await noCsrf.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    const foreign = await fetch(`${service.baseUrl}/api/v1/organizations/sync`, {
      method: 'POST',
      headers: { cookie, origin: 'https://evil.example', 'x-csrf-token': session.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ address: wallet.address }),
    });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('forbidden');

    await dashboard.request('POST', '/v1/auth/logout');
    expect(await codeOf(dashboard.request('GET', '/v1/auth/me'))).toBe('403 forbidden');
  });

  it('publishes versions read from the ledger and lists them; refuses what is not a publication', async () => {
    const doc = await publishedDocument(service, [1, 2]);
    const orgs = await doc.dashboard.request<{ organizations: { id: string; address: string; name: string }[] }>('GET', '/v1/organizations');
    expect(orgs.organizations.map((o) => o.address)).toEqual([doc.organization.address]);
    const documents = await doc.dashboard.request<{ documents: { slug: string; currentVersion: { number: number } }[] }>('GET', `/v1/organizations/${doc.organization.id}/documents`);
    expect(documents.documents).toHaveLength(1);
    expect(documents.documents[0].currentVersion.number).toBe(2);
    const detail = await doc.dashboard.request<{ versions: { number: number; address: string }[] }>('GET', `/v1/documents/${doc.document.id}`);
    expect(detail.versions.map((v) => v.number)).toEqual([1, 2]);

    // A transfer is a transaction, but not a publication.
    const other = await generateKeyPairSigner();
    const { wire } = await buildTransaction(await doc.ledger.getLatestBlockhash(), doc.owner, [getTransferSolInstruction({ source: doc.owner, destination: other.address, amount: 1_000_000n })]);
    const signature = await doc.ledger.sendTransaction(wire);
    expect(await codeOf(doc.dashboard.request('POST', '/v1/publications/confirm', { signature }))).toBe('400 not_a_publication');
    expect(await codeOf(doc.dashboard.request('POST', '/v1/publications/confirm', { signature: '1'.repeat(64) }))).toBe('404 not_found');
    expect(await codeOf(doc.dashboard.request('POST', '/v1/publications/confirm', { signature: 'short' }))).toBe('400 invalid_signature');
    // Re-confirming a recorded publication is harmless and returns the same version.
    const again = await doc.dashboard.request<{ version: { address: string } }>('POST', '/v1/publications/confirm', { signature: doc.versions[1].transactionSignature });
    expect(again.version.address).toBe(doc.versions[1].address);
  });

  it('records a version only from the publication that created its address: a fresh key, not the wallet, not one used before (docs/protocol.md §7.1–7.2)', async () => {
    const doc = await publishedDocument(service, [1]);
    type Publication = { document: string; number: number; label: string; title: string; contentHash: string; fingerprint: string; effectiveAt: number | null };
    const prepareDraft = async (n: 2 | 3 | 4) => {
      const { draft } = await doc.dashboard.request<{ draft: { id: string } }>('POST', `/v1/documents/${doc.document.id}/drafts`, { title: 'Terms of Service', versionLabel: `v${n}`, source: termsOfService(n), effectiveAt: null });
      const { publication } = await doc.dashboard.request<{ publication: Publication }>('POST', `/v1/drafts/${draft.id}/prepare`);
      return { draftId: draft.id, publication };
    };
    const land = async (publication: Publication, version: KeyPairSigner) => {
      const tx = await buildPublicationTransaction({ authority: doc.owner, version, ...publication, lifetime: await doc.ledger.getLatestBlockhash() });
      return doc.ledger.sendTransaction(tx.wire, { commitment: 'confirmed' });
    };
    const confirm = (signature: string) => doc.dashboard.request<{ version: { address: string; number: number } }>('POST', '/v1/publications/confirm', { signature });
    const recorded = async () => (await doc.dashboard.request<{ versions: { number: number; address: string }[] }>('GET', `/v1/documents/${doc.document.id}`)).versions;
    const draftStatus = async (draftId: string) => (await doc.dashboard.request<{ draft: { status: string } }>('GET', `/v1/drafts/${draftId}`)).draft.status;

    // The wallet as the version's address (the record's memo signed by the wallet alone, which the Memo program
    // allows): the ledger's oldest transaction of that address is not this publication.
    const two = await prepareDraft(2);
    const walletOnly = await buildTransaction(await doc.ledger.getLatestBlockhash(), doc.owner, [
      memoInstruction({ memo: encodeMemo({ kind: 'ver', ...two.publication }), signers: [doc.owner] }),
    ]);
    const byWallet = await doc.ledger.sendTransaction(walletOnly.wire, { commitment: 'confirmed' });
    expect(await codeOf(confirm(byWallet))).toBe('409 chain_state');
    expect((await recorded()).map((v) => v.number)).toEqual([1]);
    expect(await draftStatus(two.draftId)).toBe('prepared');

    // The same draft published with a fresh key is version 2.
    const key = await generateKeyPairSigner();
    const v2 = await confirm(await land(two.publication, key));
    expect(v2.version).toMatchObject({ address: key.address, number: 2 });

    // The same key again for the next version: refused, nothing recorded, the draft still prepared.
    const three = await prepareDraft(3);
    const reused = await land(three.publication, key);
    expect(await codeOf(confirm(reused))).toBe('409 chain_state');
    expect((await recorded()).map((v) => [v.number, v.address])).toEqual([
      [1, doc.versions[0].address],
      [2, key.address],
    ]);
    expect(await draftStatus(three.draftId)).toBe('prepared');
    // That record is no version (its address was created before), so it takes no number: another text still
    // prepares as version 3.
    const rival = await prepareDraft(4);
    expect(rival.publication.number).toBe(3);
    await doc.dashboard.request('POST', `/v1/drafts/${rival.draftId}/abandon`);
    const { version: v3 } = await confirm(await land(three.publication, await generateKeyPairSigner()));
    expect(v3.number).toBe(3);
    expect(await draftStatus(three.draftId)).toBe('published');
  });

  it('refuses a publication that failed on the ledger with transaction_failed, to the wallets that may confirm it; others get 404 or 403 as for any confirm', async () => {
    const doc = await publishedDocument(service, [1]);
    const { draft } = await doc.dashboard.request<{ draft: { id: string } }>('POST', `/v1/documents/${doc.document.id}/drafts`, { title: 'Terms of Service', versionLabel: 'v2', source: termsOfService(2) });
    type Publication = { document: string; number: number; label: string; title: string; contentHash: string; fingerprint: string; effectiveAt: number | null };
    const { publication } = await doc.dashboard.request<{ publication: Publication }>('POST', `/v1/drafts/${draft.id}/prepare`);
    // The prepared record, co-signed by a fresh version key and the wallet, followed by a transfer the wallet cannot pay.
    const land = async (memo: string, signers: KeyPairSigner[]) => {
      const { wire, signature } = await buildTransaction(await doc.ledger.getLatestBlockhash(), doc.owner, [
        memoInstruction({ memo, signers }),
        getTransferSolInstruction({ source: doc.owner, destination: address(doc.organization.address), amount: 10n ** 15n }),
      ]);
      await expect(doc.ledger.sendTransaction(wire, { skipPreflight: true, commitment: 'confirmed' })).rejects.toMatchObject({ landed: true });
      return signature;
    };
    const failed = await land(encodeMemo({ kind: 'ver', ...publication }), [await generateKeyPairSigner(), doc.owner]);
    const confirm = (client: ApiClient) => codeOf(client.request('POST', '/v1/publications/confirm', { signature: failed }));

    const admin = await generateKeyPairSigner();
    await writeMemberOnLedger(doc.ledger, doc.owner, { organization: doc.organization.address, member: admin.address, roles: ['admin'], active: true });
    await doc.dashboard.request('POST', `/v1/organizations/${doc.organization.id}/refresh`);
    const other = await publishedDocument(service, []);
    const stranger = new ApiClient(service.baseUrl).useSession(await signIn(client, await generateKeyPairSigner()));
    const asAdmin = new ApiClient(service.baseUrl).useSession(await signIn(client, admin));
    expect([await confirm(doc.dashboard), await confirm(asAdmin), await confirm(other.dashboard), await confirm(stranger)]).toEqual([
      '409 transaction_failed',
      '403 forbidden',
      '404 not_found',
      '404 not_found',
    ]);
    // A failed transaction that carries no version record is not a publication, whoever asks.
    const notPublication = await land('hello', [doc.owner]);
    expect(await codeOf(stranger.request('POST', '/v1/publications/confirm', { signature: notPublication }))).toBe('400 not_a_publication');
    // Nothing was recorded: the draft is still prepared, and the same record landed successfully is version 2.
    expect((await doc.dashboard.request<{ draft: { status: string } }>('GET', `/v1/drafts/${draft.id}`)).draft.status).toBe('prepared');
    const tx = await buildPublicationTransaction({ ...publication, authority: doc.owner, version: await generateKeyPairSigner(), lifetime: await doc.ledger.getLatestBlockhash() });
    const landed = await doc.ledger.sendTransaction(tx.wire, { commitment: 'confirmed' });
    expect((await doc.dashboard.request<{ version: { number: number } }>('POST', '/v1/publications/confirm', { signature: landed })).version.number).toBe(2);
  });

  it('refuses to prepare a number the organization\'s wallet already took on the ledger without a draft, and records that version from a draft with its text', async () => {
    const doc = await publishedDocument(service, [1]);
    type Publication = { organization: string; document: string; number: number; label: string; title: string; contentHash: string; fingerprint: string; effectiveAt: number | null };
    const draftOf = async (n: 2 | 3) => (await doc.dashboard.request<{ draft: { id: string } }>('POST', `/v1/documents/${doc.document.id}/drafts`, { title: 'Terms of Service', versionLabel: `v${n}`, source: termsOfService(n) })).draft.id;
    const prepare = (draftId: string) => doc.dashboard.request<{ publication: Publication }>('POST', `/v1/drafts/${draftId}/prepare`);
    // Records confirming would refuse take no number: one skipping a number, one whose fingerprint is not its fields'.
    const land = async (fields: Publication) => {
      const built = await buildPublicationTransaction({ ...fields, authority: doc.owner, version: await generateKeyPairSigner(), lifetime: await doc.ledger.getLatestBlockhash() });
      return doc.ledger.sendTransaction(built.wire, { commitment: 'confirmed' });
    };
    const probe = await draftOf(2);
    const fields = (await prepare(probe)).publication;
    await doc.dashboard.request('POST', `/v1/drafts/${probe}/abandon`);
    await land({ ...fields, fingerprint: '0'.repeat(64) });
    const skipping = { ...fields, number: 5 };
    await land({ ...skipping, fingerprint: versionFingerprint(skipping) });
    // Version 2 lands on the ledger from the wallet alone: its draft was abandoned, so the service holds no draft of it.
    const abandoned = await draftOf(2);
    const { publication } = await prepare(abandoned);
    await doc.dashboard.request('POST', `/v1/drafts/${abandoned}/abandon`);
    const outOfBand = await land(publication);
    expect(await codeOf(doc.dashboard.request('POST', '/v1/publications/confirm', { signature: outOfBand }))).toBe('409 chain_state');

    // Another text cannot be prepared as version 2 (the ledger would hold two versions 2), and the refusal says why.
    const other = await draftOf(3);
    await expect(doc.dashboard.request('POST', `/v1/drafts/${other}/prepare`)).rejects.toMatchObject({ status: 409, code: 'version_superseded', message: expect.stringContaining(outOfBand) });
    expect((await doc.dashboard.request<{ draft: { status: string } }>('GET', `/v1/drafts/${other}`)).draft.status).toBe('open');
    // Access refusals come first: a stranger learns nothing about the ledger through this draft.
    const stranger = new ApiClient(service.baseUrl).useSession(await signIn(client, await generateKeyPairSigner()));
    expect(await codeOf(stranger.request('POST', `/v1/drafts/${other}/prepare`))).toBe('404 not_found');

    // The same text, title, label and date prepared again is that version: confirming the landed transaction records it.
    const same = await prepare(await draftOf(2));
    expect(same.publication.fingerprint).toBe(publication.fingerprint);
    const confirmed = await doc.dashboard.request<{ version: { number: number; transactionSignature: string } }>('POST', '/v1/publications/confirm', { signature: outOfBand });
    expect(confirmed.version).toMatchObject({ number: 2, transactionSignature: outOfBand });
    expect((await prepare(other)).publication.number).toBe(3);
  });

  it('refuses a second document with a slug another document of the organization holds (a slug names one document)', async () => {
    const doc = await publishedDocument(service, [1]);
    const twin = await createDocumentOnLedger(doc.ledger, doc.owner, doc.organization.address, doc.document.slug, 'Terms of Service, again');
    const sync = (address: string) => doc.dashboard.request<{ document: { slug: string } }>('POST', `/v1/organizations/${doc.organization.id}/documents/sync`, { address });
    await expect(sync(twin.address)).rejects.toMatchObject({ status: 409, code: 'chain_state', message: expect.stringContaining(doc.document.address) });
    // The document holding the slug syncs again as before; another slug is another document.
    expect((await sync(doc.document.address)).document.slug).toBe(doc.document.slug);
    const privacy = await createDocumentOnLedger(doc.ledger, doc.owner, doc.organization.address, 'privacy', 'Privacy Statement');
    expect((await sync(privacy.address)).document.slug).toBe('privacy');
    const page = await client.request<{ document: { address: string } }>('GET', `/v1/public/organizations/${doc.organization.address}/documents/${doc.document.slug}`);
    expect(page.document.address).toBe(doc.document.address);
  });

  it('keeps drafts consistent: validation, abandon, and no edits after publication', async () => {
    const doc = await publishedDocument(service, []);
    const base = `/v1/documents/${doc.document.id}/drafts`;
    expect(await codeOf(doc.dashboard.request('POST', base, { title: 'T', versionLabel: 'v1', source: 'x', effectiveAt: -5 }))).toBe('400 invalid_effective_date');
    expect(await codeOf(doc.dashboard.request('POST', base, { title: 'T', versionLabel: 'way-too-long-label', source: 'x' }))).toBe('400 invalid_request');
    const { draft } = await doc.dashboard.request<{ draft: { id: string; status: string } }>('POST', base, { title: 'Terms', versionLabel: 'v1', source: termsOfService(1) });
    expect(draft.status).toBe('open');
    const abandoned = await doc.dashboard.request<{ draft: { status: string } }>('POST', `/v1/drafts/${draft.id}/abandon`);
    expect(abandoned.draft.status).toBe('abandoned');
    expect(await codeOf(doc.dashboard.request('POST', `/v1/drafts/${draft.id}/prepare`))).toBe('409 draft_closed');
    const version = await doc.publish(1);
    const detail = await doc.dashboard.request<{ versions: { address: string }[] }>('GET', `/v1/documents/${doc.document.id}`);
    expect(detail.versions.map((v) => v.address)).toEqual([version.address]);
    const drafts = await doc.dashboard.request<{ draft: { id: string } }>('POST', base, { title: 'Terms', versionLabel: 'v2', source: termsOfService(2) });
    expect(drafts.draft.id).toBeTruthy();
  });

  it('hides other organizations (404) and refuses to sync an organization of another wallet (403)', async () => {
    const doc = await publishedDocument(service, [1]);
    const intruder = await generateKeyPairSigner();
    const intruderClient = new ApiClient(service.baseUrl).useSession(await signIn(client, intruder));
    expect(await codeOf(intruderClient.request('GET', `/v1/organizations/${doc.organization.id}`))).toBe('404 not_found');
    expect(await codeOf(intruderClient.request('POST', '/v1/organizations/sync', { address: doc.organization.address }))).toBe('403 forbidden');
    expect(await codeOf(intruderClient.request('GET', '/v1/organizations/not-a-uuid'))).toBe('400 invalid_request');
    // An acceptance is public evidence; the public organization page lists the document.
    const signer = await generateKeyPairSigner();
    await acceptAsWallet(client, signer, { organization: doc.organization.address, document: doc.document.address, origin: 'https://a.example' });
    const pub = await client.request<{ organization: { documents: { slug: string }[] } }>('GET', `/v1/public/organizations/${doc.organization.address}`);
    expect(pub.organization.documents.map((d) => d.slug)).toEqual(['terms-of-service']);
  });

  it('answers syncs, refreshes and revocations sent at once (a double click) with the one record they share', async () => {
    const doc = await publishedDocument(service, [1]);
    const org = await createOrganizationOnLedger(doc.ledger, doc.owner, 'Concurrent Sync Ltd.', null);
    type Synced = { id: string; address: string };
    const orgs = await Promise.all(Array.from({ length: 5 }, () => doc.dashboard.request<{ organization: Synced }>('POST', '/v1/organizations/sync', { address: org.address })));
    expect(new Set(orgs.map((o) => o.organization.id)).size).toBe(1);
    const organizationId = orgs[0]!.organization.id;
    const refreshed = await Promise.all(Array.from({ length: 3 }, () => doc.dashboard.request<{ organization: Synced }>('POST', `/v1/organizations/${organizationId}/refresh`)));
    expect(refreshed.map((o) => o.organization.id)).toEqual([organizationId, organizationId, organizationId]);
    const ledgerDoc = await createDocumentOnLedger(doc.ledger, doc.owner, org.address, 'privacy', 'Privacy Statement');
    const docs = await Promise.all(
      Array.from({ length: 5 }, () => doc.dashboard.request<{ document: Synced }>('POST', `/v1/organizations/${organizationId}/documents/sync`, { address: ledgerDoc.address })),
    );
    expect(new Set(docs.map((d) => d.document.id)).size).toBe(1);
    const listed = await doc.dashboard.request<{ documents: Synced[] }>('GET', `/v1/organizations/${organizationId}/documents`);
    expect(listed.documents.map((d) => d.id)).toEqual([docs[0]!.document.id]);

    const created = await doc.dashboard.request<{ apiKey: { id: string } }>('POST', `/v1/organizations/${organizationId}/api-keys`, { name: 'ci', scopes: ['acceptances:read'] });
    const revoked = await Promise.all(
      Array.from({ length: 4 }, () => doc.dashboard.request<{ apiKey: { status: string } }>('DELETE', `/v1/organizations/${organizationId}/api-keys/${created.apiKey.id}`)),
    );
    expect(revoked.map((r) => r.apiKey.status)).toEqual(['revoked', 'revoked', 'revoked', 'revoked']);
  });
});
