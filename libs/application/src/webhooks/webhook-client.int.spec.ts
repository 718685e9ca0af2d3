import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '@svc/config';
import { testCertificates, type TestCertificates } from '../../../../test/support/test-certificates';
import { WebhookClient } from './webhook-client';

/** Blocks the event loop for `ms` milliseconds, as a process catching up on a backlog does. */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    /* spin */
  }
}

describe('the delivery client judges the receiver, not its own event loop (spec §8: 2xx within 10 s)', () => {
  let certs: TestCertificates;
  let server: Server;
  let client: WebhookClient;
  let url: string;
  const env = process.env.NODE_ENV;

  beforeAll(async () => {
    certs = await testCertificates();
    server = createServer({ key: certs.key, cert: certs.cert }, (req, res) => {
      req.resume();
      const wait = Number(new URL(req.url ?? '/', 'https://x').searchParams.get('wait'));
      setTimeout(() => res.writeHead(200).end('ok'), wait);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    process.env.NODE_ENV = 'test';
    client = new WebhookClient(
      loadConfig({ DATA_DIR: mkdtempSync(path.join(tmpdir(), 'svc-webhook-timing-')), WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_TEST_CA_FILE: certs.caFile, WEBHOOK_TIMEOUT_MS: '400' }),
    );
  });
  afterAll(async () => {
    process.env.NODE_ENV = env;
    client.onApplicationShutdown();
    await new Promise((resolve) => server.close(resolve));
    rmSync(certs.dir, { recursive: true, force: true });
  });

  it('an answer that arrived in time counts even when the process was busy past the deadline', async () => {
    // Warm the TLS path, then send; the receiver answers after 100 ms while this process is stuck until 700 ms.
    expect((await client.post(`${url}?wait=0`, '{}', {})).statusCode).toBe(200);
    const answer = client.post(`${url}?wait=100`, '{}', {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    busy(650);
    const result = await answer;
    expect(result).toMatchObject({ statusCode: 200, error: null });
  });

  it('a receiver that does not answer in time is a timeout', async () => {
    const result = await client.post(`${url}?wait=1500`, '{}', {});
    expect(result).toMatchObject({ statusCode: null, error: 'no answer within 400 ms' });
  });
});
