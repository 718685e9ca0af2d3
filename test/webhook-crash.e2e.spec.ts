/**
 * Webhook delivery survives a crash (docs/api.md "Webhooks"; docs/architecture.md "Durability"): the service is killed with
 * SIGKILL (armed with `SVC_TEST_KILL_AT`) right before sending an `agreement.accepted` delivery, or right after
 * sending it but before recording the attempt, then restarted on the same data. The receiver gets the event at
 * least once, always under the same event id, signed so that Stripe's verifier accepts it, with the data of §6.1.
 */
import { existsSync, rmSync } from 'node:fs';
import { generateKeyPairSigner } from '@solana/kit';
import Stripe from 'stripe';
import { ApiClient } from '../apps/cli/src/api-client';
import { acceptAsWallet } from '../apps/cli/src/operations';
import { apiMain } from '../apps/cli/src/paths';
import { startService, type RunningService } from '../apps/cli/src/service-process';
import { exited, ORIGIN, webhookReceiver, type ReceivedWebhook, type WebhookReceiver } from './support/durability';
import { eventually, publishedDocument } from './support/fixtures';
import { tempDataDir } from './support/test-service';

const built = existsSync(apiMain());
const stripe = new Stripe('sk_test_unused');

(built ? describe : describe.skip)(`webhook delivery resumed after a crash${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  let receiver: WebhookReceiver;
  let received: ReceivedWebhook[];
  let receiverBase: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    receiver = await webhookReceiver();
    ({ received, base: receiverBase } = receiver);
    env = {
      LEDGER_SLOT_MS: '100',
      NODE_ENV: 'test',
      ...receiver.env,
      WEBHOOK_RETRY_SCALE: '0.001',
      RATE_LIMIT_SIGNIN_PER_MINUTE: '1000',
    };
  });
  afterAll(() => receiver?.close());

  it.each(['webhook:before-send', 'webhook:after-send'] as const)('killed at %s: agreement.accepted arrives, always under one event id', async (point) => {
    received.length = 0;
    const dataDir = tempDataDir('svc-webhook-crash-');
    let first: RunningService | undefined;
    let second: RunningService | undefined;
    try {
      first = await startService({ dataDir, env: { ...env, SVC_TEST_KILL_AT: point } });
      const port = Number(new URL(first.baseUrl).port);
      const doc = await publishedDocument(first, [1]);
      const { secret } = await doc.dashboard.request<{ secret: string }>('POST', `/v1/organizations/${doc.organization.id}/webhooks`, {
        url: `${receiverBase}/hooks`,
        events: ['agreement.accepted'],
      });
      const signer = await generateKeyPairSigner();
      const accepted = await acceptAsWallet(new ApiClient(first.baseUrl), signer, { organization: doc.organization.address, document: doc.document.address, origin: ORIGIN });
      // The first delivery attempt kills the service.
      await exited(first.process);
      expect(first.process.signalCode).toBe('SIGKILL');
      expect(received.length).toBe(point === 'webhook:after-send' ? 1 : 0);

      second = await startService({ dataDir, port, env });
      const deliveries = await eventually(async () => (received.length >= (point === 'webhook:after-send' ? 2 : 1) ? [...received] : undefined), 30_000);
      // At least once, never under another id: the receiver de-duplicates on it (spec §6.1 rule 5).
      expect(new Set(deliveries.map((d) => d.eventId)).size).toBe(1);
      for (const d of deliveries) {
        const event = stripe.webhooks.constructEvent(d.body, d.signature, secret) as unknown as { id: string; type: string; organizationId: string; data: Record<string, unknown> };
        expect(event.id).toBe(d.eventId);
        expect(event).toMatchObject({ type: 'agreement.accepted', organizationId: doc.organization.id });
        expect(event.data).toMatchObject({
          acceptanceId: accepted.acceptanceId,
          transactionSignature: accepted.transactionSignature,
          signer: signer.address,
          signerType: 'wallet',
          document: doc.document.address,
          documentSlug: doc.document.slug,
          version: doc.versions[0]!.address,
          versionNumber: 1,
          externalUserRef: null,
        });
        expect(Object.keys(event.data)).toEqual(expect.arrayContaining(['slot', 'commitment', 'protocol', 'fee', 'receiptUrl', 'verify']));
      }
      // The restarted service records the delivery as done: nothing more arrives.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(received.length).toBe(deliveries.length);
    } finally {
      if (first && first.process.exitCode === null && first.process.signalCode === null) first.process.kill('SIGKILL');
      await second?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('killed after recording a new endpoint, before answering: the retry with the same Idempotency-Key answers that endpoint and its secret at once, never a second one', async () => {
    received.length = 0;
    const dataDir = tempDataDir('svc-webhook-create-crash-');
    let first: RunningService | undefined;
    let second: RunningService | undefined;
    try {
      first = await startService({ dataDir, env: { ...env, SVC_TEST_KILL_AT: 'webhook:after-create' } });
      const port = Number(new URL(first.baseUrl).port);
      const doc = await publishedDocument(first, [1]);
      const route = `/v1/organizations/${doc.organization.id}/webhooks`;
      const create = () => doc.dashboard.request<{ webhook: { id: string }; secret: string }>('POST', route, { url: `${receiverBase}/hooks`, events: ['agreement.accepted'] }, { headers: { 'idempotency-key': 'add-hooks-1' } });
      // The answer is lost: the process dies once the endpoint is recorded.
      await expect(create()).rejects.toThrow();
      await exited(first.process);
      expect(first.process.signalCode).toBe('SIGKILL');

      second = await startService({ dataDir, port, env });
      const started = Date.now();
      const { webhook, secret } = await create();
      // Its run's process is gone: the key is taken over at once, not after the 120 s a running request may hold it.
      expect(Date.now() - started).toBeLessThan(60_000);
      const { webhooks } = await doc.dashboard.request<{ webhooks: { id: string }[] }>('GET', route);
      expect(webhooks.map((w) => w.id)).toEqual([webhook.id]);
      // The secret answered is the one the endpoint signs with.
      await doc.dashboard.request('POST', `${route}/${webhook.id}/test`);
      const [delivery] = await eventually(async () => (received.length >= 1 ? [...received] : undefined), 30_000);
      expect((stripe.webhooks.constructEvent(delivery!.body, delivery!.signature, secret) as unknown as { type: string }).type).toBe('webhook.test');
      // A later request with the same key is the stored answer.
      expect(await create()).toEqual({ webhook, secret });
    } finally {
      if (first && first.process.exitCode === null && first.process.signalCode === null) first.process.kill('SIGKILL');
      await second?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('killed after recording a new endpoint: a retry after its secret was rotated never answers the rotated secret; one after the endpoint was deleted answers 404 and adds none', async () => {
    const dataDir = tempDataDir('svc-webhook-create-rotated-');
    let running: RunningService | undefined;
    try {
      running = await startService({ dataDir, env: { ...env, SVC_TEST_KILL_AT: 'webhook:after-create' } });
      const port = Number(new URL(running.baseUrl).port);
      const doc = await publishedDocument(running, [1]);
      const route = `/v1/organizations/${doc.organization.id}/webhooks`;
      type Created = { webhook: { id: string; secretPrefix: string }; secret: string };
      const create = (key: string) => doc.dashboard.request<Created>('POST', route, { url: `${receiverBase}/hooks`, events: ['agreement.accepted'] }, { headers: { 'idempotency-key': key } });
      const listed = async () => (await doc.dashboard.request<{ webhooks: { id: string; secretPrefix: string }[] }>('GET', route)).webhooks;
      // Two creations whose answers are lost: each process dies once its endpoint is recorded.
      await expect(create('rotated-meanwhile')).rejects.toThrow();
      await exited(running.process);
      running = await startService({ dataDir, port, env: { ...env, SVC_TEST_KILL_AT: 'webhook:after-create' } });
      await expect(create('deleted-meanwhile')).rejects.toThrow();
      await exited(running.process);
      running = await startService({ dataDir, port, env });
      const [second, first] = await listed();
      expect(first && second).toBeTruthy();

      // The retry answers the endpoint with the secret it was created with, as the lost answer had it: a secret
      // rotated in since is shown to whoever rotated it, and only to them.
      const { secret: rotated } = await doc.dashboard.request<{ secret: string }>('POST', `${route}/${first!.id}/rotate-secret`);
      const retried = await create('rotated-meanwhile');
      expect(retried.webhook.id).toBe(first!.id);
      expect(retried.secret).not.toBe(rotated);
      expect(retried.secret.startsWith(first!.secretPrefix)).toBe(true);

      // Deleted before the retry: nothing to answer, and nothing added.
      await doc.dashboard.request('DELETE', `${route}/${second!.id}`);
      await expect(create('deleted-meanwhile')).rejects.toMatchObject({ status: 404 });
      expect((await listed()).map((w) => w.id)).toEqual([first!.id]);
    } finally {
      if (running && running.process.exitCode === null && running.process.signalCode === null) running.process.kill('SIGKILL');
      await running?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('stopped gracefully (SIGTERM) while a receiver has not answered yet: no failed attempt is recorded, the delivery is sent again as attempt 1', async () => {
    const slow = await webhookReceiver({ answerAfterMs: 3_000 });
    const dataDir = tempDataDir('svc-webhook-sigterm-');
    let first: RunningService | undefined;
    let second: RunningService | undefined;
    try {
      const slowEnv = { ...env, ...slow.env };
      first = await startService({ dataDir, env: slowEnv });
      const port = Number(new URL(first.baseUrl).port);
      const doc = await publishedDocument(first, [1]);
      const { webhook } = await doc.dashboard.request<{ webhook: { id: string } }>('POST', `/v1/organizations/${doc.organization.id}/webhooks`, {
        url: `${slow.base}/hooks`,
        events: ['agreement.accepted'],
      });
      await doc.dashboard.request('POST', `/v1/organizations/${doc.organization.id}/webhooks/${webhook.id}/test`);
      // The request reached the receiver, which holds its answer back; the service is stopped meanwhile.
      await eventually(async () => (slow.received.length >= 1 ? true : undefined), 15_000);
      await first.stop();
      expect(first.process.signalCode ?? first.process.exitCode).not.toBe('SIGKILL');

      second = await startService({ dataDir, port, env: slowEnv });
      type Deliveries = { deliveries: { status: string; attempts: { attempt: number; statusCode: number | null; error: string | null; succeeded: boolean }[] }[] };
      const { deliveries } = await eventually(async () => {
        // Same port: the dashboard session of the first process goes on (it is in the stores).
        const log = await doc.dashboard.request<Deliveries>('GET', `/v1/organizations/${doc.organization.id}/webhooks/${webhook.id}/deliveries`);
        return log.deliveries[0]?.status === 'delivered' ? log : undefined;
      }, 30_000);
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]!.attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: 200, error: null, succeeded: true })]);
      // Sent twice under one event id (at least once), recorded once.
      expect(slow.received.length).toBe(2);
      expect(new Set(slow.received.map((d) => d.eventId)).size).toBe(1);
    } finally {
      if (first && first.process.exitCode === null && first.process.signalCode === null) first.process.kill('SIGKILL');
      await second?.stop();
      await slow.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
