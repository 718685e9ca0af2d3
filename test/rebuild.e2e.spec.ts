import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { generateKeyPairSigner } from '@solana/kit';
import { ApiClient } from '../apps/cli/src/api-client';
import { acceptAsWallet } from '../apps/cli/src/operations';
import { cliMain } from '../apps/cli/src/paths';
import { publishedDocument } from './support/fixtures';
import { startTestService, tempDataDir } from './support/test-service';

const exec = promisify(execFile);
const built = existsSync(cliMain());

(built ? describe : describe.skip)(`svc rebuild-projections${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  it('rebuilds every read model from the log; the service serves the same records afterwards', async () => {
    const dataDir = tempDataDir();
    const first = await startTestService({ dataDir });
    const doc = await publishedDocument(first, [1, 2]);
    const client = new ApiClient(first.baseUrl);
    const accepted = await acceptAsWallet(client, await generateKeyPairSigner(), { organization: doc.organization.address, document: doc.document.address, origin: 'https://a.example' });
    const before = await client.request('GET', `/v1/public/acceptances/${accepted.acceptanceId}`);
    const docBefore = await client.request('GET', `/v1/public/organizations/${doc.organization.address}/documents/terms-of-service`);
    const port = Number(new URL(first.baseUrl).port);
    await first.stop();

    const { stdout } = await exec(process.execPath, [cliMain(), 'rebuild-projections', '--data-dir', dataDir, '--json']);
    const rebuilt = (JSON.parse(stdout) as { rebuilt: { projection: string }[] }).rebuilt.map((r) => r.projection);
    expect(rebuilt).toEqual(['organizations', 'documents', 'contents', 'acceptances', 'sessions']);

    const second = await startTestService({ dataDir, port });
    try {
      const again = new ApiClient(second.baseUrl);
      const after = await again.request<{ acceptance: { commitment: string } }>('GET', `/v1/public/acceptances/${accepted.acceptanceId}`);
      // Finality may have been recorded meanwhile; everything else is identical.
      expect({ ...after, acceptance: { ...after.acceptance, commitment: 'x' } }).toEqual({ ...(before as typeof after), acceptance: { ...(before as typeof after).acceptance, commitment: 'x' } });
      expect(await again.request('GET', `/v1/public/organizations/${doc.organization.address}/documents/terms-of-service`)).toEqual(docBefore);
    } finally {
      await second.destroy();
    }
  });
});
