import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { cliMain } from '../apps/cli/src/paths';
import { freePort } from '../apps/cli/src/service-process';

const exec = promisify(execFile);
const built = existsSync(cliMain());

(built ? describe : describe.skip)(`the main job: svc demo${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  it('publishes the real Terms of Service, collects acceptances, refuses a repeat, links one to a customer, and every receipt verifies VALID', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-demo-'));
    const port = await freePort();
    try {
      const { stdout } = await exec(process.execPath, [cliMain(), 'demo', '--json', '--data-dir', dataDir], { timeout: 180_000, env: { ...process.env, PORT: String(port) } });
      const summary = JSON.parse(stdout);
      expect(summary.service).toBe(`http://127.0.0.1:${port}`);
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

  it('refuses a PORT that is not a TCP port before it starts anything (exit 2, a command line it cannot run)', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-demo-'));
    try {
      for (const bad of ['0', '65536', '1.5', 'http']) {
        const run = exec(process.execPath, [cliMain(), 'demo', '--json', '--data-dir', dataDir], { timeout: 30_000, env: { ...process.env, PORT: bad } });
        const refused = await run.then(
          () => ({ code: 0, stdout: '', stderr: '' }),
          (err: { code: number; stdout: string; stderr: string }) => err,
        );
        const reason = `value '${bad}' from env 'PORT' is invalid. must be a TCP port, 1 to 65535`;
        expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining(reason) });
        // With --json, the refusal is on stdout too, as JSON (README "The svc command line").
        expect(JSON.parse(refused.stdout)).toEqual({ error: { code: 'invalid_command_line', message: expect.stringContaining(reason) } });
      }
      expect(existsSync(path.join(dataDir, 'events.sqlite'))).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
