/**
 * Webhooks over real HTTP (spec §4.10, §6.1, §8; docs/api.md "Webhooks"): endpoints added, changed, rotated, tested
 * and deleted through the dashboard API; deliveries sent to real HTTPS receivers on loopback whose certificate comes
 * from a test CA trusted only by this configuration (`WEBHOOK_TEST_CA_FILE`, `WEBHOOK_ALLOW_LOOPBACK`, both refused
 * outside NODE_ENV=test). The retry schedule is scaled (`WEBHOOK_RETRY_SCALE`) so no test waits minutes. Deliveries
 * are verified with Stripe's own library, whose scheme is the same `t=…,v1=…` HMAC.
 */
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSigner } from '@solana/kit';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import Stripe from 'stripe';
import { WEBHOOK_DATA_SCHEMAS } from '@svc/domain';
import { AdjustableClock } from '@svc/application';
import { ApiClient, ApiError } from '../apps/cli/src/api-client';
import { acceptAsWallet, signIn } from '../apps/cli/src/operations';
import { filesUnder } from './support/data-files';
import { eventually, publishedDocument, type PublishedDocument } from './support/fixtures';
import { testCertificates } from './support/test-certificates';
import { startTestService, type TestService } from './support/test-service';

interface Webhook {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  status: string;
  secretPrefix: string;
}
interface Attempt {
  attempt: number;
  attemptedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  succeeded: boolean;
}
interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  nextAttemptAt: string | null;
  cancelReason: string | null;
  attempts: Attempt[];
}
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const stripe = new Stripe('sk_test_unused');

describe('webhooks', () => {
  const clock = new AdjustableClock();
  const received: Received[] = [];
  const calls = new Map<string, number>();
  let downFailing = true;
  let receiver: Server;
  let receiverBase: string;
  let certDir: string;
  let env: Record<string, string>;
  let service: TestService;
  let org: PublishedDocument;
  const failures: string[] = [];

  beforeAll(async () => {
    const certs = await testCertificates();
    certDir = certs.dir;
    receiver = createServer({ key: certs.key, cert: certs.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const route = req.url ?? '/';
        received.push({ path: route, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        const n = (calls.get(route) ?? 0) + 1;
        calls.set(route, n);
        if (route === '/slow') return; // never answers
        if (route === '/redirect') return void res.writeHead(302, { location: `${receiverBase}/redirected` }).end();
        if (route === '/flaky' && n <= 3) return void res.writeHead(500).end('not yet');
        if (route === '/down' && downFailing) return void res.writeHead(503).end();
        res.writeHead(route === '/flaky' ? 204 : 200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverBase = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    env = {
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      WEBHOOK_TEST_CA_FILE: certs.caFile,
      WEBHOOK_RETRY_SCALE: '0.001',
      WEBHOOK_TIMEOUT_MS: '400',
      RATE_LIMIT_SIGNIN_PER_MINUTE: '1000',
    };
    service = await startTestService({ clock, env, checkResponses: true });
    org = await publishedDocument(service, []);
  });

  afterAll(async () => {
    await stopChecked().catch((err: Error) => failures.push(err.message));
    rmSync(service.dataDir, { recursive: true, force: true });
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
    if (certDir) rmSync(certDir, { recursive: true, force: true });
    expect(failures).toEqual([]);
  });

  /**
   * Stops the service; the answers of the webhook routes must match the OpenAPI description (other routes are
   * checked by their own suites).
   */
  const stopChecked = async () => {
    try {
      await service.stop();
    } catch (err) {
      const ours = (err as Error).message.split('\n').filter((line) => line.includes('/webhooks'));
      if (ours.length > 0) throw new Error(ours.join('\n'));
    }
  };
  const hooks = () => `/v1/organizations/${org.organization.id}/webhooks`;
  const add = (route: string, events = ['document.version_published'], client = org.dashboard) =>
    client.request<{ webhook: Webhook; secret: string }>('POST', hooks(), { url: `${receiverBase}${route}`, events, description: `receiver ${route}` });
  const deliveries = async (id: string) => (await org.dashboard.request<{ deliveries: Delivery[] }>('GET', `${hooks()}/${id}/deliveries`)).deliveries;
  const codeOf = async (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof ApiError ? `${e.status} ${e.code}` : String(e)));
  const arrivals = (route: string) => received.filter((r) => r.path === route);
  /** The delivery log of `id` once its only delivery has ended (or has `attempts` attempts). */
  const settled = (id: string, attempts?: number) =>
    eventually(async () => {
      const [d] = await deliveries(id);
      if (!d) return undefined;
      return (attempts === undefined ? d.status !== 'pending' : d.attempts.length >= attempts) ? d : undefined;
    }, 20_000, 50);

  it('refuses URLs that are not HTTPS or not on a public address with 400 invalid_url, and bad fields with invalid_request', async () => {
    for (const url of ['http://hooks.example.com/x', 'https://10.0.0.8/x', 'https://192.168.1.20/x', 'https://169.254.169.254/latest', 'https://[fd00::1]/x', 'https://[fe80::1]/x', 'https://[::ffff:10.0.0.1]/x', 'not a url', `https://example.com/${'a'.repeat(2048)}`]) {
      expect([url.slice(0, 40), await codeOf(org.dashboard.request('POST', hooks(), { url, events: ['agreement.accepted'] }))]).toEqual([url.slice(0, 40), '400 invalid_url']);
    }
    for (const body of [{ url: `${receiverBase}/ok`, events: [] }, { url: `${receiverBase}/ok`, events: ['webhook.test'] }, { url: `${receiverBase}/ok`, events: ['agreement.accepted'], extra: 1 }, { url: `${receiverBase}/ok`, events: ['agreement.accepted'], description: 'x'.repeat(201) }, { url: `${receiverBase}/ok`, events: ['agreement.accepted'], description: 'line\nbreak' }, { url: `${receiverBase}/ok`, events: ['agreement.accepted'], description: '\udc00' }]) {
      expect(await codeOf(org.dashboard.request('POST', hooks(), body))).toBe('400 invalid_request');
    }
    expect((await org.dashboard.request<{ webhooks: Webhook[] }>('GET', hooks())).webhooks).toEqual([]);
  });

  it('takes the scheme in any case (stored lower-case) and folds repeated event types, up to 36 entries', async () => {
    const upper = `${receiverBase.replace(/^https/, 'HTTPS')}/upper`;
    const created = await org.dashboard.request<{ webhook: Webhook }>('POST', hooks(), { url: upper, events: Array.from({ length: 36 }, () => 'agreement.accepted') });
    expect(created.webhook).toMatchObject({ url: `${receiverBase}/upper`, events: ['agreement.accepted'] });
    expect(await codeOf(org.dashboard.request('POST', hooks(), { url: `${receiverBase}/more`, events: Array.from({ length: 37 }, () => 'agreement.accepted') }))).toBe('400 invalid_request');
    await org.dashboard.request('DELETE', `${hooks()}/${created.webhook.id}`);
    expect((await org.dashboard.request<{ webhooks: Webhook[] }>('GET', hooks())).webhooks).toEqual([]);
  });

  it('delivers a published version to subscribed endpoints: signed (verified with Stripe), retried on the schedule, never redirected, nothing to a disabled one', async () => {
    const ok = await add('/ok', ['document.version_published', 'agreement.accepted']);
    const flaky = await add('/flaky');
    const slow = await add('/slow');
    const redirect = await add('/redirect');
    const disabled = await add('/disabled');
    const other = await add('/other-type', ['agreement.finalized']);
    expect(ok.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(ok.webhook).toMatchObject({ status: 'active', secretPrefix: ok.secret.slice(0, 10), events: ['document.version_published', 'agreement.accepted'] });
    expect(JSON.stringify(await org.dashboard.request('GET', hooks()))).not.toContain(ok.secret);
    expect((await org.dashboard.request<{ webhook: Webhook }>('PATCH', `${hooks()}/${disabled.webhook.id}`, { status: 'disabled' })).webhook.status).toBe('disabled');

    const version = await org.publish(1);

    const delivered = await settled(ok.webhook.id);
    expect(delivered).toMatchObject({ status: 'delivered', eventType: 'document.version_published', attempts: [{ attempt: 1, statusCode: 200, error: null, succeeded: true }] });
    const [arrival] = arrivals('/ok');
    expect(arrival!.headers).toMatchObject({ 'svc-event': 'document.version_published', 'svc-event-id': delivered.eventId, 'svc-delivery-id': delivered.id, 'user-agent': 'Svc-Webhooks/1.0' });
    const event = stripe.webhooks.constructEvent(arrival!.body, arrival!.headers['svc-signature'] as string, ok.secret);
    expect(event).toMatchObject({ id: delivered.eventId, type: 'document.version_published', organizationId: org.organization.id });
    expect((event as unknown as { data: Record<string, unknown> }).data).toMatchObject({ document: org.document.address, versionNumber: 1, versionLabel: 'v1', transactionSignature: version.transactionSignature });
    expect(() => stripe.webhooks.constructEvent(arrival!.body, arrival!.headers['svc-signature'] as string, flaky.secret)).toThrow();

    const flakyLog = await settled(flaky.webhook.id);
    expect(flakyLog.status).toBe('delivered');
    expect(flakyLog.attempts.map((a) => [a.attempt, a.statusCode, a.succeeded])).toEqual([[1, 500, false], [2, 500, false], [3, 500, false], [4, 204, true]]);
    const gaps = flakyLog.attempts.slice(1).map((a, i) => Date.parse(a.attemptedAt) - Date.parse(flakyLog.attempts[i]!.attemptedAt));
    expect(gaps.map((g, i) => g >= [60, 300, 900][i]!)).toEqual([true, true, true]);
    const flakyArrivals = arrivals('/flaky');
    expect(new Set(flakyArrivals.map((r) => r.headers['svc-event-id']))).toEqual(new Set([flakyLog.eventId]));
    expect(new Set(flakyArrivals.map((r) => r.body)).size).toBe(1);
    for (const r of flakyArrivals) expect(stripe.webhooks.constructEvent(r.body, r.headers['svc-signature'] as string, flaky.secret).id).toBe(flakyLog.eventId);

    const slowLog = await settled(slow.webhook.id, 2);
    expect(slowLog.attempts[0]).toMatchObject({ statusCode: null, succeeded: false, error: 'no answer within 400 ms' });
    expect(slowLog.attempts[0]!.durationMs).toBeGreaterThanOrEqual(390);

    const redirectLog = await settled(redirect.webhook.id, 1);
    expect(redirectLog.attempts[0]).toMatchObject({ statusCode: 302, succeeded: false, error: 'answered 302' });
    expect(arrivals('/redirected')).toEqual([]);

    expect(await deliveries(disabled.webhook.id)).toEqual([]);
    expect(arrivals('/disabled')).toEqual([]);
    expect(await deliveries(other.webhook.id)).toEqual([]);
    expect(delivered.eventId).toBe(flakyLog.eventId);
  });

  it('answers parallel changes of one endpoint one after another: every PATCH and rotation 200, the last rotation\'s secret in force', async () => {
    const hook = await add('/ok');
    const url = `${hooks()}/${hook.webhook.id}`;
    const patches = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => org.dashboard.request<{ webhook: Webhook }>('PATCH', url, { events: i % 2 ? ['agreement.accepted'] : ['agreement.accepted', 'agreement.finalized'] })),
    );
    expect(patches.filter((p) => p.status === 'rejected').map((p) => String((p as PromiseRejectedResult).reason))).toEqual([]);
    const rotations = await Promise.all(Array.from({ length: 20 }, () => org.dashboard.request<{ webhook: Webhook; secret: string }>('POST', `${url}/rotate-secret`)));
    expect(new Set(rotations.map((r) => r.secret)).size).toBe(20);
    // Each rotation answered the prefix of its own secret; the endpoint keeps one of them, the one decided last.
    const listed = (await org.dashboard.request<{ webhooks: Webhook[] }>('GET', hooks())).webhooks.find((w) => w.id === hook.webhook.id)!;
    expect(rotations.map((r) => r.webhook.secretPrefix)).toContain(listed.secretPrefix);
    await org.dashboard.request('DELETE', url);
  });

  it('answers a rotation retried with its Idempotency-Key with the same secret, the one deliveries are signed with', async () => {
    const hook = await add('/ok');
    const rotate = () => org.dashboard.raw('POST', `${hooks()}/${hook.webhook.id}/rotate-secret`, undefined, { headers: { 'idempotency-key': `rotate-${hook.webhook.id}` } });
    const first = await rotate();
    const replay = await rotate();
    expect([first.response.status, replay.response.status, replay.response.headers.get('idempotent-replayed')]).toEqual([200, 200, 'true']);
    const [answered, replayed] = [JSON.parse(first.text), JSON.parse(replay.text)] as { webhook: Webhook; secret: string }[];
    expect(answered!.secret).toMatch(/^whsec_/);
    expect(replayed).toEqual(answered);
    // Stored sealed: no file of the data directory holds the secret's text.
    for (const file of filesUnder(service.dataDir)) expect([file, readFileSync(file).includes(Buffer.from(answered!.secret))]).toEqual([file, false]);
    const test = await org.dashboard.request<{ eventId: string }>('POST', `${hooks()}/${hook.webhook.id}/test`);
    await eventually(async () => (received.some((r) => r.headers['svc-event-id'] === test.eventId) ? true : undefined), 10_000, 50);
    const delivery = received.find((r) => r.headers['svc-event-id'] === test.eventId)!;
    expect(stripe.webhooks.constructEvent(delivery.body, delivery.headers['svc-signature'] as string, replayed!.secret).id).toBe(test.eventId);
    await org.dashboard.request('DELETE', `${hooks()}/${hook.webhook.id}`);
  });

  it('sends webhook.test, signs with a rotated secret only, and forgets a deleted endpoint', async () => {
    const hook = await add('/ok');
    const test = await org.dashboard.request<{ eventId: string; deliveryId: string }>('POST', `${hooks()}/${hook.webhook.id}/test`);
    expect(test.eventId).toMatch(/^evt_[0-9a-f]{32}$/);
    await eventually(async () => (received.some((r) => r.headers['svc-event-id'] === test.eventId) ? true : undefined), 10_000, 50);
    const first = received.find((r) => r.headers['svc-event-id'] === test.eventId)!;
    expect(first.headers['svc-delivery-id']).toBe(test.deliveryId);
    expect(stripe.webhooks.constructEvent(first.body, first.headers['svc-signature'] as string, hook.secret)).toMatchObject({ type: 'webhook.test', data: { message: expect.any(String) } });

    const rotated = await org.dashboard.request<{ webhook: Webhook; secret: string }>('POST', `${hooks()}/${hook.webhook.id}/rotate-secret`);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(rotated.webhook.secretPrefix).toBe(rotated.secret.slice(0, 10));
    const testAnswer = await org.dashboard.raw('POST', `${hooks()}/${hook.webhook.id}/test`);
    expect(testAnswer.response.status).toBe(200);
    const again = JSON.parse(testAnswer.text) as { eventId: string };
    expect(again.eventId).not.toBe(test.eventId);
    await eventually(async () => (received.some((r) => r.headers['svc-event-id'] === again.eventId) ? true : undefined), 10_000, 50);
    const second = received.find((r) => r.headers['svc-event-id'] === again.eventId)!;
    expect(stripe.webhooks.constructEvent(second.body, second.headers['svc-signature'] as string, rotated.secret).id).toBe(again.eventId);
    expect(() => stripe.webhooks.constructEvent(second.body, second.headers['svc-signature'] as string, hook.secret)).toThrow();

    const disabled = await add('/disabled');
    await org.dashboard.request('PATCH', `${hooks()}/${disabled.webhook.id}`, { status: 'disabled' });
    expect(await codeOf(org.dashboard.request('POST', `${hooks()}/${disabled.webhook.id}/test`))).toBe('409 chain_state');
    // The test and rotation routes take no body (spec §4.10): a body with fields is refused like any unknown field.
    expect(await codeOf(org.dashboard.request('POST', `${hooks()}/${hook.webhook.id}/test`, { foo: 1 }))).toBe('400 invalid_request');
    expect(await codeOf(org.dashboard.request('POST', `${hooks()}/${hook.webhook.id}/rotate-secret`, [1]))).toBe('400 invalid_request');
    expect((await org.dashboard.request<{ eventId: string }>('POST', `${hooks()}/${hook.webhook.id}/test`, {})).eventId).toMatch(/^evt_[0-9a-f]{32}$/);

    // Spec §4: every success is 200, a deletion too (with a body saying so), and again for one already deleted.
    for (let i = 0; i < 2; i++) {
      const { response, text } = await org.dashboard.raw('DELETE', `${hooks()}/${hook.webhook.id}`);
      expect([response.status, JSON.parse(text)]).toEqual([200, { id: hook.webhook.id, deleted: true }]);
    }
    expect((await org.dashboard.request<{ webhooks: Webhook[] }>('GET', hooks())).webhooks.map((w) => w.id)).not.toContain(hook.webhook.id);
    expect(await codeOf(deliveries(hook.webhook.id))).toBe('404 not_found');
    expect(await codeOf(org.dashboard.request('POST', `${hooks()}/${hook.webhook.id}/test`))).toBe('404 not_found');
  });

  it('pages the delivery log newest first with limit and cursor, and refuses a cursor of another endpoint', async () => {
    const hook = await add('/ok');
    const other = await add('/ok');
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) sent.push((await org.dashboard.request<{ deliveryId: string }>('POST', `${hooks()}/${hook.webhook.id}/test`)).deliveryId);
    await org.dashboard.request('POST', `${hooks()}/${other.webhook.id}/test`);
    type Page = { deliveries: Delivery[]; nextCursor: string | null };
    const page = (query: string) => org.dashboard.request<Page>('GET', `${hooks()}/${hook.webhook.id}/deliveries${query}`);
    await eventually(async () => ((await page('')).deliveries.length === 5 ? true : undefined), 10_000, 50);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const p: Page = await page(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(p.deliveries.length).toBeLessThanOrEqual(2);
      seen.push(...p.deliveries.map((d) => d.id));
      cursor = p.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual([...sent].reverse());
    // UUIDs are case-insensitive on input (RFC 9562 §4): the same log under upper-case organization and endpoint ids.
    const upper = await org.dashboard.request<Page>('GET', `/v1/organizations/${org.organization.id.toUpperCase()}/webhooks/${hook.webhook.id.toUpperCase()}/deliveries`);
    expect(upper.deliveries.map((d) => d.id)).toEqual([...sent].reverse());

    const first = await page('?limit=2');
    expect(await codeOf(org.dashboard.request('GET', `${hooks()}/${other.webhook.id}/deliveries?cursor=${first.nextCursor}`))).toBe('400 invalid_cursor');
    expect(await codeOf(page('?cursor=not*base64'))).toBe('400 invalid_cursor');
    expect(await codeOf(page('?limit=0'))).toBe('400 invalid_request');
    expect(await codeOf(page('?limit=201'))).toBe('400 invalid_request');
    expect(await codeOf(page('?after=1'))).toBe('400 invalid_request');
  });

  it('keeps other organizations and plain members out, and needs a fresh signature to add or rotate', async () => {
    const stranger = new ApiClient(service.baseUrl).useSession(await signIn(new ApiClient(service.baseUrl), await generateKeyPairSigner()));
    expect(await codeOf(stranger.request('GET', hooks()))).toBe('404 not_found');
    expect(await codeOf(stranger.request('POST', hooks(), { url: `${receiverBase}/ok`, events: ['agreement.accepted'] }))).toBe('404 not_found');
    const hook = await add('/ok');
    clock.advance(601);
    expect(await codeOf(add('/ok'))).toBe('403 reauthentication_required');
    expect(await codeOf(org.dashboard.request('POST', `${hooks()}/${hook.webhook.id}/rotate-secret`))).toBe('403 reauthentication_required');
    const fresh = new ApiClient(service.baseUrl).useSession(await signIn(new ApiClient(service.baseUrl), org.owner));
    expect((await add('/ok', ['agreement.accepted'], fresh)).webhook.status).toBe('active');
    org.dashboard = fresh;
    // Back in step with the ledger's clock: an acceptance must land within its message's validity window.
    clock.advance(-601);
  });

  it('sends agreement.accepted with every field of spec §6.1, its fee shaped as spec §4.4 gives a fee', async () => {
    if (org.versions.length === 0) await org.publish(1);
    const hook = await add('/ok', ['agreement.accepted']);
    const signer = await generateKeyPairSigner();
    const client = new ApiClient(service.baseUrl);
    const accepted = await acceptAsWallet(client, signer, { organization: org.organization.address, document: org.document.address, origin: 'https://shop.example.com' });
    const delivery = await settled(hook.webhook.id);
    const arrival = arrivals('/ok').find((r) => r.headers['svc-delivery-id'] === delivery.id)!;
    const event = stripe.webhooks.constructEvent(arrival.body, arrival.headers['svc-signature'] as string, hook.secret) as unknown as { type: string; data: Record<string, unknown> };
    expect(event.type).toBe('agreement.accepted');
    const network = await client.request<{ relayer: string }>('GET', '/v1/network');
    expect(event.data).toMatchObject({
      acceptanceId: accepted.acceptanceId,
      transactionSignature: accepted.transactionSignature,
      signer: signer.address,
      signerType: 'wallet',
      protocol: 'svc/1',
      fee: { payer: network.relayer, lamports: accepted.fee.lamports, sponsor: 'svc', reimbursedLamports: null },
      document: org.document.address,
      version: org.versions[0]!.address,
      versionNumber: 1,
    });
    const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
    expect(ajv.validate(WEBHOOK_DATA_SCHEMAS['agreement.accepted'], event.data) ? [] : ajv.errors).toEqual([]);
  });

  it('sends a pending retry after a restart, at its due time, with the same event id', async () => {
    await stopChecked();
    const port = Number(new URL(service.baseUrl).port);
    const restartEnv = { ...env, WEBHOOK_RETRY_SCALE: '0.05' }; // first retry after 3 s
    service = await startTestService({ clock, env: restartEnv, dataDir: service.dataDir, port, checkResponses: true });
    const hook = await add('/down');
    const test = await org.dashboard.request<{ eventId: string; deliveryId: string }>('POST', `${hooks()}/${hook.webhook.id}/test`);
    const failed = await settled(hook.webhook.id, 1);
    expect(failed.attempts[0]).toMatchObject({ statusCode: 503, succeeded: false });
    await stopChecked();
    downFailing = false;
    service = await startTestService({ clock, env: restartEnv, dataDir: service.dataDir, port, checkResponses: true });
    const done = await settled(hook.webhook.id);
    expect(done).toMatchObject({ id: test.deliveryId, eventId: test.eventId, status: 'delivered' });
    expect(done.attempts.map((a) => [a.attempt, a.statusCode])).toEqual([[1, 503], [2, 200]]);
    expect(Date.parse(done.attempts[1]!.attemptedAt)).toBeGreaterThanOrEqual(Date.parse(failed.nextAttemptAt!));
    const downArrivals = arrivals('/down');
    expect(downArrivals.map((r) => r.headers['svc-event-id'])).toEqual([test.eventId, test.eventId]);
    expect(stripe.webhooks.constructEvent(downArrivals[1]!.body, downArrivals[1]!.headers['svc-signature'] as string, hook.secret).id).toBe(test.eventId);
  });

  it("after the webhook secrets key changed, a delivery records why nothing was sent, and goes through once the secret is rotated", async () => {
    const hook = await add('/ok', ['agreement.accepted']);
    await stopChecked();
    const port = Number(new URL(service.baseUrl).port);
    // Another deployment key: the endpoint's sealed secret no longer opens.
    const otherKey = { ...env, WEBHOOK_RETRY_SCALE: '0.05', WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') };
    service = await startTestService({ clock, env: otherKey, dataDir: service.dataDir, port, checkResponses: true });
    const before = arrivals('/ok').length;
    const test = await org.dashboard.request<{ eventId: string; deliveryId: string }>('POST', `${hooks()}/${hook.webhook.id}/test`);
    const stuck = await eventually(async () => {
      const d = (await deliveries(hook.webhook.id)).find((x) => x.id === test.deliveryId);
      return d && d.attempts.length >= 1 ? d : undefined;
    }, 20_000, 50);
    expect(stuck).toMatchObject({ status: 'pending', attempts: [{ attempt: 1, statusCode: null, succeeded: false, error: expect.stringContaining('rotate the secret') }] });
    expect(arrivals('/ok').length).toBe(before);

    const fresh = new ApiClient(service.baseUrl).useSession(await signIn(new ApiClient(service.baseUrl), org.owner));
    const { secret } = await fresh.request<{ secret: string }>('POST', `${hooks()}/${hook.webhook.id}/rotate-secret`);
    const done = await eventually(async () => {
      const d = (await deliveries(hook.webhook.id)).find((x) => x.id === test.deliveryId);
      return d && d.status !== 'pending' ? d : undefined;
    }, 20_000, 50);
    expect(done.status).toBe('delivered');
    const arrival = arrivals('/ok').find((r) => r.headers['svc-delivery-id'] === test.deliveryId)!;
    expect(stripe.webhooks.constructEvent(arrival.body, arrival.headers['svc-signature'] as string, secret).id).toBe(test.eventId);
  });
});
