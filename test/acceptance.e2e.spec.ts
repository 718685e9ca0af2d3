import { LEDGER, toSignature, type Ledger } from '@svc/ledger';
import { getTransferSolInstruction } from '@solana-program/system';
import { generateKeyPairSigner, lamports, type Address, type KeyPairSigner } from '@solana/kit';
import { base58ToBytes, buildAcceptanceTransaction, buildPublicationTransaction, acceptanceIdOf } from '@svc/evidence';
import { ApiClient, ApiError } from '../apps/cli/src/api-client';
import { acceptAsWallet, signText } from '../apps/cli/src/operations';
import { publishedDocument, termsOfService, type PublishedDocument } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS } from '@svc/projections';
import { buildTransaction, memoInstruction } from '../libs/ledger/src/testing/test-transactions';

const ORIGIN = 'https://shop.example.com';

/** An answer of `GET /v1/public/acceptances/{id}/receipt`: the receipt and its report, or the error envelope. */
interface ReceiptAnswer {
  receipt?: Record<string, unknown>;
  report?: { verdict: string };
  error?: { code: string; message: string };
}

async function expectApiError(promise: Promise<unknown>, status: number, code: string): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect({ status: e.status, code: e.code }).toEqual({ status, code });
    return e;
  }
  throw new Error(`expected ${status} ${code}, but the request succeeded`);
}

describe('wallet acceptance (challenge, submit, relay) against the embedded stores and ledger', () => {
  let service: TestService;
  let client: ApiClient;
  let doc: PublishedDocument;

  beforeAll(async () => {
    service = await startTestService({ env: { RATE_LIMIT_ACCEPTANCE_PER_MINUTE: '10000', RATE_LIMIT_GENERAL_PER_MINUTE: '100000', LEDGER_AIRDROPS_PER_MINUTE: '1000' } });
    client = new ApiClient(service.baseUrl);
    doc = await publishedDocument(service, [1]);
  });
  afterAll(() => service.destroy());

  const target = () => ({ organization: doc.organization.address, document: doc.document.address });

  async function challenge(signer: KeyPairSigner, origin = ORIGIN) {
    return client.request<{ challengeId: string; message: string; clientBinding: string; expiresAt: string; protocol: string; feeSponsor: string }>(
      'POST',
      '/v1/acceptance/challenges',
      { ...target(), signer: signer.address },
      { origin },
    );
  }

  it('records an acceptance on the ledger with the exact signed message, the fee paid by the relayer', async () => {
    const signer = await generateKeyPairSigner();
    const result = await acceptAsWallet(client, signer, { ...target(), origin: ORIGIN });
    expect(result.status).toBe('confirmed');
    expect(result.acceptanceId).toBe(acceptanceIdOf(result.message));
    expect(result.fee.lamports).toBe(10_000);
    const network = await client.request<{ relayer: string }>('GET', '/v1/network');
    expect(result.fee.payer).toBe(network.relayer);
    expect(result.message.split('\n')[0]).toMatch(/^svc\/1\b/);
    expect(result.message).toContain(doc.versions[0].address);
    expect(result.message).toContain('shop.example.com');

    const tx = await doc.ledger.getTransaction(toSignature(result.transactionSignature));
    expect(tx?.err).toBeNull();
    const { acceptance } = await client.request<{ acceptance: Record<string, unknown> }>('GET', `/v1/public/acceptances/${result.acceptanceId}`);
    expect(acceptance).toMatchObject({
      acceptanceId: result.acceptanceId,
      transactionSignature: result.transactionSignature,
      signer: signer.address,
      signerType: 'wallet',
      versionAddress: doc.versions[0].address,
      versionNumber: 1,
      requestDomain: 'shop.example.com',
      externalUserRef: null,
      documentSlug: 'terms-of-service',
      feePayer: network.relayer,
      feeLamports: 10_000,
      reimbursedLamports: null,
    });
    const byTx = await client.request<{ acceptanceId: string }>('GET', `/v1/public/transactions/${result.transactionSignature}/acceptance`);
    expect(byTx.acceptanceId).toBe(result.acceptanceId);
  });

  it('serves the public summary with the error envelope, CORS, rate-limit headers and the request id', async () => {
    const signer = await generateKeyPairSigner();
    const result = await acceptAsWallet(client, signer, { ...target(), origin: ORIGIN });
    const summary = await fetch(`${service.baseUrl}/api/v1/public/acceptances/${result.acceptanceId}`, { headers: { origin: 'https://elsewhere.example', 'x-request-id': 'trace.summary-1' } });
    expect(summary.status).toBe(200);
    expect(summary.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(summary.headers.get('access-control-allow-origin')).toBe('*');
    expect(summary.headers.get('x-request-id')).toBe('trace.summary-1');
    expect(Number(summary.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);
    const body = (await summary.json()) as { acceptance: Record<string, unknown>; receiptUrl: string };
    expect(Object.keys(body).sort()).toEqual(['acceptance', 'receiptUrl']);
    expect(body.receiptUrl).toBe(`${service.baseUrl}/receipts/${result.acceptanceId}`);
    expect(body.acceptance).toMatchObject({ acceptanceId: result.acceptanceId, transactionSignature: result.transactionSignature, externalUserRef: null });

    const refusal = async (id: string) => {
      const res = await fetch(`${service.baseUrl}/api/v1/public/acceptances/${id}`);
      return { status: res.status, requestId: res.headers.get('x-request-id'), body: await res.json() };
    };
    // Not hex64 (upper case, short, long): 400; well-formed but unknown: 404. Each a fresh request id.
    for (const id of [result.acceptanceId.toUpperCase(), result.acceptanceId.slice(1), `${result.acceptanceId}0`]) {
      expect(await refusal(id)).toEqual({ status: 400, requestId: expect.stringMatching(/^[0-9a-f-]{36}$/), body: { error: { code: 'invalid_request', message: 'acceptanceId: invalid format' } } });
    }
    expect(await refusal('0'.repeat(64))).toEqual({ status: 404, requestId: expect.stringMatching(/^[0-9a-f-]{36}$/), body: { error: { code: 'not_found', message: 'acceptance not found' } } });
  });

  it('serves the receipt with its live report, the error envelope and the request id; 422 when it does not verify', async () => {
    const result = await acceptAsWallet(client, await generateKeyPairSigner(), { ...target(), origin: ORIGIN });
    const read = async (id: string) => {
      const res = await fetch(`${service.baseUrl}/api/v1/public/acceptances/${id}/receipt`, { headers: { origin: 'https://elsewhere.example', 'x-request-id': 'trace.receipt-1' } });
      return { status: res.status, type: res.headers.get('content-type'), cors: res.headers.get('access-control-allow-origin'), requestId: res.headers.get('x-request-id'), body: (await res.json()) as ReceiptAnswer };
    };
    const ok = await read(result.acceptanceId);
    expect(ok).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', cors: '*', requestId: 'trace.receipt-1' });
    expect(Object.keys(ok.body).sort()).toEqual(['receipt', 'report']);
    expect(ok.body.receipt).toMatchObject({ acceptanceId: result.acceptanceId, transaction: { signature: result.transactionSignature } });
    expect(ok.body.report?.verdict).toMatch(/^VALID/);

    const refused = (code: string, message: string) => ({ status: 400, type: 'application/json; charset=utf-8', cors: '*', requestId: 'trace.receipt-1', body: { error: { code, message } } });
    expect(await read(result.acceptanceId.toUpperCase())).toEqual(refused('invalid_request', 'acceptanceId: invalid format'));
    expect(await read('0'.repeat(64))).toEqual({ ...refused('not_found', 'acceptance not found'), status: 404 });

    // The read model says another signature than the one on the ledger: the report fails, the answer is 422.
    const forged = await acceptAsWallet(client, await generateKeyPairSigner(), { ...target(), origin: ORIGIN });
    const store = service.app.get<ReadStore>(READ_STORE);
    const other = await store.collection<{ _id: string; signature: string }>(COLLECTIONS.acceptances).findOne({ _id: result.acceptanceId });
    await store.collection(COLLECTIONS.acceptances).updateOne({ _id: forged.acceptanceId }, { $set: { signature: other!.signature } });
    const failed = await read(forged.acceptanceId);
    expect(failed).toMatchObject({ status: 422, body: { error: { code: 'verification_failed' } } });
    expect(failed.body.error?.message).toMatch(/^the receipt does not verify: /);
  });

  it('answers the challenge and the submission with every field of spec §4.4', async () => {
    const signer = await generateKeyPairSigner();
    const issued = await client.request<Record<string, unknown> & { challengeId: string; message: string; clientBinding: string; nonce: string; issuedAt: string; expiresAt: string }>(
      'POST',
      '/v1/acceptance/challenges',
      { ...target(), signer: signer.address },
      { origin: ORIGIN },
    );
    expect(issued).toMatchObject({
      challengeId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      protocol: 'svc/1',
      signerType: 'wallet',
      feeSponsor: 'svc',
      evidenceMode: 'DIRECT_ONCHAIN',
      organization: doc.organization.address,
      document: doc.document.address,
      version: { address: doc.versions[0].address, number: 1, fingerprint: doc.versions[0].fingerprint, contentHash: doc.versions[0].contentHash },
    });
    // A one-time nonce carried by the message, and a validity window of CHALLENGE_TTL_SECONDS (300 s by default).
    expect(issued.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(issued.message).toContain(issued.nonce);
    expect(Date.parse(issued.expiresAt) - Date.parse(issued.issuedAt)).toBe(300_000);
    expect(Math.abs(Date.parse(issued.issuedAt) - Date.now())).toBeLessThan(60_000);
    expect(issued.clientBinding.length).toBeGreaterThanOrEqual(20);
    expect(issued.clientBinding.length).toBeLessThanOrEqual(64);

    const signature = await signText(signer, issued.message);
    const submitted = await client.request<Record<string, unknown> & { transactionSignature: string; slot: number }>(
      'POST',
      `/v1/acceptance/challenges/${issued.challengeId}/submit`,
      { clientBinding: issued.clientBinding, signature },
      { origin: ORIGIN },
    );
    const network = await client.request<{ relayer: string }>('GET', '/v1/network');
    expect(submitted).toMatchObject({
      acceptanceId: acceptanceIdOf(issued.message),
      transactionSignature: expect.any(String),
      status: 'confirmed',
      evidenceMode: 'DIRECT_ONCHAIN',
      signerType: 'wallet',
      fee: { payer: network.relayer, lamports: 10_000, sponsor: 'svc', reimbursedLamports: null },
      receiptUrl: `${service.baseUrl}/receipts/${acceptanceIdOf(issued.message)}`,
    });
    const tx = await doc.ledger.getTransaction(toSignature(submitted.transactionSignature));
    expect(Number(tx?.slot)).toBe(submitted.slot);
    expect(submitted.slot).toBeGreaterThan(0);
  });

  it('refuses a second challenge for a signer who already accepted the version (409 already_accepted)', async () => {
    const signer = await generateKeyPairSigner();
    await acceptAsWallet(client, signer, { ...target(), origin: ORIGIN });
    await expectApiError(challenge(signer), 409, 'already_accepted');
  });

  it('yields exactly one acceptance for concurrent submissions by the same signer for the same version', async () => {
    const signer = await generateKeyPairSigner();
    const challenges = await Promise.all(Array.from({ length: 8 }, () => challenge(signer)));
    const outcomes = await Promise.allSettled(
      challenges.map(async (c) =>
        client.request('POST', `/v1/acceptance/challenges/${c.challengeId}/submit`, { clientBinding: c.clientBinding, signature: await signText(signer, c.message) }, { origin: ORIGIN }),
      ),
    );
    const ok = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason as ApiError);
    expect(ok).toHaveLength(1);
    expect(refused.map((e) => e.code)).toEqual(Array(7).fill('already_accepted'));
    const evidence = await client.request<{ acceptances: unknown[] }>('GET', `/v1/public/signers/${signer.address}`);
    expect(evidence.acceptances).toHaveLength(1);
    const onLedger = await doc.ledger.getSignaturesForAddress(signer.address).catch(() => []);
    expect(onLedger.length).toBe(0); // the signer never pays or signs a transaction
  });

  it('refuses a forged signature (400 invalid_signature) and records nothing', async () => {
    const signer = await generateKeyPairSigner();
    const impostor = await generateKeyPairSigner();
    const c = await challenge(signer);
    const forged = await signText(impostor, c.message);
    await expectApiError(
      client.request('POST', `/v1/acceptance/challenges/${c.challengeId}/submit`, { clientBinding: c.clientBinding, signature: forged }, { origin: ORIGIN }),
      400,
      'invalid_signature',
    );
    await expectApiError(client.request('GET', `/v1/public/signers/${signer.address}`), 404, 'not_found');
    // The challenge stays open: the real signer can still accept.
    const real = await signText(signer, c.message);
    const ok = await client.request<{ status: string }>('POST', `/v1/acceptance/challenges/${c.challengeId}/submit`, { clientBinding: c.clientBinding, signature: real }, { origin: ORIGIN });
    expect(ok.status).toBe('confirmed');
  });

  it('has the ledger refuse a forged acceptance sent around the service (Ed25519 precompile)', async () => {
    const signer = await generateKeyPairSigner();
    const impostor = await generateKeyPairSigner();
    const c = await challenge(signer);
    const forged = await signText(impostor, c.message);
    const payer = await generateKeyPairSigner();
    await doc.ledger.requestAirdrop(payer.address, 100_000_000n);
    const tx = await buildAcceptanceTransaction({
      feePayer: payer,
      signer: signer.address,
      signature: base58ToBytes(forged),
      message: c.message,
      acceptanceId: acceptanceIdOf(c.message),
      versionAddress: doc.versions[0].address,
      lifetime: await doc.ledger.getLatestBlockhash(),
    });
    await expect(doc.ledger.sendTransaction(tx.wire)).rejects.toThrow();
    expect(await doc.ledger.getTransaction(toSignature(tx.signature))).toBeNull();
    const res = await client.raw('GET', `/v1/public/transactions/${tx.signature}/acceptance`);
    expect(res.response.status).toBe(404);
  });

  it('answers the acceptance a signed transaction sent around the service records; 404 for an accept memo that no signature backs, two, or one naming another version', async () => {
    const signer = await generateKeyPairSigner();
    const c = await challenge(signer);
    const signature = await signText(signer, c.message);
    const payer = await generateKeyPairSigner();
    await doc.ledger.requestAirdrop(payer.address, 100_000_000n);
    const acceptanceId = acceptanceIdOf(c.message);
    const versionAddress = doc.versions[0].address;
    const genuine = await buildAcceptanceTransaction({
      feePayer: payer,
      signer: signer.address,
      signature: base58ToBytes(signature),
      message: c.message,
      acceptanceId,
      versionAddress,
      lifetime: await doc.ledger.getLatestBlockhash(),
    });
    await doc.ledger.sendTransaction(genuine.wire);
    expect(await client.request('GET', `/v1/public/transactions/${genuine.signature}/acceptance`)).toEqual({
      acceptanceId,
      transactionSignature: genuine.signature,
      versionAddress,
      acceptance: null,
      receiptUrl: null,
    });
    const memo = (id: string) => memoInstruction({ memo: `svc/1 accept ${id} ${versionAddress}` });
    const unsigned = await buildTransaction(await doc.ledger.getLatestBlockhash(), payer, [memo(acceptanceId)]);
    const twice = await buildTransaction(await doc.ledger.getLatestBlockhash(), payer, [memo(acceptanceId), memo('ab'.repeat(32))]);
    // The signer's real signature and acceptance ID, with a memo naming a version the signed message does not accept.
    const otherVersion = await buildAcceptanceTransaction({
      feePayer: payer,
      signer: signer.address,
      signature: base58ToBytes(signature),
      message: c.message,
      acceptanceId,
      versionAddress: (await generateKeyPairSigner()).address,
      lifetime: await doc.ledger.getLatestBlockhash(),
    });
    for (const tx of [unsigned, twice, otherVersion]) {
      await doc.ledger.sendTransaction(tx.wire);
      expect(await doc.ledger.getTransaction(toSignature(tx.signature))).not.toBeNull();
      await expectApiError(client.request('GET', `/v1/public/transactions/${tx.signature}/acceptance`), 404, 'not_found');
    }
  });

  it('refuses a used challenge (409 challenge_not_open) and a wrong binding (403)', async () => {
    const signer = await generateKeyPairSigner();
    const c = await challenge(signer);
    const signature = await signText(signer, c.message);
    await expectApiError(
      client.request('POST', `/v1/acceptance/challenges/${c.challengeId}/submit`, { clientBinding: 'x'.repeat(32), signature }, { origin: ORIGIN }),
      403,
      'forbidden',
    );
    await client.request('POST', `/v1/acceptance/challenges/${c.challengeId}/submit`, { clientBinding: c.clientBinding, signature }, { origin: ORIGIN });
    await expectApiError(
      client.request('POST', `/v1/acceptance/challenges/${c.challengeId}/submit`, { clientBinding: c.clientBinding, signature }, { origin: ORIGIN }),
      409,
      'challenge_not_open',
    );
    const status = await client.request<{ status: string; acceptanceId: string }>('GET', `/v1/acceptance/challenges/${c.challengeId}`, undefined, {
      headers: { 'x-client-binding': c.clientBinding },
    });
    expect(status.status).toBe('accepted');
    // The binding is the browser's credential for its challenge: no cache keeps what it reads.
    const { response } = await client.raw('GET', `/v1/acceptance/challenges/${c.challengeId}`, undefined, { headers: { 'x-client-binding': c.clientBinding } });
    expect(response.headers.get('cache-control')).toBe('no-store');
    await expectApiError(client.request('GET', `/v1/acceptance/challenges/${c.challengeId}`), 400, 'missing_binding');
  });

  it('answers the one of two identical submissions sent at once that records the acceptance with confirmed, the other 409 challenge_not_open', async () => {
    const signer = await generateKeyPairSigner();
    const c = await challenge(signer);
    const signature = await signText(signer, c.message);
    const submit = async () => {
      try {
        const body = await client.request<{ status: string; transactionSignature: string }>('POST', `/v1/acceptance/challenges/${c.challengeId}/submit`, { clientBinding: c.clientBinding, signature }, { origin: ORIGIN });
        return { outcome: body.status, transactionSignature: body.transactionSignature };
      } catch (err) {
        const e = err as ApiError;
        return { outcome: `${e.status} ${e.code}`, transactionSignature: null };
      }
    };
    // The refused submission must not drop the wait of the one that recorded the acceptance (that one would answer
    // 502 relay_failed when its wait ran out, with the acceptance on the ledger).
    const answers = await Promise.all([submit(), submit()]);
    expect(answers.map((a) => a.outcome).sort()).toEqual(['409 challenge_not_open', 'confirmed']);
    const confirmed = answers.find((a) => a.outcome === 'confirmed')!;
    expect(await doc.ledger.getTransaction(toSignature(confirmed.transactionSignature!))).not.toBeNull();
  });

  it('reads a challenge as accepted once its own acceptance is relayed; another challenge of the signer stays open', async () => {
    const signer = await generateKeyPairSigner();
    const unused = await challenge(signer);
    const used = await challenge(signer);
    const statusOf = (c: { challengeId: string; clientBinding: string }) =>
      client.request<{ status: string; acceptanceId: string | null; receiptUrl: string | null }>('GET', `/v1/acceptance/challenges/${c.challengeId}`, undefined, {
        headers: { 'x-client-binding': c.clientBinding },
      });
    expect(await statusOf(used)).toMatchObject({ status: 'open', acceptanceId: null, receiptUrl: null });
    const result = await client.request<{ acceptanceId: string; status: string }>(
      'POST',
      `/v1/acceptance/challenges/${used.challengeId}/submit`,
      { clientBinding: used.clientBinding, signature: await signText(signer, used.message) },
      { origin: ORIGIN },
    );
    expect(result.status).toBe('confirmed');
    expect(await statusOf(used)).toMatchObject({ status: 'accepted', acceptanceId: result.acceptanceId, receiptUrl: `${service.baseUrl}/receipts/${result.acceptanceId}` });
    expect(await statusOf(unused)).toMatchObject({ status: 'open', acceptanceId: null });
    await expectApiError(
      client.request('POST', `/v1/acceptance/challenges/${unused.challengeId}/submit`, { clientBinding: unused.clientBinding, signature: await signText(signer, unused.message) }, { origin: ORIGIN }),
      409,
      'already_accepted',
    );
  });

  it('reads the Origin scheme and host without case, and refuses anything but an origin', async () => {
    const signer = await generateKeyPairSigner();
    const result = await acceptAsWallet(client, signer, { ...target(), origin: 'HTTPS://Shop.EXAMPLE.com' });
    expect(result.message).toContain('shop.example.com');
    expect(result.message).not.toContain('Shop.EXAMPLE');
    const { acceptance } = await client.request<{ acceptance: { requestDomain: string } }>('GET', `/v1/public/acceptances/${result.acceptanceId}`);
    expect(acceptance.requestDomain).toBe('shop.example.com');
    const other = await generateKeyPairSigner();
    for (const origin of ['https://shop.example.com/path', 'https://shop.example.com?q=1', 'https://u:p@shop.example.com', 'https://shop.example.com#top', 'ftp://shop.example.com']) {
      await expectApiError(client.request('POST', '/v1/acceptance/challenges', { ...target(), signer: other.address }, { origin }), 400, 'invalid_origin');
    }
    // Other spellings of exactly one origin are read as that origin: a default port spelled out, a trailing slash.
    const domainOf = async (origin: string) =>
      (await client.request<{ message: string }>('POST', '/v1/acceptance/challenges', { ...target(), signer: (await generateKeyPairSigner()).address }, { origin })).message.split('\n').find((line) => line.startsWith('domain: '));
    expect(await domainOf('https://shop.example.com:443')).toBe('domain: shop.example.com');
    expect(await domainOf('http://Shop.example.com:80/')).toBe('domain: shop.example.com');
    expect(await domainOf('https://shop.example.com:80')).toBe('domain: shop.example.com:80');
  });

  it('validates challenge requests at the edge with the spec codes', async () => {
    const signer = await generateKeyPairSigner();
    await expectApiError(
      client.request('POST', '/v1/acceptance/challenges', { ...target(), signer: signer.address }),
      400,
      'invalid_origin',
    );
    // Origins a browser can send whose host is not a host name the signed message allows (docs/protocol.md §1.1).
    for (const origin of ['https://[::1]', 'http://[::1]:4711', 'https://shop.example.com.', 'http://localhost.', 'https://a_b.com', 'https://a..b.com', 'https://-a.com', 'https://shop.example.com:0', `https://${'a'.repeat(61)}.com`]) {
      await expectApiError(client.request('POST', '/v1/acceptance/challenges', { ...target(), signer: signer.address }, { origin }), 400, 'invalid_origin');
    }
    // The refusal names what is wrong: the host's length, or a host not in ASCII.
    const challenge = (origin: string) => client.request('POST', '/v1/acceptance/challenges', { ...target(), signer: signer.address }, { origin });
    await expect(challenge(`https://${'a'.repeat(61)}.com`)).rejects.toMatchObject({ code: 'invalid_origin', message: expect.stringContaining('at most 64 characters') });
    await expect(challenge('https://b\u00fccher.example')).rejects.toMatchObject({ code: 'invalid_origin', message: expect.stringContaining('ASCII') });
    await expectApiError(
      client.request('POST', '/v1/acceptance/challenges', { ...target(), signer: 'not-an-address' }, { origin: ORIGIN }),
      400,
      'invalid_signer',
    );
    await expectApiError(
      client.request('POST', '/v1/acceptance/challenges', { ...target(), organization: 'O0O0', signer: signer.address }, { origin: ORIGIN }),
      400,
      'invalid_address',
    );
    await expectApiError(
      client.request('POST', '/v1/acceptance/challenges', { ...target(), signer: signer.address, extra: 1 }, { origin: ORIGIN }),
      400,
      'invalid_request',
    );
    const stranger = await generateKeyPairSigner();
    await expectApiError(
      client.request('POST', '/v1/acceptance/challenges', { ...target(), document: stranger.address, signer: signer.address }, { origin: ORIGIN }),
      404,
      'not_found',
    );
    await expectApiError(client.request('POST', `/v1/acceptance/challenges/${crypto.randomUUID()}/submit`, { clientBinding: 'y'.repeat(30), signature: '1'.repeat(64) }), 404, 'not_found');
  });

  it('answers 409 no_published_version for a document without a version', async () => {
    const bare = await publishedDocument(service, [], 'privacy');
    const signer = await generateKeyPairSigner();
    await expectApiError(
      client.request('POST', '/v1/acceptance/challenges', { organization: bare.organization.address, document: bare.document.address, signer: signer.address }, { origin: ORIGIN }),
      409,
      'no_published_version',
    );
  });

  it('refuses a challenge made for a version that was superseded (409 version_superseded)', async () => {
    const local = await publishedDocument(service, [1], 'superseded');
    const signer = await generateKeyPairSigner();
    const c = await client.request<{ challengeId: string; message: string; clientBinding: string }>(
      'POST',
      '/v1/acceptance/challenges',
      { organization: local.organization.address, document: local.document.address, signer: signer.address },
      { origin: ORIGIN },
    );
    await local.publish(2);
    await expectApiError(
      client.request('POST', `/v1/acceptance/challenges/${c.challengeId}/submit`, { clientBinding: c.clientBinding, signature: await signText(signer, c.message) }, { origin: ORIGIN }),
      409,
      'version_superseded',
    );
  });

  /** Version 2 of the Terms of Service drafted and prepared in `local`: the publication its wallet then signs. */
  async function preparedVersion2(local: PublishedDocument) {
    const { draft } = await local.dashboard.request<{ draft: { id: string } }>('POST', `/v1/documents/${local.document.id}/drafts`, { title: 'Terms of Service', versionLabel: 'v2', source: termsOfService(2) });
    const { publication } = await local.dashboard.request<{
      publication: { document: string; number: number; label: string; title: string; contentHash: string; fingerprint: string; effectiveAt: number | null };
    }>('POST', `/v1/drafts/${draft.id}/prepare`);
    return publication;
  }

  /** Lands `publication` on the ledger, co-signed by the organization's wallet, without confirming it. */
  async function landUnconfirmed(local: PublishedDocument, publication: Awaited<ReturnType<typeof preparedVersion2>>) {
    const versionKey = await generateKeyPairSigner();
    const tx = await buildPublicationTransaction({ authority: local.owner, version: versionKey, ...publication, lifetime: await local.ledger.getLatestBlockhash() });
    await local.ledger.sendTransaction(tx.wire, { commitment: 'confirmed' });
    return { versionKey, tx };
  }

  it('builds the challenge from the ledger: a prepared version that landed but was not confirmed yet is the one to sign', async () => {
    const local = await publishedDocument(service, [1], 'landed-unconfirmed');
    const publication = await preparedVersion2(local);
    const { versionKey, tx } = await landUnconfirmed(local, publication);
    // No POST /v1/publications/confirm: the service learns of version 2 when signers ask, several at once.
    const challenges = await Promise.all(
      Array.from({ length: 3 }, async () =>
        client.request<{ message: string; version: { address: string; number: number } }>(
          'POST',
          '/v1/acceptance/challenges',
          { organization: local.organization.address, document: local.document.address, signer: (await generateKeyPairSigner()).address },
          { origin: ORIGIN },
        ),
      ),
    );
    for (const c of challenges) {
      expect(c.version).toMatchObject({ address: versionKey.address, number: 2 });
      expect(c.message).toContain(`version: ${versionKey.address}`);
    }
    const current = await client.request<{ version: { number: number; fingerprint: string } }>('GET', `/v1/public/organizations/${local.organization.address}/documents/landed-unconfirmed`);
    expect(current.version).toMatchObject({ number: 2, fingerprint: publication.fingerprint });
    // Confirming afterwards answers the version already recorded.
    const { version } = await local.dashboard.request<{ version: { address: string; number: number } }>('POST', '/v1/publications/confirm', { signature: tx.signature });
    expect(version).toMatchObject({ address: versionKey.address, number: 2 });
  });

  it.each(['DIRECT_ONCHAIN', 'MERKLE_BATCHED'] as const)(
    'refuses in %s mode the submission of a challenge whose version a landed but unconfirmed publication superseded (409 version_superseded)',
    async (evidenceMode) => {
      const local = await publishedDocument(service, [1], evidenceMode === 'DIRECT_ONCHAIN' ? 'unconfirmed-direct' : 'unconfirmed-batched');
      await local.dashboard.request('PATCH', `/v1/organizations/${local.organization.id}/settings`, { evidenceMode });
      const publication = await preparedVersion2(local);
      // The challenge reads the wallet (a draft is prepared) and finds nothing landed yet: it names version 1.
      const signer = await generateKeyPairSigner();
      const c = await client.request<{ challengeId: string; message: string; clientBinding: string; version: { number: number } }>(
        'POST',
        '/v1/acceptance/challenges',
        { organization: local.organization.address, document: local.document.address, signer: signer.address },
        { origin: ORIGIN },
      );
      expect(c.version.number).toBe(1);
      // Version 2 lands at once, and nobody confirms it; the signer submits well within the 2 s between challenge reads.
      const { versionKey, tx } = await landUnconfirmed(local, publication);
      await expectApiError(
        client.request('POST', `/v1/acceptance/challenges/${c.challengeId}/submit`, { clientBinding: c.clientBinding, signature: await signText(signer, c.message) }, { origin: ORIGIN }),
        409,
        'version_superseded',
      );
      const current = await client.request<{ version: { address: string; number: number } }>('GET', `/v1/public/organizations/${local.organization.address}/documents/${local.document.slug}`);
      expect(current.version).toMatchObject({ address: versionKey.address, number: 2 });
    },
  );

  it('reads the wallet for the first challenge after a draft is prepared, even right after a challenge found none', async () => {
    const local = await publishedDocument(service, [1], 'prepared-after-challenge');
    const ask = askFor(local);
    expect((await ask()).version.number).toBe(1);
    const publication = await preparedVersion2(local);
    const { versionKey, tx } = await landUnconfirmed(local, publication);
    expect((await ask()).version).toMatchObject({ address: versionKey.address, number: 2 });
  });

  it('answers confirms racing each other and challenges over one landed publication with the version, recorded once', async () => {
    const local = await publishedDocument(service, [1], 'confirm-race');
    const publication = await preparedVersion2(local);
    const { versionKey, tx } = await landUnconfirmed(local, publication);
    const ask = askFor(local);
    const [confirms] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, () => local.dashboard.request<{ version: { address: string; number: number } }>('POST', '/v1/publications/confirm', { signature: tx.signature }))),
      Promise.all([ask(), ask(), ask()]),
    ]);
    for (const { version } of confirms) expect(version).toMatchObject({ address: versionKey.address, number: 2 });
    const current = await client.request<{ versions: { number: number }[] }>('GET', `/v1/public/organizations/${local.organization.address}/documents/confirm-race`);
    expect(current.versions.map((v) => v.number)).toEqual([2, 1]);
  });

  /** Plain transfers from a stranger to `wallet`: anyone may send them, and each is a transaction of the wallet. */
  async function transfersTo(wallet: Address, count: number): Promise<void> {
    const ledger = service.app.get<Ledger>(LEDGER);
    const sender = await generateKeyPairSigner();
    await ledger.requestAirdrop(sender.address, 1_000_000_000n);
    let lifetime = await ledger.getLatestBlockhash();
    for (let i = 0; i < count; i++) {
      if (i % 500 === 0) lifetime = await ledger.getLatestBlockhash();
      const transfer = await buildTransaction(lifetime, sender, [getTransferSolInstruction({ source: sender, destination: wallet, amount: lamports(BigInt(1 + i)) })]);
      await ledger.sendTransaction(transfer.wire, { commitment: 'processed' });
    }
  }

  const askFor = (local: PublishedDocument) => async () =>
    client.request<{ version: { address: string; number: number } }>(
      'POST',
      '/v1/acceptance/challenges',
      { organization: local.organization.address, document: local.document.address, signer: (await generateKeyPairSigner()).address },
      { origin: ORIGIN },
    );

  it('finds a landed publication behind more than a page of the wallet\'s later transactions, on a first and on a later read', async () => {
    // A later read: the document's wallet was read before the publication landed.
    const local = await publishedDocument(service, [1], 'landed-behind');
    const publication = await preparedVersion2(local);
    const ask = askFor(local);
    expect((await ask()).version.number).toBe(1);
    const { versionKey, tx } = await landUnconfirmed(local, publication);
    // Then the wallet signs transactions of its own, and a stranger sends it more transfers than a listing page holds.
    for (let i = 0; i < 30; i++) {
      const note = await buildTransaction(await local.ledger.getLatestBlockhash(), local.owner, [memoInstruction({ memo: `note ${i}` })]);
      await local.ledger.sendTransaction(note.wire, { commitment: 'confirmed' });
    }
    await transfersTo(local.owner.address, 1_100);
    await new Promise((resolve) => setTimeout(resolve, 2_100)); // a document's wallet is read at most every 2 s
    expect((await ask()).version).toMatchObject({ address: versionKey.address, number: 2 });

    // A first read: the publication landed and was buried before any signer asked.
    const fresh = await publishedDocument(service, [1], 'landed-buried');
    const freshPublication = await preparedVersion2(fresh);
    const freshKey = await generateKeyPairSigner();
    const freshTx = await buildPublicationTransaction({ authority: fresh.owner, version: freshKey, ...freshPublication, lifetime: await fresh.ledger.getLatestBlockhash() });
    await fresh.ledger.sendTransaction(freshTx.wire, { commitment: 'confirmed' });
    await transfersTo(fresh.owner.address, 1_100);
    expect((await askFor(fresh)()).version).toMatchObject({ address: freshKey.address, number: 2 });
    const current = await client.request<{ version: { number: number } }>('GET', `/v1/public/organizations/${fresh.organization.address}/documents/landed-buried`);
    expect(current.version.number).toBe(2);
  });
});

describe('challenge expiry', () => {
  let service: TestService;
  afterAll(() => service?.destroy());

  it('refuses a submission after the validity window (409 challenge_expired)', async () => {
    service = await startTestService({ env: { CHALLENGE_TTL_SECONDS: '1' } });
    const client = new ApiClient(service.baseUrl);
    const doc = await publishedDocument(service, [1]);
    const signer = await generateKeyPairSigner();
    const c = await client.request<{ challengeId: string; message: string; clientBinding: string; expiresAt: string }>(
      'POST',
      '/v1/acceptance/challenges',
      { organization: doc.organization.address, document: doc.document.address, signer: signer.address },
      { origin: ORIGIN },
    );
    const signature = await signText(signer, c.message);
    // Wait until the window has closed by the challenge's own clock.
    while (Date.now() < Date.parse(c.expiresAt) + 50) await new Promise((r) => setTimeout(r, 100));
    await expectApiError(
      client.request('POST', `/v1/acceptance/challenges/${c.challengeId}/submit`, { clientBinding: c.clientBinding, signature }, { origin: ORIGIN }),
      409,
      'challenge_expired',
    );
  });
});
