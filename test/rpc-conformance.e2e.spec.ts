/**
 * The embedded ledger's JSON-RPC and PubSub endpoints as standard Solana clients use them, against
 * a running service: `@solana/web3.js` 1.x `Connection` given only `<base>/rpc` (it finds the
 * websocket on the port + 1 by itself) and `@solana/kit` (`createSolanaRpc`,
 * `createSolanaRpcSubscriptions` on `ws://<host>:<port>/rpc`, `sendAndConfirmTransactionFactory`).
 */
import { createServer } from 'node:net';
import { generateKeyPairSync, sign } from 'node:crypto';
import {
  AddressLookupTableProgram,
  Connection,
  Ed25519Program,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
  sendAndConfirmTransaction,
  type ParsedInstruction,
  type ParsedTransaction,
  type PartiallyDecodedInstruction,
} from '@solana/web3.js';
import {
  address,
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  fetchEncodedAccounts,
  generateKeyPairSigner,
  getBase58Decoder,
  getSignatureFromTransaction,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Signature,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getAddMemoInstruction } from '@solana-program/memo';
import WebSocket from 'ws';
import { freePort } from '../apps/cli/src/service-process';
import { startTestService, type TestService } from './support/test-service';

const MEMO = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const FINALITY_DEPTH = 32;
const SLOT_MS = 50;

/** A free port whose successor is free too (web3.js 1.x looks for the websocket on port + 1). */
async function freePortPair(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await freePort();
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port + 1, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no two consecutive free ports');
}

function memo(text: string, signer: PublicKey): TransactionInstruction {
  return new TransactionInstruction({ programId: MEMO, keys: [{ pubkey: signer, isSigner: true, isWritable: false }], data: Buffer.from(text, 'utf8') });
}

/** Resolves with the first value `subscribe` hands to its callback (and unsubscribes). */
function first<T>(subscribe: (cb: (v: T) => void) => number, unsubscribe: (id: number) => Promise<void>, timeoutMs = 15_000): Promise<T> {
  return new Promise((resolve, reject) => {
    let id: number | undefined;
    let done = false;
    const timer = setTimeout(() => reject(new Error('no notification')), timeoutMs);
    id = subscribe((v) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (id !== undefined) void unsubscribe(id).catch(() => undefined);
      resolve(v);
    });
  });
}

let service: TestService;
let connection: Connection;
let payer: Keypair;

beforeAll(async () => {
  service = await startTestService({ port: await freePortPair(), env: { LEDGER_SLOT_MS: String(SLOT_MS) } });
  connection = new Connection(service.rpcUrl);
  payer = Keypair.generate();
  // A chain deeper than the finality depth, so the finalized slot is not pinned at 0.
  const deep = (async () => {
    while ((await connection.getSlot('processed')) <= FINALITY_DEPTH + 8) await new Promise((r) => setTimeout(r, SLOT_MS));
  })();
  const signature = await connection.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL);
  const latest = await connection.getLatestBlockhash('confirmed');
  await connection.confirmTransaction({ signature, ...latest }, 'confirmed');
  await deep;
});

afterAll(async () => {
  // web3.js keeps its websocket open; closing the service ends it.
  await service?.destroy();
});

describe('@solana/web3.js 1.x Connection(<base>/rpc), no other option', () => {
  test('sendAndConfirmTransaction, then getParsedTransaction parses System and Memo, balances add up', async () => {
    const to = Keypair.generate().publicKey;
    const before = await connection.getBalance(payer.publicKey, 'confirmed');
    const tx = new Transaction().add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 1_000_000 }),
      memo('conformance', payer.publicKey),
    );
    const signature = await sendAndConfirmTransaction(connection, tx, [payer], { commitment: 'confirmed' });

    const parsed = await connection.getParsedTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(parsed).not.toBeNull();
    const [transfer, note] = parsed!.transaction.message.instructions as ParsedInstruction[];
    expect(transfer).toEqual({
      program: 'system',
      programId: SystemProgram.programId,
      parsed: { type: 'transfer', info: { source: payer.publicKey.toBase58(), destination: to.toBase58(), lamports: 1_000_000 } },
      stackHeight: null,
    });
    expect(note).toMatchObject({ program: 'spl-memo', parsed: 'conformance' });
    expect(parsed!.transaction.message.accountKeys[0]).toMatchObject({ pubkey: payer.publicKey, signer: true, writable: true, source: 'transaction' });
    const meta = parsed!.meta!;
    const keys = parsed!.transaction.message.accountKeys.map((k) => k.pubkey.toBase58());
    const i = keys.indexOf(to.toBase58());
    expect(meta.preBalances[0]).toBe(before);
    expect(meta.postBalances[0]).toBe(before - 1_000_000 - meta.fee);
    expect(meta.preBalances[i]).toBe(0);
    expect(meta.postBalances[i]).toBe(1_000_000);
    expect(await connection.getBalance(to, 'confirmed')).toBe(1_000_000);

    const plain = await connection.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(plain!.meta!.postBalances).toEqual(meta.postBalances);
    expect(plain!.transaction.signatures[0]).toBe(signature);
  });

  test('the Ed25519 precompile comes back partially decoded, as the real RPC answers it', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const message = Buffer.from('svc evidence');
    const instruction = Ed25519Program.createInstructionWithPublicKey({
      publicKey: publicKey.export({ format: 'der', type: 'spki' }).subarray(12),
      message,
      signature: sign(null, message, privateKey),
    });
    const signature = await sendAndConfirmTransaction(connection, new Transaction().add(instruction), [payer], { commitment: 'confirmed' });
    const parsed = await connection.getParsedTransaction(signature, { commitment: 'confirmed' });
    const ix = parsed!.transaction.message.instructions[0] as PartiallyDecodedInstruction;
    expect(ix.programId.toBase58()).toBe('Ed25519SigVerify111111111111111111111111111');
    expect(ix.accounts).toEqual([]);
    expect('parsed' in ix).toBe(false);
    expect(typeof ix.data).toBe('string');
  });

  test('commitment levels: finalized is 32 slots behind and is the default of every read', async () => {
    const processed = await connection.getSlot('processed');
    const finalized = await connection.getSlot('finalized');
    expect(processed - finalized).toBeGreaterThanOrEqual(FINALITY_DEPTH - 1);
    expect(processed - finalized).toBeLessThanOrEqual(FINALITY_DEPTH + 5);
    expect(await connection.getBlockHeight('finalized')).toBeLessThan(await connection.getBlockHeight('confirmed'));

    const to = Keypair.generate().publicKey;
    const tx = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 2_000_000 }));
    const signature = await sendAndConfirmTransaction(connection, tx, [payer], { commitment: 'confirmed' });
    // Landed but not final: the finalized view (the default) does not have it yet.
    expect(await connection.getBalance(to)).toBe(0);
    expect(await connection.getAccountInfo(to)).toBeNull();
    expect((await connection.getAccountInfo(to, 'confirmed'))?.lamports).toBe(2_000_000);
    expect(await connection.getTransaction(signature, { commitment: 'finalized' })).toBeNull();
    const status = await connection.getSignatureStatus(signature);
    expect(status.value?.confirmationStatus).toBe('confirmed');

    const latest = await connection.getLatestBlockhash();
    await connection.confirmTransaction({ signature, ...latest }, 'finalized');
    expect((await connection.getSignatureStatus(signature)).value?.confirmationStatus).toBe('finalized');
    expect(await connection.getBalance(to)).toBe(2_000_000);
    expect(await connection.getTransaction(signature, { commitment: 'finalized' })).not.toBeNull();
  });

  test('onSignature, onAccountChange, onLogs, onSlotChange, onRootChange', async () => {
    const slot = await first<{ slot: number; parent: number; root: number }>(
      (cb) => connection.onSlotChange(cb),
      (id) => connection.removeSlotChangeListener(id),
    );
    expect(slot.slot).toBeGreaterThan(slot.parent);
    expect(slot.slot - slot.root).toBe(FINALITY_DEPTH);
    const root = await first<number>(
      (cb) => connection.onRootChange(cb),
      (id) => connection.removeRootChangeListener(id),
    );
    expect(root).toBeGreaterThan(0);

    const to = Keypair.generate();
    const account = first<{ lamports: number }>(
      (cb) => connection.onAccountChange(to.publicKey, (info) => cb(info), { commitment: 'confirmed' }),
      (id) => connection.removeAccountChangeListener(id),
    );
    const logs = first<{ signature: string; logs: string[]; err: unknown }>(
      (cb) => connection.onLogs(to.publicKey, (l) => cb(l), 'confirmed'),
      (id) => connection.removeOnLogsListener(id),
    );
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('confirmed');
    const tx = new Transaction({ blockhash, lastValidBlockHeight, feePayer: payer.publicKey }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to.publicKey, lamports: 3_000_000 }),
    );
    tx.sign(payer);
    const signature = await connection.sendRawTransaction(tx.serialize());
    const confirmed = new Promise<unknown>((resolve) => connection.onSignature(signature, (result) => resolve(result.err), 'confirmed'));
    const finalizedAt = Date.now();
    const finalized = new Promise<unknown>((resolve) => connection.onSignature(signature, (result) => resolve(result.err), 'finalized'));

    expect(await confirmed).toBeNull();
    expect((await account).lamports).toBe(3_000_000);
    const log = await logs;
    expect(log).toMatchObject({ signature, err: null });
    expect(log.logs).toContain('Program 11111111111111111111111111111111 success');
    expect(await finalized).toBeNull();
    expect(Date.now() - finalizedAt).toBeGreaterThanOrEqual((FINALITY_DEPTH - 4) * SLOT_MS);
  });

  test('getBlock, getEpochInfo, getSignaturesForAddress with before / until / limit, getFeeForMessage, isBlockhashValid', async () => {
    const sender = Keypair.generate();
    const airdrop = await connection.requestAirdrop(sender.publicKey, LAMPORTS_PER_SOL / 10);
    await connection.confirmTransaction({ signature: airdrop, ...(await connection.getLatestBlockhash('confirmed')) }, 'confirmed');
    const signatures: string[] = [airdrop];
    for (let n = 0; n < 3; n++) {
      const tx = new Transaction().add(SystemProgram.transfer({ fromPubkey: sender.publicKey, toPubkey: payer.publicKey, lamports: 1_000 + n }));
      signatures.push(await sendAndConfirmTransaction(connection, tx, [sender], { commitment: 'confirmed' }));
    }
    const newestFirst = [...signatures].reverse();
    const all = await connection.getSignaturesForAddress(sender.publicKey, {}, 'confirmed');
    expect(all.map((e) => e.signature)).toEqual(newestFirst);
    const page = await connection.getSignaturesForAddress(sender.publicKey, { before: newestFirst[0], limit: 2 }, 'confirmed');
    expect(page.map((e) => e.signature)).toEqual(newestFirst.slice(1, 3));
    const untilOldest = await connection.getSignaturesForAddress(sender.publicKey, { until: newestFirst[3] }, 'confirmed');
    expect(untilOldest.map((e) => e.signature)).toEqual(newestFirst.slice(0, 3));
    expect(await connection.getSignaturesForAddress(sender.publicKey, {}, 'finalized')).toEqual([]);

    const landed = await connection.getTransaction(signatures[1]!, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    const block = await connection.getBlock(landed!.slot, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(block!.transactions.map((t) => t.transaction.signatures[0])).toContain(signatures[1]);
    expect(block!.parentSlot).toBe(landed!.slot - 1);
    expect(block!.blockTime).toBe(landed!.blockTime);
    const parent = await connection.getBlock(landed!.slot - 1, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(block!.previousBlockhash).toBe(parent!.blockhash);
    const parsedBlock = await connection.getParsedBlock(landed!.slot, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
      transactionDetails: 'full',
    });
    const first = parsedBlock.transactions.find((t) => t.transaction.signatures[0] === signatures[1]);
    expect(((first!.transaction as unknown as ParsedTransaction).message.instructions[0] as ParsedInstruction).parsed).toMatchObject({
      type: 'transfer',
      info: { lamports: 1_000 },
    });
    await expect(connection.getBlock((await connection.getSlot('confirmed')) + 1000, { commitment: 'confirmed' })).rejects.toThrow(/not available/);

    const epoch = await connection.getEpochInfo('confirmed');
    expect(epoch.absoluteSlot).toBeGreaterThanOrEqual(landed!.slot);
    expect(epoch.slotIndex).toBeLessThan(epoch.slotsInEpoch);
    expect(epoch.transactionCount).toBeGreaterThanOrEqual(signatures.length);
    expect((await connection.getEpochInfo('finalized')).absoluteSlot).toBeLessThan(epoch.absoluteSlot);

    const latest = await connection.getLatestBlockhash('confirmed');
    const message = new Transaction({ ...latest, feePayer: sender.publicKey }).add(memo('fee', sender.publicKey)).compileMessage();
    expect((await connection.getFeeForMessage(message, 'confirmed')).value).toBe(5_000);
    expect((await connection.isBlockhashValid(latest.blockhash, { commitment: 'confirmed' })).value).toBe(true);
    const finalizedHash = await connection.getLatestBlockhash('finalized');
    expect(finalizedHash.lastValidBlockHeight).toBeLessThan(latest.lastValidBlockHeight);
  });
});

describe('@solana/web3.js 1.x: account, simulation and node methods', () => {
  test('getMultipleAccountsInfo, getMultipleParsedAccounts, token accounts, rent above 10 MiB', async () => {
    const missing = Keypair.generate().publicKey;
    const [info, none, program] = await connection.getMultipleAccountsInfo([payer.publicKey, missing, MEMO], 'confirmed');
    expect(info!.owner.equals(SystemProgram.programId)).toBe(true);
    expect(info!.lamports).toBe(await connection.getBalance(payer.publicKey, 'confirmed'));
    expect(none).toBeNull();
    expect(program!.executable).toBe(true);
    const parsed = await connection.getMultipleParsedAccounts([payer.publicKey, missing], { commitment: 'confirmed' });
    expect(parsed.value[0]!.lamports).toBe(info!.lamports);
    expect(parsed.value[1]).toBeNull();
    await expect(connection.getMultipleAccountsInfo(Array.from({ length: 101 }, () => payer.publicKey))).rejects.toThrow(/Too many inputs provided; max 100/);

    const token = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
    expect((await connection.getTokenAccountsByOwner(payer.publicKey, { programId: token }, 'confirmed')).value).toEqual([]);
    expect((await connection.getParsedTokenAccountsByOwner(payer.publicKey, { programId: token }, 'confirmed')).value).toEqual([]);
    await expect(connection.getTokenAccountsByOwner(payer.publicKey, { mint: missing }, 'confirmed')).rejects.toThrow(/could not find mint/);

    expect(await connection.getMinimumBalanceForRentExemption(20_000_000)).toBe(139_200_890_880);
  });

  test('simulateTransaction with accounts gives their state after execution', async () => {
    const to = Keypair.generate().publicKey;
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('confirmed');
    const tx = new Transaction({ blockhash, lastValidBlockHeight, feePayer: payer.publicKey }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 4_000_000 }),
    );
    const before = await connection.getBalance(payer.publicKey, 'confirmed');
    const sim = await connection.simulateTransaction(tx, [payer], [payer.publicKey, to]);
    expect(sim.value.err).toBeNull();
    expect(sim.value.accounts![0]!.lamports).toBe(before - 4_000_000 - 5_000);
    expect(sim.value.accounts![1]).toMatchObject({ lamports: 4_000_000, owner: SystemProgram.programId.toBase58(), executable: false });
    expect(await connection.getBalance(to, 'confirmed')).toBe(0);
  });

  test('getTransaction of a legacy transaction has meta.loadedAddresses with or without maxSupportedTransactionVersion', async () => {
    const signature = await sendAndConfirmTransaction(connection, new Transaction().add(memo('legacy meta', payer.publicKey)), [payer], {
      commitment: 'confirmed',
    });
    const plain = await connection.getTransaction(signature, { commitment: 'confirmed' });
    const versioned = await connection.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(plain!.meta!.loadedAddresses).toEqual({ writable: [], readonly: [] });
    expect(versioned!.meta!.loadedAddresses).toEqual({ writable: [], readonly: [] });
  });

  test('onAccountChange: a failed transaction notifies its fee payer only', async () => {
    const sender = Keypair.generate();
    const airdrop = await connection.requestAirdrop(sender.publicKey, LAMPORTS_PER_SOL / 10);
    await connection.confirmTransaction({ signature: airdrop, ...(await connection.getLatestBlockhash('confirmed')) }, 'confirmed');
    const to = Keypair.generate().publicKey;
    const seen: number[] = [];
    const id = connection.onAccountChange(to, (info) => seen.push(info.lamports), { commitment: 'confirmed' });
    const payerSeen = first<{ lamports: number }>(
      (cb) => connection.onAccountChange(sender.publicKey, (info) => cb(info), { commitment: 'confirmed' }),
      (sub) => connection.removeAccountChangeListener(sub),
    );
    await new Promise((r) => setTimeout(r, 200));
    const send = async (lamports: number): Promise<string> => {
      const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('confirmed');
      const tx = new Transaction({ blockhash, lastValidBlockHeight, feePayer: sender.publicKey }).add(
        SystemProgram.transfer({ fromPubkey: sender.publicKey, toPubkey: to, lamports }),
      );
      tx.sign(sender);
      const signature = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
      await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, 'confirmed');
      return signature;
    };
    await send(10 * LAMPORTS_PER_SOL).catch(() => undefined); // fails: insufficient funds, fee charged
    expect((await payerSeen).lamports).toBe(LAMPORTS_PER_SOL / 10 - 5_000);
    await send(3_000_000);
    const deadline = Date.now() + 5_000;
    while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await connection.removeAccountChangeListener(id);
    expect(seen).toEqual([3_000_000]);
  });

  test('preflight as a cluster runs it: a failing transaction is refused -32002 and leaves no trace; without preflight it lands, fee charged', async () => {
    const sender = Keypair.generate();
    const airdrop = await connection.requestAirdrop(sender.publicKey, LAMPORTS_PER_SOL / 10);
    await connection.confirmTransaction({ signature: airdrop, ...(await connection.getLatestBlockhash('confirmed')) }, 'confirmed');
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('confirmed');
    const tx = new Transaction({ blockhash, lastValidBlockHeight, feePayer: sender.publicKey }).add(
      SystemProgram.transfer({ fromPubkey: sender.publicKey, toPubkey: Keypair.generate().publicKey, lamports: LAMPORTS_PER_SOL }),
    );
    tx.sign(sender);
    const refused = await connection.sendRawTransaction(tx.serialize()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    expect(String((refused as Error).message)).toMatch(/Transaction simulation failed/);
    const sig58 = getBase58Decoder().decode(tx.signature!);
    // Nothing was sent: no fee, no status.
    expect(await connection.getBalance(sender.publicKey, 'processed')).toBe(LAMPORTS_PER_SOL / 10);
    expect((await connection.getSignatureStatus(sig58, { searchTransactionHistory: true })).value).toBeNull();

    // Without preflight the leader executes it: it lands with its error and the fee is charged; the same bytes sent
    // again without preflight are answered with the signature (a cluster does not refuse them either).
    const landed = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    const outcome = await connection.confirmTransaction({ signature: landed, blockhash, lastValidBlockHeight }, 'confirmed');
    expect(outcome.value.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(await connection.getBalance(sender.publicKey, 'confirmed')).toBe(LAMPORTS_PER_SOL / 10 - 5_000);
    expect(landed).toBe(sig58);
    expect(await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true })).toBe(landed);
    // With preflight, a resend of what already landed is refused as already processed.
    await expect(connection.sendRawTransaction(tx.serialize())).rejects.toThrow(/already been processed|AlreadyProcessed/);
  });

  test('address lookup tables: created with the finalized slot as recentSlot, extended, then used by a v0 transfer', async () => {
    const authority = Keypair.generate();
    const airdrop = await connection.requestAirdrop(authority.publicKey, LAMPORTS_PER_SOL);
    await connection.confirmTransaction({ signature: airdrop, ...(await connection.getLatestBlockhash('confirmed')) }, 'confirmed');
    const recentSlot = await connection.getSlot('finalized');
    const [create, table] = AddressLookupTableProgram.createLookupTable({ authority: authority.publicKey, payer: authority.publicKey, recentSlot });
    await sendAndConfirmTransaction(connection, new Transaction().add(create), [authority], { commitment: 'confirmed' });
    const to = Keypair.generate().publicKey;
    const extend = AddressLookupTableProgram.extendLookupTable({ lookupTable: table, authority: authority.publicKey, payer: authority.publicKey, addresses: [to] });
    await sendAndConfirmTransaction(connection, new Transaction().add(extend), [authority], { commitment: 'confirmed' });
    // A table is usable from the slot after its extension.
    const extendedAt = await connection.getSlot('confirmed');
    while ((await connection.getSlot('confirmed')) <= extendedAt) await new Promise((r) => setTimeout(r, SLOT_MS));

    const lookup = (await connection.getAddressLookupTable(table, { commitment: 'confirmed' })).value!;
    expect(lookup.state.addresses.map((a) => a.toBase58())).toEqual([to.toBase58()]);
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('confirmed');
    const message = new TransactionMessage({
      payerKey: authority.publicKey,
      recentBlockhash: blockhash,
      instructions: [SystemProgram.transfer({ fromPubkey: authority.publicKey, toPubkey: to, lamports: 2_000_000 })],
    }).compileToV0Message([lookup]);
    expect(message.addressTableLookups).toHaveLength(1);
    const tx = new VersionedTransaction(message);
    tx.sign([authority]);
    const signature = await connection.sendTransaction(tx);
    await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, 'confirmed');
    expect(await connection.getBalance(to, 'confirmed')).toBe(2_000_000);
    const landed = await connection.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(landed!.meta!.loadedAddresses).toEqual({ writable: [to], readonly: [] });
  });

  test('node methods: identity and leaders, epoch schedule, cluster nodes, blocks kept, samples, prioritization fees', async () => {
    const slot = await connection.getSlot('confirmed');
    const leader = await connection.getSlotLeader('confirmed');
    expect(await connection.getSlotLeaders(slot, 2)).toEqual([new PublicKey(leader), new PublicKey(leader)]);
    const schedule = await connection.getEpochSchedule();
    expect(schedule.slotsPerEpoch).toBeGreaterThan(0);
    expect(schedule.getEpoch(slot)).toBe((await connection.getEpochInfo('confirmed')).epoch);
    const nodes = await connection.getClusterNodes();
    expect(nodes).toHaveLength(1);
    expect(nodes[0]).toMatchObject({ pubkey: leader, gossip: null, tpu: null });
    expect(nodes[0]!.rpc).toMatch(/:\d+$/);
    expect(await connection.getFirstAvailableBlock()).toBe(0);
    expect(Array.isArray(await connection.getRecentPerformanceSamples(5))).toBe(true);
    const fees = await connection.getRecentPrioritizationFees({ lockedWritableAccounts: [payer.publicKey] });
    expect(fees.length).toBeGreaterThan(0);
    expect(fees[fees.length - 1]).toEqual({ slot: expect.any(Number), prioritizationFee: expect.any(Number) });
  });
});

describe('@solana/kit', () => {
  test('fetchEncodedAccounts, getIdentity, minimumLedgerSlot, getHighestSnapshotSlot', async () => {
    const rpc = createSolanaRpc(service.rpcUrl);
    const missing = address(Keypair.generate().publicKey.toBase58());
    const [mine, none] = await fetchEncodedAccounts(rpc, [address(payer.publicKey.toBase58()), missing], { commitment: 'confirmed' });
    expect(mine!.exists && mine!.programAddress).toBe(SystemProgram.programId.toBase58());
    expect(none!.exists).toBe(false);
    const { identity } = await rpc.getIdentity().send();
    expect(await rpc.getSlotLeader({ commitment: 'confirmed' }).send()).toBe(identity);
    expect(await rpc.minimumLedgerSlot().send()).toBe(0n);
    const snapshot = await rpc
      .getHighestSnapshotSlot()
      .send()
      .catch((e: unknown) => e);
    expect(Number((snapshot as { context: { __code: number } }).context.__code)).toBe(-32008);
  });

  test('createSolanaRpc + createSolanaRpcSubscriptions + sendAndConfirmTransactionFactory', async () => {
    const rpc = createSolanaRpc(service.rpcUrl);
    const rpcSubscriptions = createSolanaRpcSubscriptions(service.rpcUrl.replace('http://', 'ws://'));
    const signer = await generateKeyPairSigner();
    await rpc.requestAirdrop(signer.address, lamports(BigInt(LAMPORTS_PER_SOL))).send();
    const to = address(Keypair.generate().publicKey.toBase58());
    const sendAndConfirm = sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions });
    const send = async (amount: bigint, commitment: 'confirmed' | 'finalized'): Promise<Signature> => {
      const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
      const message = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(signer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
        (m) =>
          appendTransactionMessageInstructions(
            [
              getTransferSolInstruction({ source: signer, destination: to, amount }),
              getAddMemoInstruction({ memo: `kit ${amount}` }, { programAddress: address(MEMO.toBase58()) }),
            ],
            m,
          ),
      );
      const tx = await signTransactionMessageWithSigners(message);
      await sendAndConfirm(tx as never, { commitment });
      return getSignatureFromTransaction(tx);
    };

    const signature = await send(5_000_000n, 'confirmed');
    const tx = await rpc.getTransaction(signature, { commitment: 'confirmed', encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send();
    expect(tx!.version).toBe(0);
    expect(tx!.transaction.message.instructions[0]).toMatchObject({ program: 'system', parsed: { type: 'transfer', info: { lamports: 5_000_000n } } });
    expect(tx!.transaction.message.instructions[1]).toMatchObject({ program: 'spl-memo', parsed: 'kit 5000000' });
    expect((await rpc.getBalance(to, { commitment: 'confirmed' }).send()).value).toBe(5_000_000n);

    const final = await send(1_000_000n, 'finalized');
    const [status] = (await rpc.getSignatureStatuses([final]).send()).value;
    expect(status?.confirmationStatus).toBe('finalized');
    expect((await rpc.getBalance(to, { commitment: 'finalized' }).send()).value).toBe(6_000_000n);

    const abort = new AbortController();
    const slots = await rpcSubscriptions.slotNotifications().subscribe({ abortSignal: abort.signal });
    for await (const n of slots) {
      expect(n.slot - n.root).toBe(BigInt(FINALITY_DEPTH));
      break;
    }
    abort.abort();
    const epoch = await rpc.getEpochInfo({ commitment: 'confirmed' }).send();
    expect(epoch.blockHeight).toBe(epoch.absoluteSlot);
  });
});

describe('JSON-RPC 2.0 over raw HTTP', () => {
  test('notifications get no response object; an object id is -32600', async () => {
    const post = (body: unknown) => fetch(service.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const alone = await post({ jsonrpc: '2.0', method: 'getSlot' });
    expect(alone.status).toBe(200);
    expect(await alone.text()).toBe('');
    const mixed = await post([
      { jsonrpc: '2.0', method: 'getSlot' },
      { jsonrpc: '2.0', id: 5, method: 'getHealth' },
    ]);
    expect(await mixed.json()).toEqual([{ jsonrpc: '2.0', id: 5, result: 'ok' }]);
    const objectId = await post({ jsonrpc: '2.0', id: { n: 1 }, method: 'getSlot' });
    expect(await objectId.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } });
  });
});

describe('PubSub over a raw websocket', () => {
  test('accountSubscribe without an encoding notifies the data as a plain base58 string (binary), as Agave does', async () => {
    const to = Keypair.generate().publicKey;
    const ws = new WebSocket(service.rpcUrl.replace('http://', 'ws://'));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const messages: { id?: number; result?: unknown; method?: string; params?: { result: { value: { data: unknown; lamports: number } } } }[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'accountSubscribe', params: [to.toBase58(), { commitment: 'confirmed' }] }));
    const until = async (found: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!found() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    };
    await until(() => messages.some((m) => m.id === 1));
    // A fresh blockhash of its own: web3.js keeps one for 30 s, longer than this 50 ms-slot ledger keeps it valid.
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('confirmed');
    const tx = new Transaction({ blockhash, lastValidBlockHeight, feePayer: payer.publicKey }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 3_000_000 }),
    );
    tx.sign(payer);
    await connection.sendRawTransaction(tx.serialize(), { preflightCommitment: 'confirmed' });
    await until(() => messages.some((m) => m.method === 'accountNotification'));
    ws.close();
    const notification = messages.find((m) => m.method === 'accountNotification');
    expect(notification?.params?.result.value).toMatchObject({ lamports: 3_000_000, data: '' });
  });


  test('unknown subscription ids, bad filters and methods get JSON-RPC errors; a notification gets no answer', async () => {
    const ws = new WebSocket(service.rpcUrl.replace('http://', 'ws://'));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const answers: { id: number | null; error?: { code: number; message: string }; result?: unknown }[] = [];
    ws.on('message', (data) => answers.push(JSON.parse(String(data))));
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'ping' }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'slotUnsubscribe', params: [12345] }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'logsSubscribe', params: [{ mentions: [payer.publicKey.toBase58(), MEMO.toBase58()] }] }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'getSlot', params: [] }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'signatureSubscribe', params: ['not-a-signature'] }));
    ws.send('{');
    const deadline = Date.now() + 5_000;
    while (answers.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    ws.close();
    const byId = new Map(answers.map((a) => [a.id, a.error?.code]));
    expect(answers).toHaveLength(5);
    expect(byId.get(1)).toBe(-32602);
    expect(byId.get(2)).toBe(-32602);
    expect(byId.get(3)).toBe(-32601);
    expect(byId.get(4)).toBe(-32602);
    expect(byId.get(null)).toBe(-32700);
  });
});
