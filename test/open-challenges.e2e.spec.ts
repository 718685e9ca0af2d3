/**
 * The cap on open acceptance challenges (spec §7 `too_many_open_challenges`, §8; docs/api.md "Acceptance
 * challenges"): one signer holds at most OPEN_CHALLENGES_PER_SIGNER challenges of one document within the challenge
 * validity window, over real HTTP against the embedded stores and ledger.
 */
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { ApiClient } from '../apps/cli/src/api-client';
import { signText } from '../apps/cli/src/operations';
import { publishedDocument, type PublishedDocument } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';

const ORIGIN = 'https://shop.example.com';
const CAP = 3;
const TTL_SECONDS = 120;

describe('open acceptance challenges per signer and document', () => {
  let service: TestService;
  let client: ApiClient;
  let first: PublishedDocument;
  let second: PublishedDocument;

  beforeAll(async () => {
    service = await startTestService({
      env: {
        OPEN_CHALLENGES_PER_SIGNER: String(CAP),
        CHALLENGE_TTL_SECONDS: String(TTL_SECONDS),
        RATE_LIMIT_ACCEPTANCE_PER_MINUTE: '10000',
        RATE_LIMIT_GENERAL_PER_MINUTE: '100000',
      },
    });
    client = new ApiClient(service.baseUrl);
    first = await publishedDocument(service, [1]);
    second = await publishedDocument(service, [1], 'privacy-notice');
  });
  afterAll(() => service.destroy());

  const challenge = (doc: PublishedDocument, signer: KeyPairSigner) =>
    client.raw('POST', '/v1/acceptance/challenges', { organization: doc.organization.address, document: doc.document.address, signer: signer.address }, { origin: ORIGIN });

  it('issues up to the cap, then answers 429 too_many_open_challenges with retry-after within the validity window', async () => {
    const signer = await generateKeyPairSigner();
    const issued: { challengeId: string; message: string; clientBinding: string }[] = [];
    for (let i = 0; i < CAP; i++) {
      const { response, text } = await challenge(first, signer);
      expect(response.status).toBe(200);
      issued.push(JSON.parse(text));
    }
    const { response, text } = await challenge(first, signer);
    expect(response.status).toBe(429);
    expect(JSON.parse(text)).toEqual({ error: { code: 'too_many_open_challenges', message: expect.any(String) } });
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= TTL_SECONDS).toBe(true);
    expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();

    // The cap holds for that signer and document only: another signer, or another document, is issued a challenge.
    expect((await challenge(first, await generateKeyPairSigner())).response.status).toBe(200);
    expect((await challenge(second, signer)).response.status).toBe(200);

    // The signer's open challenges stay usable: one of them is accepted.
    const c = issued[0]!;
    const signature = await signText(signer, c.message);
    const submitted = await client.request<{ status: string }>('POST', `/v1/acceptance/challenges/${c.challengeId}/submit`, { clientBinding: c.clientBinding, signature }, { origin: ORIGIN });
    expect(submitted.status).toBe('confirmed');
  });
});
