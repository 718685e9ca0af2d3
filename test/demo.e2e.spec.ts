import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { cliMain } from '../apps/cli/src/paths';

const exec = promisify(execFile);
const built = existsSync(cliMain());

(built ? describe : describe.skip)(`the main job: svc demo${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  it('publishes the real Terms of Service, collects acceptances, refuses a repeat, links one to a customer, and every receipt verifies VALID', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-demo-'));
    try {
      const { stdout } = await exec(process.execPath, [cliMain(), 'demo', '--json', '--data-dir', dataDir], { timeout: 180_000, env: process.env });
      const summary = JSON.parse(stdout);
      expect(summary.latestVersion).toBe(2);
      expect(summary.aliceAcceptedV1).toBe(true);
      expect(summary.aliceAcceptedV2BeforeSigning).toBe(false);
      expect(summary.repeatedAcceptance).toEqual({ status: 409, code: 'already_accepted' });
      expect(summary.acceptances).toHaveLength(4);
      expect(summary.acceptances.map((a: { verdict: string }) => a.verdict)).toEqual(['VALID', 'VALID', 'VALID', 'VALID']);
      expect(new Set(summary.acceptances.map((a: { transactionSignature: string }) => a.transactionSignature)).size).toBe(4);
      // The shop's server found bob's acceptance of v2 by its customer reference, through one search.
      const bobV2 = summary.acceptances.find((a: { who: string; version: number }) => a.who === 'bob' && a.version === 2);
      expect(summary.customerLink).toEqual({ externalUserRef: 'customer-1042', version: 2, acceptanceId: bobV2.acceptanceId, found: true });
      expect(summary.allValid).toBe(true);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
