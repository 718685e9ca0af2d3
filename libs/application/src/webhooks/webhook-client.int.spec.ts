import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { loadConfig } from '@svc/config';
import { testCertificates, type TestCertificates } from '../../../../test/support/test-certificates';
import { WebhookClient } from './webhook-client';

/** Blocks this thread's event loop until `until` (epoch ms), as a process catching up on a backlog does. */
function busyUntil(until: number): void {
  while (Date.now() < until) {
    /* spin */
  }
}

/**
 * An HTTPS receiver on its own thread (its event loop keeps running while the test blocks this one): it posts
 * `received` when a request arrives and answers 200 after the request's `wait` query parameter (milliseconds).
 */
const RECEIVER = `
const { parentPort, workerData } = require('node:worker_threads');
const https = require('node:https');
const server = https.createServer({ key: workerData.key, cert: workerData.cert }, (req, res) => {
  req.resume();
  parentPort.postMessage('received');
  const wait = Number(new URL(req.url, 'https://x').searchParams.get('wait'));
  setTimeout(() => res.writeHead(200).end('ok'), wait);
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

describe('the delivery client judges the receiver, not its own event loop (spec §8: 2xx within 10 s)', () => {
  const TIMEOUT_MS = 1000;
  let certs: TestCertificates;
  let receiver: Worker;
  let client: WebhookClient;
  let url: string;
  const env = process.env.NODE_ENV;

  beforeAll(async () => {
    certs = await testCertificates();
    receiver = new Worker(RECEIVER, { eval: true, workerData: { key: certs.key, cert: certs.cert } });
    const port = await new Promise<number>((resolve) => receiver.once('message', resolve));
    url = `https://127.0.0.1:${port}/hook`;
    process.env.NODE_ENV = 'test';
    client = new WebhookClient(
      loadConfig({ DATA_DIR: mkdtempSync(path.join(tmpdir(), 'svc-webhook-timing-')), WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_TEST_CA_FILE: certs.caFile, WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) }),
    );
  });
  afterAll(async () => {
    process.env.NODE_ENV = env;
    client.onApplicationShutdown();
    await receiver.terminate();
    rmSync(certs.dir, { recursive: true, force: true });
  });

  it('an answer that arrived in time counts even when the process was busy past the deadline', async () => {
    const started = Date.now();
    const answer = client.post(`${url}?wait=100`, '{}', {});
    await new Promise((resolve) => receiver.once('message', resolve));
    const received = Date.now() - started;
    // The receiver answers 100 ms after the request arrived, well within the deadline, while this thread is stuck
    // until half a second past the deadline.
    expect(received).toBeLessThan(TIMEOUT_MS - 300);
    busyUntil(started + TIMEOUT_MS + 500);
    expect(await answer).toMatchObject({ statusCode: 200, error: null });
  });

  it('a receiver that does not answer in time is a timeout', async () => {
    const result = await client.post(`${url}?wait=${TIMEOUT_MS + 1000}`, '{}', {});
    expect(result).toMatchObject({ statusCode: null, error: `no answer within ${TIMEOUT_MS} ms` });
  });
});
