/**
 * Batched evidence over real HTTP (docs/architecture.md "Batches", docs/protocol.md §7.7): an organization in
 * `MERKLE_BATCHED` mode gets `pending_batch` answers at once, its acceptances anchored in Merkle batches on the
 * embedded ledger, `svc-receipt/2` receipts that `svc verify` (the compiled CLI, a child process) checks with nothing
 * but the receipt and the RPC endpoint, the batch manifest with its `x-batch-transaction` header, and `409
 * pending_batch` before anchoring.
 */
import canonicalize from 'canonicalize';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { generateKeyPairSigner } from '@solana/kit';
import { acceptanceIdOf, batchManifestProblems, parseEvidenceTransaction, type AcceptanceReceiptV2, type BatchManifestV1 } from '@svc/evidence';
import { toSignature } from '@svc/ledger';
import { ApiClient } from '../apps/cli/src/api-client';
import { signText } from '../apps/cli/src/operations';
import { cliMain } from '../apps/cli/src/paths';
import { codeOf, issueChallenge, ORIGIN } from './support/durability';
import { eventually, publishedDocument, type PublishedDocument } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';

const exec = promisify(execFile);
const built = existsSync(cliMain());

interface Submitted {
  acceptanceId: string;
  transactionSignature: string | null;
  slot: number;
  status: string;
  evidenceMode: string;
  fee: { payer: string; lamports: number | null };
}
interface PublicRecord {
  acceptance: { acceptanceId: string; signer: string; transactionSignature: string | null; slot: number; blockTime: string; commitment: string; evidenceMode: string; feeLamports: number };
}

describe('batched evidence (MERKLE_BATCHED)', () => {
  let service: TestService;
  let client: ApiClient;
  let doc: PublishedDocument;
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-batched-'));

  beforeAll(async () => {
    // A 2 s window keeps the first answers pending long enough to be observed; two lanes close in parallel.
    // The suite polls eight public records until finality (about 13 s) and reads every leaf's record: more than the
    // general 300 per minute of one client address (rate limits have their own suite).
    service = await startTestService({ env: { BATCH_WINDOW_MS: '2000', BATCH_LANES: '2', RATE_LIMIT_GENERAL_PER_MINUTE: '5000' } });
    client = new ApiClient(service.baseUrl);
    doc = await publishedDocument(service, [1]);
  });
  afterAll(() => service.destroy());

  const target = () => ({ organization: doc.organization.address, document: doc.document.address });
  const accept = async (): Promise<Submitted> => {
    const signer = await generateKeyPairSigner();
    const challenge = await issueChallenge(client, target(), signer);
    const signature = await signText(signer, challenge.message);
    return client.request<Submitted>('POST', `/v1/acceptance/challenges/${challenge.challengeId}/submit`, { clientBinding: challenge.clientBinding, signature }, { origin: ORIGIN });
  };
  const record = (id: string) => client.request<PublicRecord>('GET', `/v1/public/acceptances/${id}`);

  it('an admin switches the organization to MERKLE_BATCHED without a fresh signature; challenges say so', async () => {
    const { organization } = await doc.dashboard.request<{ organization: { settings: { evidenceMode: string } } }>('PATCH', `/v1/organizations/${doc.organization.id}/settings`, {
      evidenceMode: 'MERKLE_BATCHED',
    });
    expect(organization.settings.evidenceMode).toBe('MERKLE_BATCHED');
    const challenge = await issueChallenge(client, target(), await generateKeyPairSigner());
    expect(challenge).toMatchObject({ evidenceMode: 'MERKLE_BATCHED' });
  });

  let submitted: Submitted[] = [];

  it('answers pending_batch at once: no transaction, slot 0 as in its record, no fee yet; the receipt is 409 pending_batch meanwhile', async () => {
    const first = await accept();
    expect(first).toMatchObject({ status: 'pending_batch', evidenceMode: 'MERKLE_BATCHED', transactionSignature: null, slot: 0, fee: { lamports: null } });
    expect(await codeOf(client.request('GET', `/v1/public/acceptances/${first.acceptanceId}/receipt`))).toBe('409 pending_batch');
    const download = await fetch(`${service.baseUrl}/receipts/${first.acceptanceId}.json`);
    expect([download.status, ((await download.json()) as { error: { code: string } }).error.code]).toEqual([409, 'pending_batch']);
    const page = await fetch(`${service.baseUrl}/receipts/${first.acceptanceId}`);
    expect([page.status, (await page.text()).includes('Receipt on its way')]).toEqual([409, true]);
    // Spec §2.3 types every field but the transaction signature as present: slot 0, no fee yet, the time the service
    // recorded it, and the service's own commitment; the anchoring fills in the ledger's values.
    const pending = (await record(first.acceptanceId)).acceptance;
    expect(pending).toMatchObject({ transactionSignature: null, slot: 0, feeLamports: 0, commitment: 'confirmed', evidenceMode: 'MERKLE_BATCHED' });
    // The submit answer and the record agree on the slot until the anchoring (an integer: spec §2.3).
    expect([first.transactionSignature, first.slot]).toEqual([pending.transactionSignature, pending.slot]);
    expect(Math.abs(Date.parse(pending.blockTime) - Date.now())).toBeLessThan(60_000);
    // The signer's public evidence lists it from the answer on, as its own record does.
    const evidence = await client.request<{ acceptances: { acceptanceId: string; transactionSignature: string | null }[] }>('GET', `/v1/public/signers/${pending.signer}`);
    expect(evidence.acceptances).toEqual([expect.objectContaining({ acceptanceId: first.acceptanceId, transactionSignature: null })]);
    const more = await Promise.all(Array.from({ length: 7 }, () => accept()));
    submitted = [first, ...more];
    expect(new Set(submitted.map((s) => s.status))).toEqual(new Set(['pending_batch']));
  });

  it('a second submission of a pending signer is refused like in direct mode (one acceptance per signer and version)', async () => {
    const signer = await generateKeyPairSigner();
    const challenge = await issueChallenge(client, target(), signer);
    const signature = await signText(signer, challenge.message);
    const submit = () => client.request<Submitted>('POST', `/v1/acceptance/challenges/${challenge.challengeId}/submit`, { clientBinding: challenge.clientBinding, signature }, { origin: ORIGIN });
    const pending = await submit();
    expect(await codeOf(submit())).toBe('409 challenge_not_open');
    // The challenge is used once its acceptance is recorded, before the batch is anchored.
    const status = await client.request<{ status: string; acceptanceId: string | null }>('GET', `/v1/acceptance/challenges/${challenge.challengeId}`, undefined, {
      headers: { 'x-client-binding': challenge.clientBinding },
    });
    expect(status).toMatchObject({ status: 'accepted', acceptanceId: pending.acceptanceId });
    expect(await codeOf(issueChallenge(client, target(), signer))).toBe('409 already_accepted');
  });

  it('the organization finds a pending acceptance at once (by id and by search), and in the same place once anchored', async () => {
    const { key } = await doc.dashboard.request<{ key: string }>('POST', `/v1/organizations/${doc.organization.id}/api-keys`, { name: 'Checkout server', scopes: ['acceptances:read'] });
    const server = <T>(route: string) => client.request<T>('GET', route, undefined, { headers: { authorization: `Bearer ${key}` } });
    type Page = { acceptances: { acceptanceId: string; transactionSignature: string | null; signer: string }[]; nextCursor: string | null };
    const signer = await generateKeyPairSigner();
    const challenge = await issueChallenge(client, target(), signer);
    const since = new Date(Date.now() - 5_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const answer = await client.request<Submitted>('POST', `/v1/acceptance/challenges/${challenge.challengeId}/submit`, { clientBinding: challenge.clientBinding, signature: await signText(signer, challenge.message) }, { origin: ORIGIN });
    expect(answer.status).toBe('pending_batch');

    const one = await server<{ acceptance: { acceptanceId: string; transactionSignature: string | null }; receiptUrl: string }>(`/v1/acceptances/${answer.acceptanceId}`);
    expect(one.acceptance).toMatchObject({ acceptanceId: answer.acceptanceId, transactionSignature: null });
    // Spec §4.5: "did this user accept the current version" is a search by version, narrowed here by signer.
    const query = `/v1/acceptances?version=${doc.versions[0]!.address}&signer=${signer.address}&limit=1`;
    expect((await server<Page>(query)).acceptances.map((a) => a.acceptanceId)).toEqual([answer.acceptanceId]);
    expect((await server<Page>(`/v1/acceptances?from=${since}&signer=${signer.address}`)).acceptances).toHaveLength(1);
    const before = (await server<Page>('/v1/acceptances?limit=200')).acceptances.map((a) => a.acceptanceId);
    expect(before[0]).toBe(answer.acceptanceId);

    const anchored = await eventually(async () => {
      const page = await server<Page>(query);
      return page.acceptances[0]?.transactionSignature ? page.acceptances[0] : undefined;
    }, 20_000, 250);
    expect(anchored.acceptanceId).toBe(answer.acceptanceId);
    // Anchoring fills the record in without moving it: the list reads in the same order.
    expect((await server<Page>('/v1/acceptances?limit=200')).acceptances.map((a) => a.acceptanceId).slice(0, before.length)).toEqual(before);
  });

  let receipts: AcceptanceReceiptV2[] = [];

  it('anchors every acceptance within the window: transaction, slot and the fee share, then finality', async () => {
    expect(submitted).toHaveLength(8);
    const records = await eventually(async () => {
      const all = await Promise.all(submitted.map((s) => record(s.acceptanceId)));
      return all.every((r) => r.acceptance.commitment === 'finalized') ? all : undefined;
    }, 40_000, 250);
    const anchors = new Set(records.map((r) => r.acceptance.transactionSignature));
    expect(anchors.has(null)).toBe(false);
    // Two lanes: the eight acceptances are anchored by one or two transactions per closing, never eight.
    expect(anchors.size).toBeLessThanOrEqual(4);
    receipts = await Promise.all(
      submitted.map(async (s) => (await client.request<{ receipt: AcceptanceReceiptV2; report: { verdict: string } }>('GET', `/v1/public/acceptances/${s.acceptanceId}/receipt`)).receipt),
    );
    for (const [i, r] of receipts.entries()) {
      expect(r).toMatchObject({ format: 'svc-receipt/2', evidenceMode: 'MERKLE_BATCHED', acceptanceId: submitted[i]!.acceptanceId });
      // The fee divided by the size, the remainder one lamport each to the first leaves (docs/protocol.md §7.7).
      expect(r.fees.lamports).toBe(Math.floor(5000 / r.batch.size) + (r.batch.leafIndex < 5000 % r.batch.size ? 1 : 0));
      expect(records[i]!.acceptance.feeLamports).toBe(r.fees.lamports);
      expect(r.transaction.signature).toBe(records[i]!.acceptance.transactionSignature);
    }
  });

  it('the anchoring transaction on the ledger carries exactly the svc/1 batch record, signed by the relayer', async () => {
    const r = receipts[0]!;
    const tx = await doc.ledger.getTransaction(toSignature(r.transaction.signature));
    const parsed = parseEvidenceTransaction(tx!.wire);
    expect(parsed.signers).toEqual([r.fees.payer]);
    expect(parsed.ed25519).toEqual([]);
    expect(parsed.memos.map((m) => m.record)).toEqual([{ kind: 'batch', lane: r.batch.lane, sequence: r.batch.sequence, size: r.batch.size, root: r.batch.root }]);
    expect(Number(tx!.fee)).toBe(5000);
  });

  it('serves the manifest of each batch by root, with x-batch-transaction; its leaves recompute the root', async () => {
    expect(receipts).toHaveLength(8);
    const manifests = new Map<string, BatchManifestV1>();
    for (const r of receipts) {
      const response = await fetch(`${service.baseUrl}/api/v1/public/batches/${r.batch.root}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-batch-transaction')).toBe(r.transaction.signature);
      const text = await response.text();
      const manifest = JSON.parse(text) as BatchManifestV1;
      // RFC 8785 canonical JSON (docs/protocol.md §7.7): the bytes anyone re-serializing the manifest would get.
      expect(text).toBe(canonicalize(manifest));
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(batchManifestProblems(manifest)).toEqual([]);
      expect(manifest.transaction).toMatchObject({ signature: r.transaction.signature, slot: r.transaction.slot, feeLamports: 5000 });
      const leaf = manifest.leaves[r.batch.leafIndex]!;
      expect(leaf).toMatchObject({ acceptanceId: r.acceptanceId, leafHash: r.batch.leafHash, message: r.acceptance.message, signer: r.acceptance.signer });
      expect(acceptanceIdOf(leaf.message)).toBe(r.acceptanceId);
      manifests.set(manifest.batch.root, manifest);
    }
    // The leaves' fee shares add up to the anchoring transaction's fee, not a lamport more (docs/protocol.md §7.7).
    for (const manifest of manifests.values()) {
      const shares = await Promise.all(manifest.leaves.map(async (l) => (await record(l.acceptanceId)).acceptance.feeLamports));
      expect(shares.reduce((sum, share) => sum + share, 0)).toBe(manifest.transaction.feeLamports);
    }
    expect(await codeOf(client.request('GET', `/v1/public/batches/${'0'.repeat(64)}`))).toBe('404 not_found');
    expect(await codeOf(client.request('GET', '/v1/public/batches/NOT-A-ROOT'))).toBe('400 invalid_request');
  });

  it('does not name one acceptance for a transaction anchoring a batch: 404 pointing at its manifest', async () => {
    const r = receipts.find((x) => x.batch.size > 1) ?? receipts[0]!;
    const answer = await client.raw('GET', `/v1/public/transactions/${r.transaction.signature}/acceptance`);
    expect(answer.response.status).toBe(404);
    const { error } = JSON.parse(answer.text) as { error: { code: string; message: string } };
    expect(error.code).toBe('not_found');
    expect(error.message).toContain(`/v1/public/batches/${r.batch.root}`);
  });

  (built ? it : it.skip)(`svc verify checks each v2 receipt against the anchored root: VALID; a forged proof is INVALID${built ? '' : ' (skipped: run "npm run build" first)'}`, async () => {
    const verify = async (receipt: unknown) => {
      const file = path.join(dir, `receipt-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(file, JSON.stringify(receipt));
      try {
        const { stdout } = await exec(process.execPath, [cliMain(), 'verify', file, '--rpc', service.rpcUrl, '--json']);
        return { code: 0, report: JSON.parse(stdout) as { verdict: string; checks: { id: string; status: string }[] } };
      } catch (err) {
        const e = err as { code: number; stdout: string };
        return { code: e.code, report: JSON.parse(e.stdout) as { verdict: string; checks: { id: string; status: string }[] } };
      }
    };
    for (const r of receipts.slice(0, 3)) {
      const { code, report } = await verify(r);
      expect([code, report.verdict]).toEqual([0, 'VALID']);
      expect(report.checks.find((c) => c.id === 'batch.inclusion')?.status).toBe('pass');
    }
    const forged = JSON.parse(JSON.stringify(receipts[0])) as AcceptanceReceiptV2;
    forged.batch.leafIndex = (forged.batch.leafIndex + 1) % Math.max(forged.batch.size, 2);
    forged.batch.size = Math.max(forged.batch.size, 2);
    const { code, report } = await verify(forged);
    expect(code).toBe(1);
    expect(report.verdict).toBe('INVALID');
    expect(report.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toContain('batch.inclusion');
  });

  it('direct mode is unchanged once the organization switches back', async () => {
    await doc.dashboard.request('PATCH', `/v1/organizations/${doc.organization.id}/settings`, { evidenceMode: 'DIRECT_ONCHAIN' });
    const direct = await accept();
    expect(direct).toMatchObject({ status: 'confirmed', evidenceMode: 'DIRECT_ONCHAIN', fee: { lamports: 10_000 } });
    expect(direct.transactionSignature).not.toBeNull();
  });
});
