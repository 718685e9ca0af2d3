import { EVENT_STORE, type EventStore } from '@svc/event-store';
import { ApiError } from '../apps/cli/src/api-client';
import { publishedDocument, termsOfService, type PublishedDocument } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';

/** Bytes of the canonical ToS v1 (LF line ends, no trailing spaces): well under 64 KiB. */
const tos = termsOfService(1);

async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal, the request succeeded');
}

describe('per-organization draft quotas (docs/api.md "Quotas")', () => {
  let service: TestService;
  let doc: PublishedDocument;
  const open: string[] = [];
  const head = () => service.app.get<EventStore>(EVENT_STORE).headPosition();
  const drafts = (body: object) => doc.dashboard.request<{ draft: { id: string } }>('POST', `/v1/documents/${doc.document.id}/drafts`, body);

  beforeAll(async () => {
    service = await startTestService({ env: { DRAFTS_OPEN_PER_ORGANIZATION: '2', DRAFT_BYTES_PER_ORGANIZATION: String(2 * Buffer.byteLength(tos) + 100) } });
    doc = await publishedDocument(service, []);
  });
  afterAll(() => service.destroy());

  it('refuses a draft beyond the open-draft limit with 409 and stores nothing, and frees the slot when one is abandoned', async () => {
    const first = await drafts({ title: 'Terms of Service', versionLabel: 'a', source: tos });
    const second = await drafts({ title: 'Terms of Service', versionLabel: 'b', source: `${tos}\nb` });
    const before = await head();

    const third = await refusal(drafts({ title: 'Terms of Service', versionLabel: 'c', source: `${tos}\nc` }));
    expect(third).toMatchObject({ status: 409, code: 'chain_state' });
    expect(third.message).toMatch(/at most 2 open drafts/);
    expect(await head()).toBe(before);

    await doc.dashboard.request('POST', `/v1/drafts/${first.draft.id}/abandon`, {});
    const fourth = await drafts({ title: 'Terms of Service', versionLabel: 'c', source: `${tos}\nc` });
    open.push(second.draft.id, fourth.draft.id);
  });

  it('refuses an edit whose new source would pass the stored-bytes limit', async () => {
    expect(open).toHaveLength(2);
    const before = await head();
    const tooBig = await refusal(doc.dashboard.request('PATCH', `/v1/drafts/${open[0]}`, { source: `${tos}\n${'x'.repeat(200)}` }));
    expect(tooBig).toMatchObject({ status: 409, code: 'chain_state' });
    expect(tooBig.message).toMatch(/bytes of source/);
    expect(await head()).toBe(before);
    // A small edit fits.
    await doc.dashboard.request('PATCH', `/v1/drafts/${open[0]}`, { title: 'Terms of Service (edited)' });
    // A new source is judged by the total it leaves: the draft's current source is the one it replaces.
    await doc.dashboard.request('PATCH', `/v1/drafts/${open[0]}`, { source: `${tos}\n${'y'.repeat(50)}` });
    await doc.dashboard.request('PATCH', `/v1/drafts/${open[0]}`, { source: `${tos}\n${'z'.repeat(90)}` });
  });

  it('holds the open-draft limit against creations racing each other: exactly as many as fit are created', async () => {
    for (const id of open.splice(0)) await doc.dashboard.request('POST', `/v1/drafts/${id}/abandon`, {});
    const racing = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => drafts({ title: 'Terms of Service', versionLabel: `r${i}`, source: `${tos}\n${i}` })));
    const created = racing.filter((r) => r.status === 'fulfilled');
    const refused = racing.flatMap((r) => (r.status === 'rejected' && r.reason instanceof ApiError ? [`${r.reason.status} ${r.reason.code}`] : []));
    expect([created.length, refused]).toEqual([2, Array(4).fill('409 chain_state')]);
    expect(await refusal(drafts({ title: 'Terms of Service', versionLabel: 'late', source: `${tos}\nlate` }))).toMatchObject({ status: 409, code: 'chain_state' });
  });
});

describe('per-organization webhook endpoint limit (docs/api.md "Webhooks")', () => {
  let service: TestService;
  let doc: PublishedDocument;
  const head = () => service.app.get<EventStore>(EVENT_STORE).headPosition();
  const hooks = () => `/v1/organizations/${doc.organization.id}/webhooks`;
  const add = (path: string) => doc.dashboard.request<{ webhook: { id: string } }>('POST', hooks(), { url: `https://127.0.0.1:9/${path}`, events: ['agreement.accepted'] });

  beforeAll(async () => {
    service = await startTestService({ env: { WEBHOOKS_PER_ORGANIZATION: '2', NODE_ENV: 'test', WEBHOOK_ALLOW_LOOPBACK: 'true' } });
    doc = await publishedDocument(service, []);
  });
  afterAll(() => service.destroy());

  it('refuses an endpoint beyond the limit with 409 and stores nothing; a deleted one frees its place', async () => {
    const first = await add('a');
    await add('b');
    const before = await head();
    const third = await refusal(add('c'));
    expect(third).toMatchObject({ status: 409, code: 'chain_state' });
    expect(third.message).toMatch(/at most 2 per organization/);
    expect(await head()).toBe(before);

    await doc.dashboard.request('DELETE', `${hooks()}/${first.webhook.id}`);
    await add('c');
    expect((await doc.dashboard.request<{ webhooks: unknown[] }>('GET', hooks())).webhooks).toHaveLength(2);
  });

  it('holds the limit against additions racing each other: exactly as many endpoints as fit are added', async () => {
    for (const hook of (await doc.dashboard.request<{ webhooks: { id: string }[] }>('GET', hooks())).webhooks) await doc.dashboard.request('DELETE', `${hooks()}/${hook.id}`);
    const racing = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => add(`race-${i}`)));
    const refused = racing.flatMap((r) => (r.status === 'rejected' && r.reason instanceof ApiError ? [`${r.reason.status} ${r.reason.code}`] : []));
    expect([racing.filter((r) => r.status === 'fulfilled').length, refused]).toEqual([2, Array(4).fill('409 chain_state')]);
    expect((await doc.dashboard.request<{ webhooks: unknown[] }>('GET', hooks())).webhooks).toHaveLength(2);
  });
});
