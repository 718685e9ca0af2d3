/**
 * LedgerHistory against the embedded ledger: an object is found again by its oldest successful transaction
 * (docs/protocol.md §7.2), however long its history has grown since, and a failed transaction before it does not stand
 * for it; an authority's member records (§7.4) and version records (the catch-up of a landed publication) are all
 * found, however many transactions were sent to it since.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner, lamports } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { AddressLookupTableAccount, AddressLookupTableProgram, Keypair, PublicKey, SystemProgram, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { buildDocumentTransaction, buildMemberTransaction, buildPublicationTransaction, encodeMemo } from '@svc/evidence';
import { EmbeddedLedger } from '@svc/ledger';
import { buildTransaction, memoInstruction } from '../../../ledger/src/testing/test-transactions';
import { LedgerHistory } from './ledger-history.service';

jest.setTimeout(120_000);

describe('LedgerHistory (docs/protocol.md §7.2, §7.4)', () => {
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

  it('lists every member record of the authority since the last one applied, however many transfers bury it', async () => {
    const authority = await generateKeyPairSigner();
    const sender = await generateKeyPairSigner();
    const organization = (await generateKeyPairSigner()).address;
    const member = (await generateKeyPairSigner()).address;
    const other = (await generateKeyPairSigner()).address;
    await ledger.requestAirdrop(authority.address, 1_000_000_000n);
    await ledger.requestAirdrop(sender.address, 1_000_000_000n);
    const send = async (built: { wire: Uint8Array; signature: string }) => {
      await ledger.sendTransaction(built.wire, { commitment: 'processed' });
      return built.signature;
    };
    const memberTx = async (who: string, active: boolean) =>
      send(await buildMemberTransaction({ authority, organization, member: who, roles: active ? ['admin'] : [], active, lifetime: await ledger.getLatestBlockhash() }));

    const applied = await memberTx(member, true); // the newest record applied so far: where reading stops
    const revoked = await memberTx(member, false);
    // Anyone may send to the authority: a memo of the same shape from the sender is listed but is not the authority's.
    const forgedMemo = encodeMemo({ kind: 'member', organization, member, roles: ['admin'], active: true });
    const forged = await send(
      await buildTransaction(await ledger.getLatestBlockhash(), sender, [
        getTransferSolInstruction({ source: sender, destination: authority.address, amount: lamports(1n) }),
        memoInstruction({ memo: forgedMemo, signers: [sender] }),
      ]),
    );
    // One transaction with two records of the authority: the first counts.
    const twoRecords = await send(
      await buildTransaction(await ledger.getLatestBlockhash(), authority, [
        memoInstruction({ memo: encodeMemo({ kind: 'member', organization, member: other, roles: ['publisher'], active: true }), signers: [authority] }),
        memoInstruction({ memo: encodeMemo({ kind: 'member', organization, member, roles: ['admin'], active: true }), signers: [authority] }),
      ]),
    );
    // More transfers to the authority than any fixed window: 10,001, in pages of 1,000 for the lister.
    let lifetime = await ledger.getLatestBlockhash();
    for (let i = 0; i < 10_001; i++) {
      if (i % 500 === 0) lifetime = await ledger.getLatestBlockhash();
      await send(await buildTransaction(lifetime, sender, [getTransferSolInstruction({ source: sender, destination: authority.address, amount: lamports(BigInt(2 + i)) })]));
    }

    const history = new LedgerHistory(ledger);
    const reads = jest.spyOn(ledger, 'getTransaction');
    const records = await history.memberRecordsOf(authority.address, organization, applied);
    expect(records.map((r) => [r.signature, r.signedBy, r.member, r.active])).toEqual([
      [revoked, authority.address, member, false],
      [forged, sender.address, member, true],
      [twoRecords, authority.address, other, true],
    ]);
    // Only the transactions whose listed memo may hold a member record were read, not the 10,001 transfers.
    expect(reads).toHaveBeenCalledTimes(3);
    reads.mockRestore();

    // A history longer than the bound is refused as a whole, not read in part.
    await expect(history.memberRecordsOf(authority.address, organization, applied, 5_000)).rejects.toMatchObject({ code: 'chain_state' });
  });

  it('lists every version record of the authority since a point, however many transfers follow it; refuses past the bound', async () => {
    const authority = await generateKeyPairSigner();
    const sender = await generateKeyPairSigner();
    await ledger.requestAirdrop(authority.address, 1_000_000_000n);
    await ledger.requestAirdrop(sender.address, 1_000_000_000n);
    const send = async (built: { wire: Uint8Array; signature: string }) => {
      await ledger.sendTransaction(built.wire, { commitment: 'processed' });
      return built.signature;
    };
    const before = await send(await buildTransaction(await ledger.getLatestBlockhash(), authority, [memoInstruction({ memo: 'before', signers: [authority] })]));
    const document = (await generateKeyPairSigner()).address;
    const version = await generateKeyPairSigner();
    const published = await send(
      await buildPublicationTransaction({
        authority,
        version,
        document,
        number: 2,
        label: 'v2',
        title: 'Terms',
        contentHash: 'ab'.repeat(32),
        effectiveAt: null,
        fingerprint: 'cd'.repeat(32),
        lifetime: await ledger.getLatestBlockhash(),
      }),
    );
    // Anyone may send to the organization's wallet: 1,100 transfers bury the publication under more than a page.
    let lifetime = await ledger.getLatestBlockhash();
    let newest = '';
    for (let i = 0; i < 1_100; i++) {
      if (i % 500 === 0) lifetime = await ledger.getLatestBlockhash();
      newest = await send(await buildTransaction(lifetime, sender, [getTransferSolInstruction({ source: sender, destination: authority.address, amount: lamports(BigInt(1 + i)) })]));
    }

    const history = new LedgerHistory(ledger);
    const reads = jest.spyOn(ledger, 'getTransaction');
    // The first read of a document's wallet: back to a point in time (here, all of it).
    const first = await history.versionRecordsSince(authority.address, 0, undefined);
    expect(first.records.map((r) => [r.signature, r.facts.objectSigner, r.facts.actor, r.record.number])).toEqual([[published, version.address, authority.address, 2]]);
    expect(first.newest).toBe(newest);
    // Only the publication was read, not the transfers nor the memo without a record.
    expect(reads).toHaveBeenCalledTimes(1);
    reads.mockRestore();
    // A later read: everything newer than the last signature seen (the publication again, past the point before it).
    expect((await history.versionRecordsSince(authority.address, 0, before)).records.map((r) => r.signature)).toEqual([published]);
    // Nothing newer than the newest: nothing found, and the point stays.
    expect(await history.versionRecordsSince(authority.address, 0, newest)).toEqual({ records: [], newest, complete: true });
    // Transactions older than the point in time are not listed further.
    expect((await history.versionRecordsSince(authority.address, Math.floor(Date.now() / 1000) + 3_600, undefined)).records).toEqual([]);
    // A history longer than the bound is refused as a whole, not read in part.
    await expect(history.versionRecordsSince(authority.address, 0, undefined, 1_000)).rejects.toMatchObject({ code: 'chain_state' });
    // Or, when asked, read in part: the newest signatures only, said to be incomplete (the publication is older).
    const partial = await history.versionRecordsSince(authority.address, 0, undefined, 1_000, true);
    expect([partial.complete, partial.records.length, partial.newest]).toEqual([false, 0, newest]);
  });

  it('answers a creation that is not a transaction of the protocol (version 0 with a lookup table) without a record', async () => {
    const payer = Keypair.generate();
    await ledger.requestAirdrop(payer.publicKey.toBase58(), 2_000_000_000n);
    const recentSlot = Number(await ledger.getSlot('finalized'));
    const [create, table] = AddressLookupTableProgram.createLookupTable({ authority: payer.publicKey, payer: payer.publicKey, recentSlot });
    const listed = Keypair.generate().publicKey;
    const extend = AddressLookupTableProgram.extendLookupTable({ payer: payer.publicKey, authority: payer.publicKey, lookupTable: table, addresses: [listed] });
    const send = async (instructions: TransactionInstruction[], signers: Keypair[], tables: AddressLookupTableAccount[] = []) => {
      const message = new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: (await ledger.getLatestBlockhash()).blockhash, instructions }).compileToV0Message(tables);
      const tx = new VersionedTransaction(message);
      tx.sign(signers);
      await ledger.sendTransaction(tx.serialize(), { commitment: 'confirmed' });
    };
    await send([create, extend], [payer]);
    await new Promise((resolve) => setTimeout(resolve, 200)); // a lookup table serves from the slot after its extension
    const account = await ledger.getAccountInfo(table.toBase58());
    const lookup = new AddressLookupTableAccount({ key: table, state: AddressLookupTableAccount.deserialize(account!.data) });

    const organization = Keypair.generate();
    const memo = new TransactionInstruction({
      programId: new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
      keys: [
        { pubkey: organization.publicKey, isSigner: true, isWritable: false },
        { pubkey: payer.publicKey, isSigner: true, isWritable: true },
      ],
      data: Buffer.from(encodeMemo({ kind: 'org', name: 'Lookup', domain: null })),
    });
    await send([memo, SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: listed, lamports: 1_000_000 })], [payer, organization], [lookup]);

    const found = await new LedgerHistory(ledger).creationOf(organization.publicKey.toBase58());
    expect(found.err).toBeNull();
    expect(found.memo).toBeNull();
    expect(LedgerHistory.factsOf(found)).toMatchObject({ record: null, objectSigner: null, actor: null });
  });
});
