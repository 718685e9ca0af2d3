import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DomainError } from '@svc/domain';
import { COLLECTIONS, type AcceptanceDoc } from '@svc/projections';
import { SqliteReadStore } from '@svc/read-store';
import { SIGNER_ACCEPTANCES_LISTED, signerEvidence } from './signer-evidence';

const SIGNER = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
const OTHER = 'BPFLoaderUpgradeab1e11111111111111111111111';
const T0 = Date.UTC(2026, 0, 1) / 1000;

/** An acceptance record as the acceptances projection writes it; `n` orders the submissions (one second apart). */
function acceptance(n: number, over: Partial<AcceptanceDoc> = {}): AcceptanceDoc {
  const id = n.toString(16).padStart(64, '0');
  return {
    _id: id,
    acceptanceId: id,
    status: 'confirmed',
    challengeId: `c-${n}`,
    organizationId: 'org',
    organization: OTHER,
    documentId: 'doc',
    document: OTHER,
    documentSlug: 'terms',
    versionAddress: OTHER,
    versionNumber: n + 1,
    signer: SIGNER,
    signerType: 'wallet',
    protocol: 'svc/1',
    message: 'm',
    signature: 's',
    requestDomain: 'shop.example.com',
    externalUserRef: null,
    evidenceMode: 'DIRECT',
    feePayer: OTHER,
    feeSponsor: OTHER,
    feeLamports: 10_000,
    transactionSignature: `sig${n}`,
    batch: null,
    slot: 100 + n,
    blockTime: T0 + n,
    commitment: 'finalized',
    submittedAt: new Date((T0 + n) * 1000).toISOString(),
    failureReason: null,
    confirmedSeq: n,
    ...over,
  };
}

describe('public signer evidence (docs/api.md "Public verification reads")', () => {
  let dir: string;
  let store: SqliteReadStore;
  const acceptances = () => store.collection<AcceptanceDoc>(COLLECTIONS.acceptances);

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signer-evidence-'));
    store = new SqliteReadStore({ file: path.join(dir, 'read.sqlite') });
  });

  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists the newest 200 and counts and dates every public acceptance beyond them', async () => {
    const total = SIGNER_ACCEPTANCES_LISTED + 37;
    for (let n = 0; n < total; n++) await acceptances().insertOne(acceptance(n));
    // Not public: a direct acceptance not relayed yet, a failed one; and another signer's.
    await acceptances().insertOne(acceptance(total, { status: 'submitted', transactionSignature: null, blockTime: null }));
    await acceptances().insertOne(acceptance(total + 1, { status: 'failed' }));
    await acceptances().insertOne(acceptance(total + 2, { signer: OTHER }));

    const evidence = await signerEvidence(acceptances(), SIGNER);
    expect(evidence.signer).toEqual({
      publicKey: SIGNER,
      signerType: 'wallet',
      acceptanceCount: total,
      firstAcceptedAt: new Date(T0 * 1000).toISOString(),
      lastAcceptedAt: new Date((T0 + total - 1) * 1000).toISOString(),
    });
    expect(evidence.acceptances).toHaveLength(SIGNER_ACCEPTANCES_LISTED);
    expect(evidence.acceptances[0]!.versionNumber).toBe(total);
    expect(evidence.acceptances.at(-1)!.versionNumber).toBe(total - SIGNER_ACCEPTANCES_LISTED + 1);
  });

  it('dates a batched acceptance awaiting its batch by its submission, and counts it', async () => {
    await acceptances().insertOne(acceptance(0));
    await acceptances().insertOne(acceptance(5, { status: 'submitted', evidenceMode: 'MERKLE_BATCHED', transactionSignature: null, slot: null, feeLamports: null, commitment: null, blockTime: T0 + 5 }));
    const evidence = await signerEvidence(acceptances(), SIGNER);
    expect(evidence.signer.acceptanceCount).toBe(2);
    expect(evidence.signer.lastAcceptedAt).toBe(new Date((T0 + 5) * 1000).toISOString());
    expect(evidence.acceptances[0]).toMatchObject({ transactionSignature: null, commitment: 'confirmed', blockTime: new Date((T0 + 5) * 1000).toISOString() });
  });

  it('gives a record whose block the ledger did not date the submission time, never null (spec §2.3)', async () => {
    await acceptances().insertOne(acceptance(3, { blockTime: null, submittedAt: '2026-01-01T00:00:09.750Z' }));
    const evidence = await signerEvidence(acceptances(), SIGNER);
    expect(evidence.acceptances[0]!.blockTime).toBe('2026-01-01T00:00:09.000Z');
    expect(evidence.signer.firstAcceptedAt).toBe('2026-01-01T00:00:09.000Z');
  });

  it('is 404 not_found for a signer without public evidence', async () => {
    await acceptances().insertOne(acceptance(1, { status: 'failed' }));
    await expect(signerEvidence(acceptances(), SIGNER)).rejects.toMatchObject({ code: 'not_found' });
    await expect(signerEvidence(acceptances(), SIGNER)).rejects.toBeInstanceOf(DomainError);
  });
});
