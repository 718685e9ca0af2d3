/**
 * An API replica whose ledger RPC refuses its calls (the ledger owner's `/rpc` budget spent, or the owner gone) answers
 * a direct-mode submission with `502 relay_failed` and records nothing, so the same challenge can be submitted again
 * once the ledger answers (docs/api.md "Signing an acceptance"; README "Production topology").
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSigner } from '@solana/kit';
import { ApiClient, ApiError } from '../apps/cli/src/api-client';
import { signText } from '../apps/cli/src/operations';
import { publishedDocument } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';

/** A JSON-RPC proxy to `target` that answers HTTP 429, as a spent `/rpc` budget does, while `refusing`. */
function rpcProxy(target: string): Promise<{ url: string; server: Server; refuse(on: boolean): void }> {
  let refusing = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (refusing) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '60' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: 429, message: 'Too many requests: retry in 60 s' }, id: null }));
        return;
      }
      void fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) }).then(
        async (answer) => {
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(await answer.text());
        },
        () => {
          res.writeHead(502);
          res.end();
        },
      );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server, refuse: (on) => (refusing = on) })),
  );
}

describe('a replica whose ledger RPC refuses it', () => {
  let owner: TestService;
  let replica: TestService;
  let proxy: Awaited<ReturnType<typeof rpcProxy>>;

  beforeAll(async () => {
    owner = await startTestService();
    proxy = await rpcProxy(owner.rpcUrl);
    replica = await startTestService({ dataDir: owner.dataDir, env: { RUN_PROJECTIONS: 'false', LEDGER_RPC_URL: proxy.url } });
  }, 30_000);

  afterAll(async () => {
    await replica?.stop();
    proxy?.server.close();
    await owner?.destroy();
  });

  it('answers a direct submission 502 relay_failed, records nothing, and takes the same challenge once the ledger answers', async () => {
    const doc = await publishedDocument(owner, [1]);
    const client = new ApiClient(replica.baseUrl);
    const signer = await generateKeyPairSigner();
    const challenge = await client.request<{ challengeId: string; message: string; clientBinding: string }>(
      'POST',
      '/v1/acceptance/challenges',
      { organization: doc.organization.address, document: doc.document.address, signer: signer.address },
      { origin: 'https://shop.example' },
    );
    const signature = await signText(signer, challenge.message);
    const submit = () =>
      client.request<{ status: string; transactionSignature: string }>(
        'POST',
        `/v1/acceptance/challenges/${challenge.challengeId}/submit`,
        { clientBinding: challenge.clientBinding, signature },
        { origin: 'https://shop.example' },
      );
    proxy.refuse(true);
    // The replica reuses a blockhash for a few seconds: wait until it must ask the ledger again.
    await new Promise((r) => setTimeout(r, 5_500));
    const refused = await submit().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 502, code: 'relay_failed', message: expect.stringContaining('nothing was recorded') });

    // Readiness says the ledger is down, and why, without the endpoint's URL.
    const notReady = await fetch(`${replica.baseUrl}/api/ready`);
    const notReadyBody = (await notReady.json()) as { status: string; components: { ledger: string }; ledgerProblem: unknown };
    expect(notReady.status).toBe(503);
    expect(notReadyBody).toMatchObject({ status: 'not_ready', components: { ledger: 'down' }, ledgerProblem: { code: 'Unavailable', message: expect.stringContaining('HTTP 429') } });
    expect(JSON.stringify(notReadyBody)).not.toContain(proxy.url);

    // Nothing was recorded: the same challenge is still open and goes through once the ledger answers.
    proxy.refuse(false);
    const accepted = await submit();
    expect(accepted).toMatchObject({ status: 'confirmed', transactionSignature: expect.any(String) });
    const ready = await fetch(`${replica.baseUrl}/api/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ components: { ledger: 'up' }, ledgerProblem: null });
  }, 60_000);
});
