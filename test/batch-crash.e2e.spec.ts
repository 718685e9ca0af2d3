import { existsSync, rmSync } from 'node:fs';
import { generateKeyPairSigner } from '@solana/kit';
import { RpcLedger } from '@svc/ledger';
import { ApiClient } from '../apps/cli/src/api-client';
import { apiMain } from '../apps/cli/src/paths';
import { startService, type RunningService } from '../apps/cli/src/service-process';
import { batchAnchorsOnLedger, crashScenario, exited, issueChallenge, submitSigned } from './support/durability';
import { eventually, publishedDocument } from './support/fixtures';
import { tempDataDir } from './support/test-service';

const built = existsSync(apiMain());
// One lane, so that the three acceptances share one batch; a window long enough for the three answers to come first.
const env = { LEDGER_SLOT_MS: '100', BATCH_WINDOW_MS: '1500', BATCH_LANES: '1' };

/**
 * Closing and anchoring a batch (docs/architecture.md "Batches"): place the leaves → record the batch with its signed
 * anchor → send → record the anchoring on every acceptance. The service is killed (SIGKILL, `SVC_TEST_KILL_AT`)
 * between two of these steps after three acceptances were answered `pending_batch`, then restarted on the same data:
 * each acceptance ends in exactly one anchored batch, anchored by exactly one transaction on the ledger.
 */
(built ? describe : describe.skip)(`batches resumed after a crash between their steps${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  it.each(['batch:before-close', 'batch:before-send', 'batch:after-send'])('killed at %s: the restart anchors the three acceptances once', (point) =>
    crashScenario('svc-batch-crash-', env, point, async ({ first, doc, restart }) => {
      await doc.dashboard.request('PATCH', `/v1/organizations/${doc.organization.id}/settings`, { evidenceMode: 'MERKLE_BATCHED' });
      const target = { organization: doc.organization.address, document: doc.document.address };
      const client = new ApiClient(first.baseUrl);
      const { relayer } = await client.request<{ relayer: string }>('GET', '/v1/network');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const signer = await generateKeyPairSigner();
        const outcome = await submitSigned(client, await issueChallenge(client, target, signer), signer);
        if (outcome.kind !== 'ok') throw new Error(`submission not answered: ${JSON.stringify(outcome)}`);
        expect(outcome.result).toMatchObject({ status: 'pending_batch', transactionSignature: null });
        ids.push(outcome.result.acceptanceId);
      }
      await exited(first.process);
      expect(first.process.signalCode).toBe('SIGKILL');

      const second = await restart();
      const after = new ApiClient(second.baseUrl);
      const records = await eventually(async () => {
        const all = await Promise.all(ids.map((id) => after.request<{ acceptance: { transactionSignature: string | null } }>('GET', `/v1/public/acceptances/${id}`)));
        return all.every((r) => r.acceptance.transactionSignature !== null) ? all : undefined;
      }, 30_000);
      const anchors = new Set(records.map((r) => r.acceptance.transactionSignature));
      expect(anchors.size).toBe(1);

      const onLedger = await batchAnchorsOnLedger(new RpcLedger({ url: second.rpcUrl }), relayer);
      expect(onLedger).toHaveLength(1);
      expect(onLedger[0]).toMatchObject({ transactionSignature: [...anchors][0], lane: 0, sequence: 1, size: 3 });
      const manifest = await after.request<{ leaves: { acceptanceId: string }[] }>('GET', `/v1/public/batches/${onLedger[0]!.root}`);
      expect(manifest.leaves.map((l) => l.acceptanceId).sort()).toEqual([...ids].sort());
    }),
  );
});

(built ? describe : describe.skip)(`a graceful stop with a batch open${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  it('closes the batch and sends its anchor before the process ends, so a long stop cannot outlast the acceptances', async () => {
    const dataDir = tempDataDir('svc-batch-stop-');
    // A window far longer than the test: only the stop can close this batch in time.
    const longWindow = { ...env, BATCH_WINDOW_MS: '600000' };
    let first: RunningService | undefined;
    let second: RunningService | undefined;
    try {
      first = await startService({ dataDir, env: longWindow });
      const port = Number(new URL(first.baseUrl).port);
      const doc = await publishedDocument(first, [1]);
      await doc.dashboard.request('PATCH', `/v1/organizations/${doc.organization.id}/settings`, { evidenceMode: 'MERKLE_BATCHED' });
      const client = new ApiClient(first.baseUrl);
      const { relayer } = await client.request<{ relayer: string }>('GET', '/v1/network');
      const target = { organization: doc.organization.address, document: doc.document.address };
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const signer = await generateKeyPairSigner();
        const outcome = await submitSigned(client, await issueChallenge(client, target, signer), signer);
        if (outcome.kind !== 'ok') throw new Error(`submission not answered: ${JSON.stringify(outcome)}`);
        expect(outcome.result).toMatchObject({ status: 'pending_batch' });
        ids.push(outcome.result.acceptanceId);
      }
      await first.stop();
      expect(first.process.signalCode ?? first.process.exitCode).toBe('SIGTERM');
      const stoppedAt = Date.now();

      second = await startService({ dataDir, port, env: longWindow });
      const after = new ApiClient(second.baseUrl);
      const records = await eventually(async () => {
        const all = await Promise.all(ids.map((id) => after.request<{ acceptance: { transactionSignature: string | null; blockTime: string } }>('GET', `/v1/public/acceptances/${id}`)));
        return all.every((r) => r.acceptance.transactionSignature !== null) ? all : undefined;
      }, 30_000);
      expect(new Set(records.map((r) => r.acceptance.transactionSignature)).size).toBe(1);
      // Landed while the first process still ran: its block time is before the stop.
      for (const r of records) expect(Date.parse(r.acceptance.blockTime)).toBeLessThanOrEqual(stoppedAt);
      const onLedger = await batchAnchorsOnLedger(new RpcLedger({ url: second.rpcUrl }), relayer);
      expect(onLedger).toHaveLength(1);
      expect(onLedger[0]).toMatchObject({ lane: 0, sequence: 1, size: 3 });
    } finally {
      if (first && first.process.exitCode === null && first.process.signalCode === null) first.process.kill('SIGKILL');
      await second?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
