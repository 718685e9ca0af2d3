/**
 * LedgerHistory.creationOf against the embedded ledger: an object is found again by its oldest successful
 * transaction (docs/protocol.md §7.2), however long its history has grown since, and a failed transaction before it
 * does not stand for it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner, lamports } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { buildDocumentTransaction } from '@svc/evidence';
import { EmbeddedLedger } from '@svc/ledger';
import { buildTransaction } from '../../../ledger/src/testing/test-transactions';
import { LedgerHistory } from './ledger-history.service';

jest.setTimeout(120_000);

describe('LedgerHistory.creationOf (docs/protocol.md §7.2)', () => {
  let dir: string;
  let ledger: EmbeddedLedger;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-history-'));
    ledger = await EmbeddedLedger.open({ dataDir: dir, slotMs: 20, synchronous: 'normal' });
  });

  afterAll(async () => {
    await ledger.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the creation past a failed transaction and behind more than a page of later ones', async () => {
    const authority = await generateKeyPairSigner();
    await ledger.requestAirdrop(authority.address, 20_000_000_000n);
    const document = await generateKeyPairSigner();
    const transfer = async (amount: bigint) =>
      buildTransaction(await ledger.getLatestBlockhash(), authority, [getTransferSolInstruction({ source: authority, destination: document.address, amount: lamports(amount) })]);

    // A transfer the address could not receive (below the rent-exempt minimum of a new account) lands as failed.
    const failed = await transfer(1n);
    await expect(ledger.sendTransaction(failed.wire)).rejects.toThrow();
    const creation = await buildDocumentTransaction({ authority, document, organization: authority.address, slug: 'terms', title: 'Terms', lifetime: await ledger.getLatestBlockhash() });
    await ledger.sendTransaction(creation.wire);
    // 1,100 later transactions of the address: more than one page of getSignaturesForAddress.
    await ledger.sendTransaction((await transfer(1_000_000_000n)).wire);
    for (let i = 1; i < 1_100; i++) await ledger.sendTransaction((await transfer(BigInt(i))).wire);

    const history = new LedgerHistory(ledger);
    const found = await history.creationOf(document.address);
    expect(found.signature).toBe(creation.signature);
    expect(found.err).toBeNull();
    expect(found.memo?.record).toMatchObject({ kind: 'doc', slug: 'terms' });
    expect(found.historyLength).toBe(1_102);
  });

  it('answers not_found for an address the ledger never saw', async () => {
    await expect(new LedgerHistory(ledger).creationOf((await generateKeyPairSigner()).address)).rejects.toMatchObject({ code: 'not_found' });
  });
});
