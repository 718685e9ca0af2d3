/**
 * An acceptance whose transaction (direct mode) or batch anchor (batched mode) lands after the message's validity
 * window has closed (`expires-at` plus the verifier's 120 s) is recorded as failed, never reported as accepted: its
 * receipt could not verify (docs/protocol.md §9 `message.validity-window`; docs/api.md "Signing an acceptance").
 *
 * The service's clock is set ten minutes behind the ledger's for the challenge: the message then expired five
 * minutes before the ledger's present, as after an outage or a long stop of the service between the submission and
 * the landing, while the service still takes the submission as on time. With the clock back, the signer accepts again.
 */
import { generateKeyPairSigner } from '@solana/kit';
import { AdjustableClock } from '@svc/application';
import { ApiClient, ApiError } from '../apps/cli/src/api-client';
import { signText } from '../apps/cli/src/operations';
import { codeOf, issueChallenge, ORIGIN } from './support/durability';
import { eventually, publishedDocument, type PublishedDocument } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';

interface Submitted {
  acceptanceId: string;
  status: string;
  transactionSignature: string | null;
}
interface ReceiptAnswer {
  receipt: { acceptanceId: string };
  report: { verdict: string };
}

describe("an acceptance landing outside its message's validity window", () => {
  const clock = new AdjustableClock();
  let service: TestService;
  let client: ApiClient;
  let doc: PublishedDocument;

  beforeAll(async () => {
    service = await startTestService({ clock, env: { BATCH_WINDOW_MS: '500', RATE_LIMIT_GENERAL_PER_MINUTE: '5000' } });
    client = new ApiClient(service.baseUrl);
    doc = await publishedDocument(service, [1]);
  });
  afterAll(() => service.destroy());

  const target = () => ({ organization: doc.organization.address, document: doc.document.address });

  /** Challenge, sign and submit with the service's clock `behindSeconds` behind the ledger's; the clock is put back. */
  const accept = async (signer: Awaited<ReturnType<typeof generateKeyPairSigner>>, behindSeconds = 0): Promise<Submitted> => {
    clock.advance(-behindSeconds);
    try {
      const challenge = await issueChallenge(client, target(), signer);
      const signature = await signText(signer, challenge.message);
      return await client.request<Submitted>('POST', `/v1/acceptance/challenges/${challenge.challengeId}/submit`, { clientBinding: challenge.clientBinding, signature }, { origin: ORIGIN });
    } finally {
      clock.advance(behindSeconds);
    }
  };
  const receipt = (id: string) => client.request<ReceiptAnswer>('GET', `/v1/public/acceptances/${id}/receipt`);

  it('direct mode: answers 502 relay_failed naming the window, serves nothing for it, and takes a new acceptance that verifies', async () => {
    const signer = await generateKeyPairSigner();
    const late = await accept(signer, 600).catch((err: unknown) => err);
    expect(late).toBeInstanceOf(ApiError);
    expect(late).toMatchObject({ status: 502, code: 'relay_failed', message: expect.stringContaining('validity window') });

    const again = await accept(signer);
    expect(again).toMatchObject({ status: 'confirmed', transactionSignature: expect.any(String) });
    const answer = await receipt(again.acceptanceId);
    expect(answer.report.verdict).toMatch(/^VALID/);
  }, 60_000);

  it('batched mode: the pending acceptance ends failed (gone from the public endpoints and the organization listing); the signer accepts again, anchored and verified', async () => {
    await doc.dashboard.request('PATCH', `/v1/organizations/${doc.organization.id}/settings`, { evidenceMode: 'MERKLE_BATCHED' });
    const signer = await generateKeyPairSigner();
    const late = await accept(signer, 600);
    expect(late).toMatchObject({ status: 'pending_batch' });

    // Public while it awaits its batch; once the batch is anchored it is failed, not confirmed: gone from the public
    // endpoints and from the organization's listing.
    expect(await codeOf(client.request('GET', `/v1/public/acceptances/${late.acceptanceId}`))).toBe('ok');
    await eventually(async () => ((await codeOf(client.request('GET', `/v1/public/acceptances/${late.acceptanceId}`))) === '404 not_found' ? true : undefined), 30_000);
    expect(await codeOf(receipt(late.acceptanceId))).toBe('404 not_found');
    const { acceptances } = await doc.dashboard.request<{ acceptances: { acceptanceId: string }[] }>('GET', `/v1/organizations/${doc.organization.id}/acceptances?signer=${signer.address}`);
    expect(acceptances.map((a) => a.acceptanceId)).not.toContain(late.acceptanceId);

    const again = await accept(signer);
    expect(again).toMatchObject({ status: 'pending_batch' });
    const answer = await eventually(() => receipt(again.acceptanceId).catch(() => undefined), 30_000);
    expect(answer.report.verdict).toMatch(/^VALID/);
  }, 90_000);
});
