/**
 * EmbeddedLedger specifics beyond the port contract: failed-with-fee transactions, replay
 * paths (full, snapshot, snapshot + tail), exclusivity, group commit, inspector extras.
 */
import { toSignature } from '../internal/base58';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { address, generateKeyPairSigner, lamports, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { AddressLookupTableProgram, Keypair, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { EmbeddedLedger, type EmbeddedLedgerOptions } from './embedded-ledger';
import { TransactionFailedError } from '../ledger.port';
import { LedgerErrorCode } from '../ledger-error';
import { MEMO_PROGRAM_ADDRESS } from '../constants';
import { buildTransaction, ed25519Instruction, memoInstruction, rawPublicKey, waitFor } from '../testing/test-transactions';

jest.setTimeout(60_000);

const SOL = 1_000_000_000n;
const dirs: string[] = [];
const open: EmbeddedLedger[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'embedded-ledger-'));
  dirs.push(d);
  return d;
}
async function openLedger(dataDir: string, extra: { snapshots?: boolean; logger?: EmbeddedLedgerOptions['logger'] } = {}): Promise<EmbeddedLedger> {
  const l = await EmbeddedLedger.open({ dataDir, slotMs: 20, synchronous: 'normal', ...extra });
  open.push(l);
  return l;
}
afterAll(async () => {
  for (const l of open) await l.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function failingTransfer(ledger: EmbeddedLedger, payer: KeyPairSigner): Promise<{ signature: string; error: TransactionFailedError }> {
  const to = await generateKeyPairSigner();
  const tx = await buildTransaction(await ledger.getLatestBlockhash(), payer, [
    getTransferSolInstruction({ source: payer, destination: to.address, amount: lamports(1_000n * SOL) }),
  ]);
  try {
    await ledger.sendTransaction(tx.wire);
  } catch (e) {
    return { signature: tx.signature, error: e as TransactionFailedError };
  }
  throw new Error('expected failure');
}

describe('EmbeddedLedger', () => {
  test('genesis is created once, private, and gives a stable chain id', async () => {
    const dataDir = tempDir();
    const a = await openLedger(dataDir);
    const genesis = await a.getGenesisHash();
    expect(genesis).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(statSync(join(dataDir, 'ledger', 'genesis.json')).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dataDir, 'ledger', 'journal.sqlite'))).toBe(true);
    await expect(EmbeddedLedger.open({ dataDir })).rejects.toThrow(/in use/);
    await a.close();
    const b = await openLedger(dataDir);
    expect(await b.getGenesisHash()).toBe(genesis);
    expect(`solana:${genesis.slice(0, 32)}`).toHaveLength(39);
    await b.close();
  });

  test('a transaction failing during execution lands with its error and fee, and replays identically', async () => {
    const dataDir = tempDir();
    let ledger = await openLedger(dataDir, { snapshots: false });
    const payer = await generateKeyPairSigner();
    await ledger.requestAirdrop(payer.address, 2n * SOL);
    const { signature, error } = await failingTransfer(ledger, payer);
    expect(error).toBeInstanceOf(TransactionFailedError);
    expect(error.code).toBe(LedgerErrorCode.InstructionError);
    expect(error.instructionIndex).toBe(0);
    expect(error.landed).toBe(true);
    expect(error.signature).toBe(signature);
    expect(error.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(error.logs.join('\n')).toContain('insufficient lamports');
    expect(await ledger.getBalance(payer.address)).toBe(2n * SOL - 5_000n);
    const [status] = await ledger.getSignatureStatuses([signature]);
    expect(status!.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    const tx = await ledger.getTransaction(toSignature(signature));
    expect(tx!.fee).toBe(5_000n);
    expect((await ledger.getSignaturesForAddress(payer.address))[0]!.err).toEqual({ InstructionError: [0, { Custom: 1 }] });

    await ledger.close();
    ledger = await openLedger(dataDir, { snapshots: false });
    expect(ledger.replayDivergences).toBe(0);
    expect(await ledger.getBalance(payer.address)).toBe(2n * SOL - 5_000n);
    expect((await ledger.getTransaction(toSignature(signature)))!.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    await ledger.close();
  });

  test('an address lookup table created with a recent slot (SlotHashes), extended, and replayed identically', async () => {
    const dataDir = tempDir();
    let ledger = await openLedger(dataDir, { snapshots: false });
    const authority = Keypair.generate();
    await ledger.requestAirdrop(address(authority.publicKey.toBase58()), 2n * SOL);
    const send = async (ix: TransactionInstruction) => {
      const { blockhash } = await ledger.getLatestBlockhash();
      const tx = new Transaction({ recentBlockhash: blockhash, feePayer: authority.publicKey }).add(ix);
      tx.sign(authority);
      return ledger.sendTransaction(tx.serialize());
    };
    await waitFor('slot 4', 10_000, async () => (await ledger.getSlot('processed')) > 3n);
    const recentSlot = Number(await ledger.getSlot('processed')) - 1;
    const [create, table] = AddressLookupTableProgram.createLookupTable({ authority: authority.publicKey, payer: authority.publicKey, recentSlot });
    await send(create);
    const member = Keypair.generate().publicKey;
    await send(AddressLookupTableProgram.extendLookupTable({ lookupTable: table, authority: authority.publicKey, payer: authority.publicKey, addresses: [member] }));
    const before = await ledger.getAccountInfo(table.toBase58(), 'processed');
    expect(before).not.toBeNull();
    expect(before!.data.length).toBe(56 + 32);

    await ledger.close();
    ledger = await openLedger(dataDir, { snapshots: false });
    expect(ledger.replayDivergences).toBe(0);
    expect(Buffer.from((await ledger.getAccountInfo(table.toBase58(), 'processed'))!.data)).toEqual(Buffer.from(before!.data));
    await ledger.close();
  });

  test('refusals before execution change nothing: bad signature, malformed bytes, forged precompile', async () => {
    const ledger = await openLedger(tempDir());
    const payer = await generateKeyPairSigner();
    await ledger.requestAirdrop(payer.address, SOL);
    const lifetime = await ledger.getLatestBlockhash();

    const tx = await buildTransaction(lifetime, payer, [memoInstruction({ memo: 'tampered' })]);
    const tampered = new Uint8Array(tx.wire);
    const at = Buffer.from(tampered).indexOf('tampered');
    tampered[at]! ^= 0x01; // change the memo text: the signature no longer matches
    const bad = (await ledger.sendTransaction(tampered).catch((e: unknown) => e)) as TransactionFailedError;
    expect(bad.code).toBe(LedgerErrorCode.SignatureVerificationFailed);
    expect(bad.err).toBe('SignatureFailure');
    expect(bad.landed).toBe(false);

    const junk = (await ledger.sendTransaction(new Uint8Array([1, 2, 3])).catch((e: unknown) => e)) as TransactionFailedError;
    expect(junk).toBeInstanceOf(TransactionFailedError);
    expect(junk.code).toBe(LedgerErrorCode.InvalidTransaction);
    expect(junk.err).toBe('SanitizeFailure');

    const key = generateKeyPairSync('ed25519');
    const statement = Buffer.from('statement');
    const forged = new Uint8Array(sign(null, Buffer.from('other statement'), key.privateKey));
    const ftx = await buildTransaction(lifetime, payer, [ed25519Instruction(rawPublicKey(key.publicKey), forged, statement)]);
    const pre = (await ledger.sendTransaction(ftx.wire).catch((e: unknown) => e)) as TransactionFailedError;
    expect(pre.code).toBe(LedgerErrorCode.SignatureVerificationFailed);
    expect(pre.instructionIndex).toBe(0);
    expect(pre.landed).toBe(false);
    expect(pre.message).toMatch(/precompile/);

    expect(await ledger.getBalance(payer.address)).toBe(SOL);
    expect(await ledger.getSignaturesForAddress(payer.address)).toHaveLength(1); // the airdrop
  });

  test('replay: full journal, snapshot, and snapshot plus journal tail give the same state', async () => {
    const dataDir = tempDir();
    const payer = await generateKeyPairSigner();
    const sendMemo = async (l: EmbeddedLedger, text: string): Promise<string> =>
      l.sendTransaction((await buildTransaction(await l.getLatestBlockhash(), payer, [memoInstruction({ memo: text })])).wire);

    let l = await openLedger(dataDir);
    await l.requestAirdrop(payer.address, SOL);
    await sendMemo(l, 'one');
    await l.close(); // writes a snapshot at this journal position
    expect(existsSync(join(dataDir, 'ledger', 'snapshot.bin'))).toBe(true);

    l = await openLedger(dataDir, { snapshots: false }); // ignores the snapshot, full replay; writes none on close
    expect(await l.getBalance(payer.address)).toBe(SOL - 5_000n);
    const two = await sendMemo(l, 'two');
    await l.close();

    const logged: string[] = [];
    const logger = { log: (m: string) => logged.push(m), warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m) };
    l = await openLedger(dataDir, { logger }); // stale snapshot + replay of the tail
    expect(logged).toEqual(['Ledger replayed 1 journal transactions (from seq 2)']);
    expect(l.replayDivergences).toBe(0);
    expect(await l.getBalance(payer.address)).toBe(SOL - 10_000n);
    expect((await l.getTransaction(toSignature(two)))!.logMessages.join()).toContain('two');
    await sendMemo(l, 'three');
    expect(await l.getBalance(payer.address)).toBe(SOL - 15_000n);
    await l.close();
  });

  test('concurrent transactions share journal commits and all survive a restart', async () => {
    const dataDir = tempDir();
    let l = await openLedger(dataDir, { snapshots: false });
    const payer = await generateKeyPairSigner();
    await l.requestAirdrop(payer.address, SOL);
    const lifetime = await l.getLatestBlockhash();
    const txs = await Promise.all(Array.from({ length: 25 }, (_, i) => buildTransaction(lifetime, payer, [memoInstruction({ memo: `c${i}` })])));
    const sigs = await Promise.all(txs.map((t) => l.sendTransaction(t.wire)));
    expect(sigs).toEqual(txs.map((t) => t.signature));
    // A duplicate inside the same batch is refused too.
    const [a, b] = await Promise.allSettled([l.sendTransaction(txs[0]!.wire), l.sendTransaction(txs[0]!.wire)]);
    expect(a.status).toBe('rejected');
    expect(b.status).toBe('rejected');
    await l.close();
    l = await openLedger(dataDir, { snapshots: false });
    expect(await l.getBalance(payer.address)).toBe(SOL - 25n * 5_000n);
    expect((await l.getSignatureStatuses(sigs)).every((s) => s !== null && s.err === null)).toBe(true);
    expect(await l.getSignaturesForAddress(payer.address, { limit: 1000 })).toHaveLength(26);
    const page = await l.getSignaturesForAddress(payer.address, { limit: 10, before: sigs[20]! });
    expect(page.map((e) => e.signature)).toEqual(sigs.slice(10, 20).reverse());
    await l.close();
  });

  test('commitment finalized waits 32 slots; inspector extras', async () => {
    const l = await openLedger(tempDir());
    const payer = await generateKeyPairSigner();
    await l.requestAirdrop(payer.address, SOL);
    const tx = await buildTransaction(await l.getLatestBlockhash(), payer, [memoInstruction({ memo: 'final' })]);
    const signature = await l.sendTransaction(tx.wire, { commitment: 'finalized' });
    const [status] = await l.getSignatureStatuses([signature]);
    expect(status!.confirmationStatus).toBe('finalized');
    expect(status!.confirmations).toBeNull();

    const info = await l.getAccountInfo(payer.address);
    expect(info).toEqual({ lamports: SOL - 5_000n, owner: '11111111111111111111111111111111', data: new Uint8Array(0), executable: false, rentEpoch: expect.any(BigInt) });
    expect((await l.getAccountInfo(MEMO_PROGRAM_ADDRESS))!.executable).toBe(true);
    expect(await l.getAccountInfo((await generateKeyPairSigner()).address)).toBeNull();

    const slot = await l.getSlot();
    const time = await l.getBlockTime(slot);
    expect(Math.abs(time! - Date.now() / 1000)).toBeLessThan(5);
    expect(await l.getBlockTime(slot + 1000n)).toBeNull();

    const { blockhash } = await l.getLatestBlockhash();
    expect(await l.isBlockhashValid(blockhash)).toBe(true);
    expect(await l.isBlockhashValid('GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi')).toBe(false);

    const sim = await buildTransaction(await l.getLatestBlockhash(), payer, [memoInstruction({ memo: 'simulated' })]);
    const result = await l.simulateTransaction(sim.wire);
    expect(result.err).toBeNull();
    expect(result.logs.join()).toContain('simulated');
    expect(result.fee).toBe(5_000n);
    expect(await l.getBalance(payer.address)).toBe(SOL - 5_000n);
    expect(await l.getSignatureStatuses([sim.signature])).toEqual([null]);
    // The simulated transaction can still be sent afterwards.
    await l.sendTransaction(sim.wire);
    await waitFor('balance', 1_000, async () => (await l.getBalance(payer.address)) === SOL - 10_000n);
  });
});
