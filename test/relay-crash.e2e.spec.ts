import { existsSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { generateKeyPairSigner } from '@solana/kit';
import { acceptanceIdOf } from '@svc/evidence';
import { RpcLedger, toSignature } from '@svc/ledger';
import { ApiClient } from '../apps/cli/src/api-client';
import { apiMain } from '../apps/cli/src/paths';
import { acceptancesOnLedger, crashScenario, exited, issueChallenge, submitSigned, watchRelayLog } from './support/durability';
import { eventually, publishedDocument } from './support/fixtures';
import { tempDataDir } from './support/test-service';
import { startService, type RunningService } from '../apps/cli/src/service-process';

const built = existsSync(apiMain());
const env = { LEDGER_SLOT_MS: '100' };

/**
 * The relay processor's steps are sign → record (`AcceptanceSubmitted`) → send → record the outcome. The service
 * is killed (SIGKILL, armed with `SVC_TEST_KILL_AT`) between two of them, then restarted on the same data: the
 * processor resumes from its checkpoint and the acceptance ends on the ledger exactly once, under the id and
 * transaction recorded before the crash.
 */
(built ? describe : describe.skip)(`relay resumed after a crash between its steps${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  const cases = [
    { point: 'relay:before-send', landedBeforeCrash: false },
    { point: 'relay:after-send', landedBeforeCrash: true },
  ] as const;

  it.each(cases)('killed at $point: the restart relays the recorded transaction once', ({ point, landedBeforeCrash }) =>
    crashScenario('svc-relay-crash-', env, point, async ({ first, doc, restart, dataDir }) => {
      const target = { organization: doc.organization.address, document: doc.document.address };
      const client = new ApiClient(first.baseUrl);
      const { relayer } = await client.request<{ relayer: string }>('GET', '/v1/network');
      const signer = await generateKeyPairSigner();
      const challenge = await issueChallenge(client, target, signer);

      const outcome = await submitSigned(client, challenge, signer);
      expect(outcome.kind).toBe('connection_error');
      await exited(first.process);
      expect(first.process.signalCode).toBe('SIGKILL');

      // The log holds the recorded transaction and no outcome.
      const log = watchRelayLog(dataDir);
      const [pending, ...more] = log.pending();
      log.close();
      expect(more).toEqual([]);
      expect(pending).toMatchObject({ acceptanceId: acceptanceIdOf(challenge.message), signer: signer.address });

      const second = await restart();
      const after = new ApiClient(second.baseUrl);
      const ledger = new RpcLedger({ url: second.rpcUrl });
      if (!landedBeforeCrash) {
        // Sent only by the restarted service (the first one died before sending).
        expect(await eventually(async () => ((await ledger.getTransaction(toSignature(pending.transactionSignature))) ? true : undefined), 20_000)).toBe(true);
      }
      const { acceptance } = await eventually(async () => {
        const { response, text } = await after.raw('GET', `/v1/public/acceptances/${pending.acceptanceId}`);
        return response.status === 200 ? (JSON.parse(text) as { acceptance: { transactionSignature: string; signer: string } }) : undefined;
      }, 20_000);
      expect(acceptance).toMatchObject({ transactionSignature: pending.transactionSignature, signer: signer.address });

      const onLedger = await acceptancesOnLedger(ledger, relayer);
      expect(onLedger.map((a) => a.acceptanceId)).toEqual([pending.acceptanceId]);
      expect(onLedger[0].transactionSignature).toBe(pending.transactionSignature);

      // The challenge is closed by the resumed relay, and a new attempt by the signer is refused.
      const status = await eventually(async () => {
        const s = await after.request<{ status: string; acceptanceId: string | null }>('GET', `/v1/acceptance/challenges/${challenge.challengeId}`, undefined, {
          headers: { 'x-client-binding': challenge.clientBinding },
        });
        return s.status === 'accepted' ? s : undefined;
      }, 10_000);
      expect(status.acceptanceId).toBe(pending.acceptanceId);
      await expect(issueChallenge(after, target, signer)).rejects.toMatchObject({ status: 409, code: 'already_accepted' });
    }),
  );
});

/**
 * Finality is observed by a processor (RecordFinalityWhenRelayed), not by a read: a service killed between the
 * relay's outcome and the ledger's finality records `AcceptanceFinalized` exactly once after its restart.
 */
(built ? describe : describe.skip)(`finality recorded after a crash${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  it('killed while the acceptance is only confirmed: after the restart it turns finalized, recorded once', async () => {
    const dataDir = tempDataDir('svc-finality-crash-');
    let first: RunningService | undefined;
    let second: RunningService | undefined;
    try {
      first = await startService({ dataDir, env });
      const port = Number(new URL(first.baseUrl).port);
      const doc = await publishedDocument(first, [1]);
      const client = new ApiClient(first.baseUrl);
      const signer = await generateKeyPairSigner();
      const outcome = await submitSigned(client, await issueChallenge(client, { organization: doc.organization.address, document: doc.document.address }, signer), signer);
      if (outcome.kind !== 'ok') throw new Error(`submit failed: ${JSON.stringify(outcome)}`);
      // Finality is 32 slots away (about 3 s at 100 ms slots): kill the service now.
      first.process.kill('SIGKILL');
      await exited(first.process);
      const finalizedEvents = () => {
        const db = new Database(path.join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
        try {
          return db.prepare<[string], { n: number }>(`SELECT COUNT(*) AS n FROM events WHERE type = 'AcceptanceFinalized' AND data LIKE '%' || ? || '%'`).get(outcome.result.acceptanceId)!.n;
        } finally {
          db.close();
        }
      };
      expect(finalizedEvents()).toBe(0);

      second = await startService({ dataDir, port, env });
      const after = new ApiClient(second.baseUrl);
      await eventually(async () => {
        const { acceptance } = await after.request<{ acceptance: { commitment: string } }>('GET', `/v1/public/acceptances/${outcome.result.acceptanceId}`);
        return acceptance.commitment === 'finalized' ? true : undefined;
      }, 20_000);
      expect(finalizedEvents()).toBe(1);
    } finally {
      if (first && first.process.exitCode === null && first.process.signalCode === null) first.process.kill('SIGKILL');
      await second?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
