import { toSignature } from '@svc/ledger';
import { generateKeyPairSigner } from '@solana/kit';
import { ApiClient } from '../apps/cli/src/api-client';
import { acceptAsWallet, fetchReceipt } from '../apps/cli/src/operations';
import { publishedDocument } from './support/fixtures';
import { startTestService, tempDataDir } from './support/test-service';

describe('a restart of the service', () => {
  it('loses no acceptance and no ledger transaction, and keeps serving new ones', async () => {
    const dataDir = tempDataDir();
    const first = await startTestService({ dataDir });
    const doc = await publishedDocument(first, [1]);
    const client = new ApiClient(first.baseUrl);
    const origin = 'https://shop.example.com';
    const signers = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
    const before = [];
    for (const signer of signers) {
      before.push(await acceptAsWallet(client, signer, { organization: doc.organization.address, document: doc.document.address, origin }));
    }
    const network = await client.request<{ chainId: string; relayer: string }>('GET', '/v1/network');
    const port = Number(new URL(first.baseUrl).port);
    await first.stop();

    const second = await startTestService({ dataDir, port });
    try {
      const again = new ApiClient(second.baseUrl);
      expect(await again.request('GET', '/v1/network')).toMatchObject({ chainId: network.chainId, relayer: network.relayer });
      for (const a of before) {
        const { acceptance } = await again.request<{ acceptance: { transactionSignature: string } }>('GET', `/v1/public/acceptances/${a.acceptanceId}`);
        expect(acceptance.transactionSignature).toBe(a.transactionSignature);
        const tx = await doc.ledger.getTransaction(toSignature(a.transactionSignature));
        expect(tx?.err).toBeNull();
        const { report } = await fetchReceipt(again, a.acceptanceId);
        expect(['VALID', 'VALID_WITH_WARNINGS']).toContain(report.verdict);
      }
      // The publication history survives too, and a new acceptance lands.
      const pub = await again.request<{ version: { number: number } }>('GET', `/v1/public/organizations/${doc.organization.address}/documents/terms-of-service`);
      expect(pub.version.number).toBe(1);
      const after = await acceptAsWallet(again, await generateKeyPairSigner(), { organization: doc.organization.address, document: doc.document.address, origin });
      expect(after.status).toBe('confirmed');
      // A signer who accepted before the restart is still refused a second time.
      const repeat = await again.raw(
        'POST',
        '/v1/acceptance/challenges',
        { organization: doc.organization.address, document: doc.document.address, signer: signers[0].address },
        { origin },
      );
      expect(repeat.response.status).toBe(409);
      expect(JSON.parse(repeat.text).error.code).toBe('already_accepted');
    } finally {
      await second.destroy();
    }
  });
});
