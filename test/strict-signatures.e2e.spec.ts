import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { bytesToBase58 } from '@svc/evidence';
import { ApiClient } from '../apps/cli/src/api-client';
import { codeOf, ORIGIN } from './support/durability';
import { publishedDocument, type PublishedDocument } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';

/** The identity point (y = 1): a small-order key for which `R = rB, S = r` verifies every message under the plain equation. */
const IDENTITY = bytesToBase58(new Uint8Array([1, ...new Array<number>(31).fill(0)]));

/** Strict Ed25519 (docs/protocol.md §13) at the API: what the ledger's precompile would refuse is refused before anything is recorded. */
describe('strict Ed25519 signatures over HTTP', () => {
  let service: TestService;
  let client: ApiClient;
  let doc: PublishedDocument;

  beforeAll(async () => {
    service = await startTestService({ env: { RATE_LIMIT_SIGNIN_PER_MINUTE: '1000', RATE_LIMIT_ACCEPTANCE_PER_MINUTE: '1000' } });
    client = new ApiClient(service.baseUrl);
    doc = await publishedDocument(service, [1]);
  });
  afterAll(() => service.destroy());

  it('refuses a small-order signer key at challenge time: 400 invalid_signer (acceptance), 400 invalid_address (sign-in)', async () => {
    const body = { organization: doc.organization.address, document: doc.document.address, signer: IDENTITY };
    const refused = await client.raw('POST', '/v1/acceptance/challenges', body, { origin: ORIGIN });
    expect(refused.response.status).toBe(400);
    expect(JSON.parse(refused.text).error).toEqual({ code: 'invalid_signer', message: expect.stringMatching(/^signer: .*small order/) });
    expect(await codeOf(client.request('POST', '/v1/auth/challenge', { address: IDENTITY }))).toBe('400 invalid_address');
  });

  it('refuses a signature with a small-order R (accepted by the plain equation) with 400 invalid_signature, recording nothing', async () => {
    // A wallet whose secret scalar the test knows, so that it can forge the edge case over its own key.
    const secret = new Uint8Array(32).fill(7);
    const { scalar, pointBytes } = ed25519.utils.getExtendedPublicKey(secret);
    const signer = bytesToBase58(pointBytes);
    const challenge = await client.request<{ challengeId: string; message: string; clientBinding: string }>(
      'POST',
      '/v1/acceptance/challenges',
      { organization: doc.organization.address, document: doc.document.address, signer },
      { origin: ORIGIN },
    );
    const message = new TextEncoder().encode(challenge.message);
    // R = identity, S = k·a mod L with k = SHA-512(R ‖ A ‖ M): [S]B = R + [k]A holds, R is of small order.
    const L = ed25519.Point.Fn.ORDER;
    const R = ed25519.Point.ZERO.toBytes();
    const digest = sha512(new Uint8Array([...R, ...pointBytes, ...message]));
    const k = digest.reduceRight((acc, b) => (acc << 8n) | BigInt(b), 0n) % L;
    let S = (k * scalar) % L;
    const signature = new Uint8Array(64);
    signature.set(R, 0);
    for (let i = 32; i < 64; i++, S >>= 8n) signature[i] = Number(S & 255n);

    const submit = (sig: Uint8Array) =>
      client.request<{ status: string }>('POST', `/v1/acceptance/challenges/${challenge.challengeId}/submit`, { clientBinding: challenge.clientBinding, signature: bytesToBase58(sig) });
    expect(await codeOf(submit(signature))).toBe('400 invalid_signature');
    const status = await client.request<{ status: string; acceptanceId: string | null }>('GET', `/v1/acceptance/challenges/${challenge.challengeId}`, undefined, {
      headers: { 'x-client-binding': challenge.clientBinding },
    });
    expect(status).toMatchObject({ status: 'open', acceptanceId: null });
    // The honest signature of the same message is then accepted and lands.
    expect((await submit(ed25519.sign(message, secret))).status).toBe('confirmed');
  });
});
