import * as path from 'node:path';
import Database from 'better-sqlite3';
import { generateKeyPairSigner } from '@solana/kit';
import { ApiClient } from '../apps/cli/src/api-client';
import { acceptAsWallet } from '../apps/cli/src/operations';
import { eventually, publishedDocument } from './support/fixtures';
import { startTestService, tempDataDir } from './support/test-service';

interface Readiness {
  status: string;
  components: Record<string, string>;
  processorFaults: { processor: string; streamId: string; position: string; reason: string }[];
}

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
      const body = await eventually(async () => {
        const res = await fetch(`${second.baseUrl}/api/ready`);
        return res.status === 503 ? ((await res.json()) as Readiness) : undefined;
      }, 20_000);
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
