import { existsSync } from 'node:fs';
import { generateKeyPairSigner } from '@solana/kit';
import { buildPublicationTransaction } from '@svc/evidence';
import { apiMain } from '../apps/cli/src/paths';
import { crashScenario, exited } from './support/durability';
import { termsOfService } from './support/fixtures';

const built = existsSync(apiMain());

/**
 * Confirming a publication records the version on the document's stream, then marks its draft published on the
 * draft's stream. The service is killed (SIGKILL) between the two; after the restart, confirming again answers the
 * version and completes the draft, which would otherwise stay `prepared` for good.
 */
(built ? describe : describe.skip)(`publication confirmed after a crash between its two steps${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  // The scenario's own fixture confirms version 1: the second confirm is the one killed.
  it('killed before the draft is marked: a repeated confirm marks it published', () =>
    crashScenario('svc-publication-crash-', { LEDGER_SLOT_MS: '100' }, 'publication:before-draft-mark@2', async ({ first, doc, restart }) => {
      const { draft } = await doc.dashboard.request<{ draft: { id: string } }>('POST', `/v1/documents/${doc.document.id}/drafts`, { title: 'Terms of Service', versionLabel: 'v2', source: termsOfService(2) });
      const { publication } = await doc.dashboard.request<{
        publication: { document: string; number: number; label: string; title: string; contentHash: string; fingerprint: string; effectiveAt: number | null };
      }>('POST', `/v1/drafts/${draft.id}/prepare`);
      const versionKey = await generateKeyPairSigner();
      const tx = await buildPublicationTransaction({ authority: doc.owner, version: versionKey, ...publication, lifetime: await doc.ledger.getLatestBlockhash() });
      await doc.ledger.sendTransaction(tx.wire, { commitment: 'confirmed' });
      await expect(doc.dashboard.request('POST', '/v1/publications/confirm', { signature: tx.signature })).rejects.toThrow();
      await exited(first.process);
      expect(first.process.signalCode).toBe('SIGKILL');

      // Restarted on the same port: the dashboard session of the first run still holds.
      await restart();
      const dashboard = doc.dashboard;
      const before = await dashboard.request<{ draft: { status: string } }>('GET', `/v1/drafts/${draft.id}`);
      expect(before.draft.status).toBe('prepared');
      const { version } = await dashboard.request<{ version: { address: string; number: number } }>('POST', '/v1/publications/confirm', { signature: tx.signature });
      expect(version).toMatchObject({ address: versionKey.address, number: 2 });
      const after = await dashboard.request<{ draft: { status: string } }>('GET', `/v1/drafts/${draft.id}`);
      expect(after.draft.status).toBe('published');
    }));
});
