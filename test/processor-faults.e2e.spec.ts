import * as path from 'node:path';
import Database from 'better-sqlite3';
import { generateKeyPairSigner } from '@solana/kit';
import { ApiClient } from '../apps/cli/src/api-client';
import { acceptAsWallet } from '../apps/cli/src/operations';
import { hashOfRow, type EventRow } from '../libs/event-store/src/sqlite-rows';
import { eventually, publishedDocument } from './support/fixtures';
import { startTestService, tempDataDir } from './support/test-service';

interface Readiness {
  status: string;
  components: Record<string, string>;
  eventLogCheck: { state: string; checked: number; through: string };
  eventLogFaults: { streamId: string; position: string; revision: string; eventId: string; reason: string; detail: string }[];
  processorFaults: { processor: string; streamId: string; position: string; reason: string }[];
}

/** The body of the first 503 answer of `/api/ready` (within 20 s). */
const notReady = (baseUrl: string): Promise<Readiness> =>
  eventually(async () => {
    const res = await fetch(`${baseUrl}/api/ready`);
    return res.status === 503 ? ((await res.json()) as Readiness) : undefined;
  }, 20_000);

/**
 * A processor that meets a tampered stored event stops loudly: it does not act on it, it names it, and
 * readiness reports the service degraded (docs/architecture.md "Processors").
 */
describe('a processor reading a tampered stored event', () => {
  it('stops on it and /api/ready answers 503 naming the processor, the stream and the position', async () => {
    const dataDir = tempDataDir('svc-processor-fault-');
    const first = await startTestService({ dataDir });
    const doc = await publishedDocument(first, [1]);
    const accepted = await acceptAsWallet(new ApiClient(first.baseUrl), await generateKeyPairSigner(), {
      organization: doc.organization.address,
      document: doc.document.address,
      origin: 'https://shop.example.com',
    });
    await first.stop();

    // Edit the recorded submission in place, and make the relay processor read the log again from its start.
    const log = new Database(path.join(dataDir, 'events.sqlite'));
    const row = log.prepare("SELECT position, stream_id AS streamId, data FROM events WHERE type = 'AcceptanceSubmitted'").get() as { position: number; streamId: string; data: string };
    log.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify({ ...JSON.parse(row.data), requestDomain: 'evil.example' }), row.position);
    log.close();
    const read = new Database(path.join(dataDir, 'read.sqlite'));
    expect(read.prepare("DELETE FROM checkpoints WHERE _id = 'processor.relay-acceptance'").run().changes).toBe(1);
    read.close();

    const second = await startTestService({ dataDir });
    try {
      const body = await notReady(second.baseUrl);
      expect(body.status).toBe('not_ready');
      expect(body.components.processors).toBe('down');
      expect(body.processorFaults).toEqual([{ processor: 'relay-acceptance', streamId: row.streamId, position: String(row.position), reason: 'hash_mismatch' }]);
      // The acceptance answered before the edit is untouched on the public side.
      const { acceptance } = await new ApiClient(second.baseUrl).request<{ acceptance: { transactionSignature: string } }>('GET', `/v1/public/acceptances/${accepted.acceptanceId}`);
      expect(acceptance.transactionSignature).toBe(accepted.transactionSignature);
    } finally {
      await second.destroy();
    }
  });
});

/**
 * An event edited where no projection or processor reads any more (every checkpoint is past it), even with its own
 * hash recomputed, is found by the check of the whole log that every start makes, and readiness names it.
 */
describe('an event edited behind the service, read by nobody after a restart', () => {
  it('is found by the start-up check of the log: /api/ready answers 503 with the event log down', async () => {
    const dataDir = tempDataDir('svc-log-check-');
    const first = await startTestService({ dataDir });
    const doc = await publishedDocument(first, [1]);
    const before = await new ApiClient(first.baseUrl).request<{ name: string }>('GET', `/v1/public/organizations/${doc.organization.address}`);
    await first.stop();

    // Rename the organization in its registration event and recompute that row's hash: only the next row's link
    // still tells.
    const log = new Database(path.join(dataDir, 'events.sqlite'));
    const row = log.prepare("SELECT * FROM events WHERE type = 'OrganizationSynced' ORDER BY position LIMIT 1").get() as EventRow;
    const data = JSON.stringify({ ...JSON.parse(row.data), name: 'Forged Name Ltd' });
    log.prepare('UPDATE events SET data = ?, hash = ? WHERE position = ?').run(data, hashOfRow({ ...row, data }, String(row.prev_hash), String(row.stream_prev_hash)), row.position);
    const head = Number(log.prepare('SELECT max(position) FROM events').pluck().get());
    log.close();

    const second = await startTestService({ dataDir });
    try {
      const body = await notReady(second.baseUrl);
      expect(body.status).toBe('not_ready');
      expect(body.components.eventLog).toBe('down');
      // The forged row itself is not counted good: only the next row's link tells, and it puts the row before in doubt.
      // The check goes on past it: every other row, up to the head, is good.
      expect(body.eventLogCheck).toEqual({ state: 'failed', checked: head - 2, through: String(head) });
      expect(body.eventLogFaults).toEqual([
        expect.objectContaining({ position: String(Number(row.position) + 1), reason: 'broken_link', detail: expect.stringContaining(String(row.hash).slice(0, 16)) }),
      ]);
      // What was served before the edit is still served; the forged name never is.
      const after = await new ApiClient(second.baseUrl).request<{ name: string }>('GET', `/v1/public/organizations/${doc.organization.address}`);
      expect(after.name).toBe(before.name);
    } finally {
      await second.destroy();
    }
  });
});
