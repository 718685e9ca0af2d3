/**
 * The JSON-RPC endpoint as seen by @solana/kit's own client (response shapes must parse) and by
 * raw HTTP (JSON-RPC 2.0 envelope, batches, error codes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  createSolanaRpc,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase58Encoder,
  isSolanaError,
  lamports,
  type Address,
  type Base64EncodedWireTransaction,
  type KeyPairSigner,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { EmbeddedLedger } from '../embedded/embedded-ledger';
import { MEMO_PROGRAM_ADDRESS } from '../constants';
import { registerLedgerJsonRpc } from './json-rpc-server';
import { bigintsToNumbers } from './json';
import { buildTransaction, memoInstruction } from '../testing/test-transactions';

jest.setTimeout(60_000);

const SOL = 1_000_000_000n;
let dataDir: string;
let ledger: EmbeddedLedger;
let app: FastifyInstance;
let url: string;
let rpc: Rpc<SolanaRpcApi>;
let payer: KeyPairSigner;

async function post(body: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ledger-rpc-'));
  ledger = await EmbeddedLedger.open({ dataDir, slotMs: 20, synchronous: 'normal' });
  app = Fastify();
  registerLedgerJsonRpc(app, ledger, { path: '/rpc' });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/rpc`;
  rpc = createSolanaRpc(url);
  payer = await generateKeyPairSigner();
  await rpc.requestAirdrop(payer.address, lamports(2n * SOL)).send();
});

afterAll(async () => {
  await app.close();
  await ledger.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('registerLedgerJsonRpc with @solana/kit createSolanaRpc', () => {
  test('cluster info methods', async () => {
    expect(await rpc.getHealth().send()).toBe('ok');
    expect(await rpc.getGenesisHash().send()).toBe(await ledger.getGenesisHash());
    const version = await rpc.getVersion().send();
    expect(typeof version['solana-core']).toBe('string');
    const slot = await rpc.getSlot().send();
    expect(typeof slot).toBe('bigint');
    expect(await rpc.getBlockHeight().send()).toBeGreaterThanOrEqual(slot);
    const { context, value } = await rpc.getLatestBlockhash().send();
    expect(context.slot).toBeGreaterThanOrEqual(slot);
    expect(value.lastValidBlockHeight).toBeGreaterThanOrEqual(context.slot + 150n);
    expect((await rpc.isBlockhashValid(value.blockhash).send()).value).toBe(true);
    expect(typeof (await rpc.getBlockTime(slot).send())).toBe('bigint');
    expect(await rpc.getMinimumBalanceForRentExemption(0n).send()).toBe(890_880n);
    expect((await rpc.getBalance(payer.address).send()).value).toBe(2n * SOL);
  });

  test('sendTransaction (base64 and base58), getTransaction (json and base64), getSignaturesForAddress with memo', async () => {
    const lifetime = await ledger.getLatestBlockhash();
    const tx = await buildTransaction(lifetime, payer, [memoInstruction({ memo: 'hello rpc' })]);
    const signature = await rpc.sendTransaction(Buffer.from(tx.wire).toString('base64') as Base64EncodedWireTransaction, { encoding: 'base64' }).send();
    expect(signature).toBe(tx.signature);

    const legacy = await buildTransaction(lifetime, payer, [memoInstruction({ memo: 'legacy base58' })], 'legacy');
    const sig58 = await post({ jsonrpc: '2.0', id: 7, method: 'sendTransaction', params: [getBase58Decoder().decode(legacy.wire)] });
    expect(sig58).toEqual({ jsonrpc: '2.0', id: 7, result: legacy.signature });

    const json = await rpc.getTransaction(signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(json).not.toBeNull();
    expect(json!.version).toBe(0);
    expect(json!.transaction.signatures).toEqual([signature]);
    const message = json!.transaction.message;
    expect(message.accountKeys).toEqual([payer.address, MEMO_PROGRAM_ADDRESS]);
    expect(message.header).toEqual({ numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 });
    expect(message.recentBlockhash).toBe(lifetime.blockhash);
    expect(message.instructions).toHaveLength(1);
    expect(message.instructions[0]!.programIdIndex).toBe(1);
    expect(Buffer.from(getBase58Encoder().encode(message.instructions[0]!.data)).toString()).toBe('hello rpc');
    expect(json!.meta!.err).toBeNull();
    expect(json!.meta!.fee).toBe(5_000n);
    expect(json!.meta!.logMessages!.join()).toContain('hello rpc');
    expect(json!.meta!.status).toEqual({ Ok: null });

    const b64 = await rpc.getTransaction(signature, { encoding: 'base64', maxSupportedTransactionVersion: 0 }).send();
    expect(Buffer.from(b64!.transaction[0], 'base64').equals(Buffer.from(tx.wire))).toBe(true);
    expect(typeof b64!.blockTime).toBe('bigint');

    // v0 transaction without maxSupportedTransactionVersion: -32015, as on Solana.
    const unsupported = await rpc
      .getTransaction(signature, { encoding: 'json' })
      .send()
      .catch((e: unknown) => e);
    expect(isSolanaError(unsupported) && Number((unsupported.context as { __code: number }).__code)).toBe(-32015);
    // Legacy transactions are served without it.
    expect((await rpc.getTransaction(legacy.signature as Signature, { encoding: 'json' }).send())!.transaction.signatures).toEqual([legacy.signature]);
    // A client supporting later versions (any u8, as Agave reads it) gets the v0 transaction; a non-u8 is -32602.
    const versioned = (max: number) => post({ jsonrpc: '2.0', id: 1, method: 'getTransaction', params: [signature, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: max }] });
    expect(await versioned(1)).toMatchObject({ result: { version: 0 } });
    expect(await versioned(256)).toMatchObject({ error: { code: -32602 } });

    const history = await rpc.getSignaturesForAddress(payer.address, { limit: 2 }).send();
    expect(history.map((h) => h.signature)).toEqual([legacy.signature, signature]);
    expect(history[1]!.memo).toBe('[9] hello rpc');
    expect(history[1]!.confirmationStatus).toBe('confirmed');
    const statuses = await rpc.getSignatureStatuses([signature, legacy.signature as Signature]).send();
    expect(statuses.value.map((s) => s?.err)).toEqual([null, null]);
  });

  test('failed transactions: -32002 with logs under preflight; the signature with skipPreflight', async () => {
    const to = await generateKeyPairSigner();
    const transfer = (amount: bigint) => getTransferSolInstruction({ source: payer, destination: to.address, amount: lamports(amount) });
    const lifetime = await ledger.getLatestBlockhash();
    const a = await buildTransaction(lifetime, payer, [transfer(100n * SOL)]);
    const err = await rpc
      .sendTransaction(Buffer.from(a.wire).toString('base64') as Base64EncodedWireTransaction, { encoding: 'base64' })
      .send()
      .catch((e: unknown) => e);
    expect(isSolanaError(err)).toBe(true);
    const context = (err as { context: { __code: number; logs: string[] } }).context;
    expect(Number(context.__code)).toBe(-32002);
    expect(context.logs.join('\n')).toContain('insufficient lamports');
    // The preflight refused it: nothing was sent (no status, no fee).
    expect((await rpc.getSignatureStatuses([a.signature as Signature], { searchTransactionHistory: true }).send()).value).toEqual([null]);

    // Without preflight, one the leader would drop (an unknown blockhash) is answered with its signature and never lands.
    const stale = await buildTransaction({ blockhash: '11111111111111111111111111111111' as never, lastValidBlockHeight: 1n }, payer, [transfer(1n)]);
    const dropped = await rpc
      .sendTransaction(Buffer.from(stale.wire).toString('base64') as Base64EncodedWireTransaction, { encoding: 'base64', skipPreflight: true })
      .send();
    expect(dropped).toBe(stale.signature);
    expect((await rpc.getSignatureStatuses([dropped], { searchTransactionHistory: true }).send()).value).toEqual([null]);

    const b = await buildTransaction(lifetime, payer, [transfer(200n * SOL)]);
    const sig = await rpc
      .sendTransaction(Buffer.from(b.wire).toString('base64') as Base64EncodedWireTransaction, { encoding: 'base64', skipPreflight: true })
      .send();
    expect(sig).toBe(b.signature);
    const [status] = (await rpc.getSignatureStatuses([sig]).send()).value;
    expect(bigintsToNumbers(status!.err)).toEqual({ InstructionError: [0, { Custom: 1 }] });
  });

  test('a transaction invoking an account that does not exist is ProgramAccountNotFound; one that is no program, InvalidProgramForExecution', async () => {
    const wallet = await generateKeyPairSigner();
    await rpc.requestAirdrop(wallet.address, lamports(SOL)).send();
    const messages: string[] = [];
    const errOf = async (programAddress: Address) => {
      const tx = await buildTransaction(await ledger.getLatestBlockhash(), payer, [{ programAddress, accounts: [], data: new Uint8Array([1]) }]);
      const wire = Buffer.from(tx.wire).toString('base64') as Base64EncodedWireTransaction;
      const simulated = (await post({ jsonrpc: '2.0', id: 1, method: 'simulateTransaction', params: [wire, { encoding: 'base64' }] })) as { result: { value: { err: unknown } } };
      const sent = (await post({ jsonrpc: '2.0', id: 2, method: 'sendTransaction', params: [wire, { encoding: 'base64' }] })) as { error: { code: number; message: string; data: { err: unknown } } };
      expect(sent.error.code).toBe(-32002);
      messages.push(sent.error.message);
      return [simulated.result.value.err, sent.error.data.err];
    };
    expect(await errOf((await generateKeyPairSigner()).address)).toEqual(['ProgramAccountNotFound', 'ProgramAccountNotFound']);
    expect(await errOf(wallet.address)).toEqual(['InvalidProgramForExecution', 'InvalidProgramForExecution']);
    expect(messages).toEqual([
      'Transaction simulation failed: Attempt to load a program that does not exist',
      'Transaction simulation failed: This program may not be used for executing instructions',
    ]);
  });

  test('getBlock: rewards as Agave lists them (none paid here), null per transaction when not asked; the first block has no previous hash', async () => {
    const tx = await buildTransaction(await ledger.getLatestBlockhash(), payer, [memoInstruction({ memo: 'block rewards' })]);
    const sig = await rpc.sendTransaction(Buffer.from(tx.wire).toString('base64') as Base64EncodedWireTransaction, { encoding: 'base64' }).send();
    let slot: bigint | undefined;
    while (slot === undefined) {
      const [status] = (await rpc.getSignatureStatuses([sig]).send()).value;
      if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') slot = status.slot;
      else await new Promise((r) => setTimeout(r, 20));
    }
    const block = async (config: Record<string, unknown>) =>
      ((await post({ jsonrpc: '2.0', id: 1, method: 'getBlock', params: [Number(slot), { commitment: 'confirmed', maxSupportedTransactionVersion: 0, ...config }] })) as { result: Record<string, unknown> & { transactions: { meta: Record<string, unknown> }[] } }).result;
    const full = await block({});
    expect([full.rewards, full.transactions[0]!.meta.rewards]).toEqual([[], []]);
    const quiet = await block({ rewards: false });
    expect(['rewards' in quiet, quiet.transactions[0]!.meta.rewards]).toEqual([false, null]);
    const accounts = await block({ transactionDetails: 'accounts' });
    expect(accounts.transactions[0]!.meta.rewards).toEqual([]);
    expect('rewards' in (await block({ transactionDetails: 'accounts', rewards: false })).transactions[0]!.meta).toBe(false);
    const first = (await post({ jsonrpc: '2.0', id: 2, method: 'getBlock', params: [0, { commitment: 'confirmed', transactionDetails: 'none', rewards: false }] })) as { result: { previousBlockhash: string } };
    expect(first.result.previousBlockhash).toBe('11111111111111111111111111111111');
  });

  test('requestAirdrop of an amount a new account cannot hold (below rent exemption) answers its signature; the transaction failed', async () => {
    const fresh = await generateKeyPairSigner();
    const sig = (await post({ jsonrpc: '2.0', id: 1, method: 'requestAirdrop', params: [fresh.address, 1] })) as { result?: string; error?: unknown };
    expect(sig.error).toBeUndefined();
    const [status] = (await rpc.getSignatureStatuses([sig.result as Signature], { searchTransactionHistory: true }).send()).value;
    expect(bigintsToNumbers(status!.err)).toEqual({ InsufficientFundsForRent: { account_index: 1 } });
    expect((await rpc.getBalance(fresh.address, { commitment: 'processed' }).send()).value).toBe(0n);
  });

  test('getSignatureStatuses finds a transaction older than the status cache (300 slots) only when asked to search the history', async () => {
    const tx = await buildTransaction(await ledger.getLatestBlockhash(), payer, [memoInstruction({ memo: 'an old status' })]);
    const sig = await rpc.sendTransaction(Buffer.from(tx.wire).toString('base64') as Base64EncodedWireTransaction, { encoding: 'base64' }).send();
    let recent = (await rpc.getSignatureStatuses([sig]).send()).value[0];
    while (recent === null) {
      await new Promise((r) => setTimeout(r, 20));
      recent = (await rpc.getSignatureStatuses([sig]).send()).value[0];
    }
    expect(recent.err).toBeNull();
    while ((await rpc.getSlot({ commitment: 'processed' }).send()) <= recent.slot + 300n) await new Promise((r) => setTimeout(r, 200));
    expect((await rpc.getSignatureStatuses([sig]).send()).value).toEqual([null]);
    expect((await rpc.getSignatureStatuses([sig], { searchTransactionHistory: false }).send()).value).toEqual([null]);
    const [old] = (await rpc.getSignatureStatuses([sig], { searchTransactionHistory: true }).send()).value;
    expect(old).toMatchObject({ slot: recent.slot, err: null, confirmationStatus: 'finalized' });
    const flag = (await post({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[sig], { searchTransactionHistory: 'yes' }] })) as { error: { code: number } };
    expect(flag.error.code).toBe(-32602);
  });

  test('simulateTransaction executes without committing; getAccountInfo; getFeeForMessage', async () => {
    const tx = await buildTransaction(await ledger.getLatestBlockhash(), payer, [memoInstruction({ memo: 'dry run' })]);
    const before = (await rpc.getBalance(payer.address).send()).value;
    const sim = await rpc.simulateTransaction(Buffer.from(tx.wire).toString('base64') as Base64EncodedWireTransaction, { encoding: 'base64' }).send();
    expect(sim.value.err).toBeNull();
    expect(sim.value.logs!.join()).toContain('dry run');
    expect(sim.value.unitsConsumed).toBeGreaterThan(0n);
    const replaced = await rpc
      .simulateTransaction(Buffer.from(tx.wire).toString('base64') as Base64EncodedWireTransaction, { encoding: 'base64', replaceRecentBlockhash: true })
      .send();
    expect(typeof replaced.value.replacementBlockhash!.blockhash).toBe('string');
    expect((await rpc.getBalance(payer.address).send()).value).toBe(before);

    const account = await rpc.getAccountInfo(payer.address, { encoding: 'base64' }).send();
    expect(account.value!.lamports).toBe(before);
    expect(account.value!.owner).toBe('11111111111111111111111111111111');
    expect(account.value!.data).toEqual(['', 'base64']);
    const memo = await rpc.getAccountInfo(MEMO_PROGRAM_ADDRESS as Address, { encoding: 'base64' }).send();
    expect(memo.value!.executable).toBe(true);
    expect((await rpc.getAccountInfo((await generateKeyPairSigner()).address, { encoding: 'base64' }).send()).value).toBeNull();

    const fee = await rpc.getFeeForMessage(Buffer.from(tx.messageBytes).toString('base64') as never).send();
    expect(fee.value).toBe(5_000n);
  });

  test('account data without an encoding: a plain base58 string from getAccountInfo (binary), base64 pairs from getMultipleAccounts', async () => {
    // @solana/kit types these default answers as Agave gives them (AccountInfoWithBase58Bytes, AccountInfoWithBase64EncodedData).
    const one = await rpc.getAccountInfo(payer.address).send();
    expect(one.value!.data).toBe('');
    const holder = await generateKeyPairSigner();
    const many = await rpc.getMultipleAccounts([payer.address, holder.address]).send();
    expect(many.value[0]!.data).toEqual(['', 'base64']);
    expect(many.value[1]).toBeNull();
    const binary = (await post({ jsonrpc: '2.0', id: 1, method: 'getAccountInfo', params: [payer.address, { encoding: 'binary', commitment: 'confirmed' }] })) as { result: { value: { data: unknown } } };
    expect(binary.result.value.data).toBe('');
  });
});

describe('registerLedgerJsonRpc over raw HTTP', () => {
  test('JSON-RPC 2.0 envelope and error codes', async () => {
    expect(await post({ jsonrpc: '2.0', id: 1, method: 'nope' })).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } });
    expect(await post('{"jsonrpc":"2.0",')).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect(await post({ id: 2, method: 'getSlot' })).toMatchObject({ id: 2, error: { code: -32600 } });
    expect(await post({ jsonrpc: '2.0', id: 3, method: 'getBalance', params: ['not-an-address'] })).toMatchObject({ id: 3, error: { code: -32602 } });
    expect(await post({ jsonrpc: '2.0', id: 4, method: 'getBlockTime', params: [10 ** 12] })).toMatchObject({ id: 4, error: { code: -32004 } });
    expect(await post([])).toMatchObject({ error: { code: -32600 } });
    // Bytes that are no transaction: -32602, with the preflight and without it.
    for (const skipPreflight of [false, true]) {
      expect(await post({ jsonrpc: '2.0', id: 6, method: 'sendTransaction', params: ['AQID', { encoding: 'base64', skipPreflight }] })).toMatchObject({ id: 6, error: { code: -32602 } });
    }
    // An empty body is not JSON: -32700, as Agave answers.
    expect(await post('')).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    // Another content type is refused, whatever the body (docs/api.md "Service endpoints").
    const plain = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'getSlot' }) });
    expect([plain.status, await plain.json()]).toEqual([200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body must be application/json' } }]);

    const batch = (await post([
      { jsonrpc: '2.0', id: 'a', method: 'getGenesisHash' },
      { jsonrpc: '2.0', id: 'b', method: 'getBalance', params: [payer.address] },
      { jsonrpc: '2.0', id: 'c', method: 'unknown' },
    ])) as { id: string; result?: unknown; error?: { code: number } }[];
    expect(batch.map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(batch[0]!.result).toBe(await ledger.getGenesisHash());
    expect(batch[1]!.result).toMatchObject({ context: { slot: expect.any(Number), apiVersion: expect.any(String) }, value: expect.any(Number) });
    expect(batch[2]!.error!.code).toBe(-32601);
  });
});

describe('registerLedgerJsonRpc: JSON-RPC 2.0 notifications and ids', () => {
  async function raw(body: unknown): Promise<{ status: number; text: string }> {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, text: await res.text() };
  }

  test('a notification gets no response object: HTTP 200 with an empty body, no entry in a batch', async () => {
    expect(await raw({ jsonrpc: '2.0', method: 'getSlot' })).toEqual({ status: 200, text: '' });
    // Failing notifications are not answered either.
    expect(await raw({ jsonrpc: '2.0', method: 'nope' })).toEqual({ status: 200, text: '' });
    expect(
      await raw([
        { jsonrpc: '2.0', method: 'getSlot' },
        { jsonrpc: '2.0', method: 'getBalance', params: ['bad'] },
      ]),
    ).toEqual({ status: 200, text: '' });
    const mixed = (await post([
      { jsonrpc: '2.0', method: 'getSlot' },
      { jsonrpc: '2.0', id: 1, method: 'getGenesisHash' },
      { jsonrpc: '2.0', method: 'nope' },
      { jsonrpc: '2.0', id: null, method: 'getHealth' },
    ])) as { id: unknown; result?: unknown }[];
    expect(mixed).toEqual([
      { jsonrpc: '2.0', id: 1, result: await ledger.getGenesisHash() },
      { jsonrpc: '2.0', id: null, result: 'ok' },
    ]);
  });

  test('an id that is an object or an array is -32600 Invalid request, answered with id null', async () => {
    for (const id of [{ a: 1 }, [1], true]) {
      expect(await post({ jsonrpc: '2.0', id, method: 'getSlot' })).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } });
    }
    expect(
      await post([
        { jsonrpc: '2.0', id: [2], method: 'getSlot' },
        { jsonrpc: '2.0', id: 'x', method: 'getHealth' },
      ]),
    ).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } },
      { jsonrpc: '2.0', id: 'x', result: 'ok' },
    ]);
  });

  test('-32602 messages are worded as Agave words them', async () => {
    const message = async (method: string, params: unknown[]): Promise<unknown> =>
      ((await post({ jsonrpc: '2.0', id: 1, method, params })) as { error: { code: number; message: string } }).error;
    expect(await message('getBalance', ['abc'])).toEqual({ code: -32602, message: 'Invalid param: WrongSize' });
    expect(await message('getBalance', ['0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl'])).toEqual({ code: -32602, message: 'Invalid param: Invalid' });
    expect(await message('getSignaturesForAddress', [payer.address, { limit: 1001 }])).toEqual({ code: -32602, message: 'Invalid limit; max 1000' });
    expect(await message('getSignatureStatuses', [Array(257).fill('1')])).toEqual({ code: -32602, message: 'Too many inputs provided; max 256' });
    expect(await message('getTransaction', [payer.address, { commitment: 'processed' }])).toEqual({ code: -32602, message: 'Invalid param: WrongSize' });
    expect(await message('getBlock', [1, { commitment: 'processed' }])).toEqual({
      code: -32602,
      message: 'Method does not support commitment below `confirmed`',
    });
    // Deserialization failures keep Agave's `Invalid params: ` prefix.
    expect(await message('getBalance', [payer.address, { commitment: 'soon' }])).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Invalid params: unknown variant/),
    });
    expect(await message('getBalance', [7])).toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid params: invalid type/) });
  });
});

describe('registerLedgerJsonRpc: accounts, simulation, rent, node methods', () => {
  const call = async (method: string, params: unknown[] = []): Promise<{ result?: any; error?: { code: number; message: string } }> =>
    (await post({ jsonrpc: '2.0', id: 1, method, params })) as never;

  test('getMultipleAccounts: encodings, dataSlice, nulls, at most 100 keys', async () => {
    const missing = (await generateKeyPairSigner()).address;
    const { result } = await call('getMultipleAccounts', [[payer.address, missing, MEMO_PROGRAM_ADDRESS], { encoding: 'base64', commitment: 'confirmed' }]);
    expect(result.context.slot).toEqual(expect.any(Number));
    expect(result.value[0]).toMatchObject({ data: ['', 'base64'], owner: '11111111111111111111111111111111', executable: false, space: 0 });
    expect(result.value[0].lamports).toBe(Number((await ledger.getBalance(payer.address)).toString()));
    expect(result.value[1]).toBeNull();
    expect(result.value[2]).toMatchObject({ executable: true });
    const sliced = await call('getMultipleAccounts', [
      [MEMO_PROGRAM_ADDRESS],
      { encoding: 'base64', dataSlice: { offset: 0, length: 4 }, commitment: 'confirmed' },
    ]);
    expect(Buffer.from(sliced.result.value[0].data[0], 'base64')).toHaveLength(4);
    expect(sliced.result.value[0].space).toBeGreaterThan(4);
    const parsed = await call('getMultipleAccounts', [[payer.address], { encoding: 'jsonParsed', commitment: 'confirmed' }]);
    expect(parsed.result.value[0].data).toEqual(['', 'base64']);
    expect((await call('getMultipleAccounts', [[MEMO_PROGRAM_ADDRESS], { encoding: 'base58' }])).error).toMatchObject({
      code: -32600,
      message: expect.stringContaining('base 58'),
    });
    expect((await call('getMultipleAccounts', [[payer.address], { encoding: 'base64+zstd' }])).error).toEqual({
      code: -32602,
      message: 'unsupported encoding: base64+zstd',
    });
    expect((await call('getMultipleAccounts', [Array(101).fill(payer.address)])).error).toEqual({ code: -32602, message: 'Too many inputs provided; max 100' });
    expect((await call('getMultipleAccounts', [[payer.address, 'x']])).error).toEqual({ code: -32602, message: 'Invalid param: WrongSize' });
  });

  test('simulateTransaction returns the accounts after execution, null when absent or on failure, -32602 beyond the account keys', async () => {
    const to = await generateKeyPairSigner();
    const before = await ledger.getBalance(payer.address);
    // A finalized blockhash: simulateTransaction judges it at its default commitment, finalized.
    const tx = await buildTransaction(await ledger.getLatestBlockhash('finalized'), payer, [
      getTransferSolInstruction({ source: payer, destination: to.address, amount: lamports(7_000_000n) }),
    ]);
    const wire = Buffer.from(tx.wire).toString('base64');
    const other = (await generateKeyPairSigner()).address;
    const { result } = await call('simulateTransaction', [
      wire,
      { encoding: 'base64', accounts: { encoding: 'base64', addresses: [payer.address, to.address, other] } },
    ]);
    expect(result.value.err).toBeNull();
    const [from, dest, none] = result.value.accounts;
    expect(from.lamports).toBe(Number(before - 7_000_000n - 5_000n));
    expect(dest).toMatchObject({ lamports: 7_000_000, owner: '11111111111111111111111111111111', data: ['', 'base64'], space: 0 });
    expect(none).toBeNull();
    // Nothing was committed.
    expect(await ledger.getBalance(to.address)).toBe(0n);

    const parsed = await call('simulateTransaction', [wire, { encoding: 'base64', accounts: { encoding: 'jsonParsed', addresses: [to.address] } }]);
    expect(parsed.result.value.accounts[0].data).toEqual(['', 'base64']);
    expect((await call('simulateTransaction', [wire, { encoding: 'base64', accounts: { encoding: 'base58', addresses: [to.address] } }])).error).toEqual({
      code: -32602,
      message: 'base58 encoding not supported',
    });
    expect(
      (await call('simulateTransaction', [wire, { encoding: 'base64', accounts: { addresses: [payer.address, to.address, other, other] } }])).error,
    ).toEqual({ code: -32602, message: 'Too many accounts provided; max 3' });

    const failing = await buildTransaction(await ledger.getLatestBlockhash('finalized'), payer, [
      getTransferSolInstruction({ source: payer, destination: to.address, amount: lamports(1_000n * SOL) }),
    ]);
    const failed = await call('simulateTransaction', [
      Buffer.from(failing.wire).toString('base64'),
      { encoding: 'base64', accounts: { addresses: [payer.address] } },
    ]);
    expect(failed.result.value.err).not.toBeNull();
    expect(failed.result.value.accounts).toEqual([null]);
  });

  test('getTransaction: meta.loadedAddresses for a legacy transaction with or without maxSupportedTransactionVersion', async () => {
    const legacy = await buildTransaction(await ledger.getLatestBlockhash(), payer, [memoInstruction({ memo: 'loaded addresses' })], 'legacy');
    await ledger.sendTransaction(legacy.wire);
    for (const config of [{ encoding: 'json' }, { encoding: 'json', maxSupportedTransactionVersion: 0 }, { encoding: 'base64' }]) {
      const { result } = await call('getTransaction', [legacy.signature, { ...config, commitment: 'confirmed' }]);
      expect(result.meta.loadedAddresses).toEqual({ writable: [], readonly: [] });
    }
    const parsed = await call('getTransaction', [legacy.signature, { encoding: 'jsonParsed', commitment: 'confirmed' }]);
    expect(parsed.result.meta.loadedAddresses).toBeUndefined();
  });

  test('getMinimumBalanceForRentExemption: (128 + bytes) × 3,480 × 2 with no cap', async () => {
    expect(await rpc.getMinimumBalanceForRentExemption(165n).send()).toBe(2_039_280n);
    expect(await rpc.getMinimumBalanceForRentExemption(10n * 1024n * 1024n + 1n).send()).toBe((128n + 10n * 1024n * 1024n + 1n) * 6_960n);
    expect(await rpc.getMinimumBalanceForRentExemption(20_000_000n).send()).toBe(139_200_890_880n);
  });

  test('getTokenAccountsByOwner / ByDelegate: [] for a Token program, Agave errors otherwise', async () => {
    for (const method of ['getTokenAccountsByOwner', 'getTokenAccountsByDelegate']) {
      const { result } = await call(method, [
        payer.address,
        { programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' },
        { encoding: 'jsonParsed', commitment: 'confirmed' },
      ]);
      expect(result).toEqual({ context: { slot: expect.any(Number), apiVersion: expect.any(String) }, value: [] });
      expect((await call(method, [payer.address, { programId: MEMO_PROGRAM_ADDRESS }])).error).toEqual({
        code: -32602,
        message: 'Invalid param: unrecognized Token program id',
      });
      expect((await call(method, [payer.address, { mint: (await generateKeyPairSigner()).address }])).error).toEqual({
        code: -32602,
        message: 'Invalid param: could not find mint',
      });
      expect((await call(method, [payer.address, { mint: payer.address }, { commitment: 'confirmed' }])).error).toEqual({
        code: -32602,
        message: 'Invalid param: not a Token mint',
      });
    }
  });

  test('node methods: identity, leaders, epoch schedule, cluster nodes, snapshots, samples, prioritization fees', async () => {
    const { identity } = await rpc.getIdentity().send();
    expect(await rpc.getSlotLeader().send()).toBe(identity);
    const slot = await rpc.getSlot().send();
    expect(await rpc.getSlotLeaders(slot, 3).send()).toEqual([identity, identity, identity]);
    expect((await call('getSlotLeaders', [0, 5001])).error).toEqual({ code: -32602, message: 'Invalid limit; max 5000' });
    expect((await call('getSlotLeaders', [10 ** 12, 1])).error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Invalid slot range: leader schedule for epoch \d+ is unavailable$/),
    });
    // During the warmup epochs (32, 64, 128… slots) a validator knows the schedule up to the next epoch only.
    const info = await rpc.getEpochInfo().send();
    const nextEpochEnd = Number(info.absoluteSlot - info.slotIndex + info.slotsInEpoch) + Number(info.slotsInEpoch) * 2 - 1;
    expect(await rpc.getSlotLeaders(BigInt(nextEpochEnd), 1).send()).toEqual([identity]);
    expect((await call('getSlotLeaders', [nextEpochEnd + 1, 1])).error).toEqual({
      code: -32602,
      message: `Invalid slot range: leader schedule for epoch ${Number(info.epoch) + 2} is unavailable`,
    });
    expect(await rpc.getEpochSchedule().send()).toEqual({
      slotsPerEpoch: 432_000n,
      leaderScheduleSlotOffset: 432_000n,
      warmup: true,
      firstNormalEpoch: 14n,
      firstNormalSlot: 524_256n,
    });
    const [node] = await rpc.getClusterNodes().send();
    expect(node).toMatchObject({ pubkey: identity, gossip: null, tpu: null, rpc: expect.stringMatching(/^127\.0\.0\.1:\d+$/), version: expect.any(String) });
    expect(await rpc.minimumLedgerSlot().send()).toBe(0n);
    expect(await rpc.getFirstAvailableBlock().send()).toBe(0n);
    expect((await call('getHighestSnapshotSlot')).error).toEqual({ code: -32008, message: 'No snapshot' });
    expect(await rpc.getRecentPerformanceSamples(10).send()).toEqual([]);
    expect((await call('getRecentPerformanceSamples', [721])).error).toEqual({ code: -32602, message: 'Invalid limit; max 720' });

    const fees = await rpc.getRecentPrioritizationFees([payer.address]).send();
    expect(fees.length).toBeGreaterThan(0);
    expect(fees.length).toBeLessThanOrEqual(150);
    expect(fees.every((f, i) => i === 0 || f.slot === fees[i - 1]!.slot + 1n)).toBe(true);
    // A transaction paying 7 micro-lamports per CU raises its slot for the accounts it writes only.
    const price = Buffer.alloc(9);
    price.writeUInt8(3, 0);
    price.writeBigUInt64LE(7n, 1);
    const priced = await buildTransaction(await ledger.getLatestBlockhash(), payer, [
      { programAddress: 'ComputeBudget111111111111111111111111111111' as Address, data: new Uint8Array(price) },
      memoInstruction({ memo: 'priority' }),
    ]);
    await ledger.sendTransaction(priced.wire);
    const landed = (await ledger.getTransaction(priced.signature as Signature))!.slot;
    const forPayer = await rpc.getRecentPrioritizationFees([payer.address]).send();
    expect(forPayer.find((f) => f.slot === landed)?.prioritizationFee).toBe(7n);
    const forOther = await rpc.getRecentPrioritizationFees([(await generateKeyPairSigner()).address]).send();
    expect(forOther.find((f) => f.slot === landed)?.prioritizationFee).toBe(7n);
    expect((await call('getRecentPrioritizationFees', [Array(129).fill(payer.address)])).error).toEqual({
      code: -32602,
      message: 'Too many inputs provided; max 128',
    });
  });
});

describe('registerLedgerJsonRpc: blockhashes at each commitment (a slow slot clock)', () => {
  const slow = {} as { ledger: EmbeddedLedger; app: FastifyInstance; rpc: Rpc<SolanaRpcApi>; payer: KeyPairSigner; dir: string; post: (body: unknown) => Promise<unknown> };

  beforeAll(async () => {
    slow.dir = mkdtempSync(join(tmpdir(), 'ledger-rpc-slow-'));
    slow.ledger = await EmbeddedLedger.open({ dataDir: slow.dir, slotMs: 1_000, synchronous: 'normal' });
    slow.app = Fastify();
    registerLedgerJsonRpc(slow.app, slow.ledger, { path: '/rpc' });
    await slow.app.listen({ host: '127.0.0.1', port: 0 });
    const slowUrl = `http://127.0.0.1:${(slow.app.server.address() as AddressInfo).port}/rpc`;
    slow.rpc = createSolanaRpc(slowUrl);
    slow.post = async (body) => (await fetch(slowUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
    slow.payer = await generateKeyPairSigner();
    await slow.ledger.requestAirdrop(slow.payer.address, 2n * SOL);
    // Past slot 0, so the newest blockhash is newer than the finalized one.
    while ((await slow.ledger.getSlot()) < 1n) await new Promise((r) => setTimeout(r, 50));
  });

  afterAll(async () => {
    await slow.app.close();
    await slow.ledger.close();
    rmSync(slow.dir, { recursive: true, force: true });
  });

  test('blockhashes are judged at the commitment asked: one newer than the finalized slot is unknown at finalized, as at a cluster', async () => {
    // One slot a second: the finalized slot (32 behind) cannot reach this blockhash's slot while the test runs.
    const finalizedSlot = await slow.ledger.getSlot('finalized');
    const newest = await slow.ledger.getLatestBlockhash('confirmed');
    expect(BigInt(newest.lastValidBlockHeight) - 150n).toBeGreaterThan(finalizedSlot);
    const tx = await buildTransaction(newest, slow.payer, [memoInstruction({ memo: 'newer than finalized' })]);
    const wire = Buffer.from(tx.wire).toString('base64') as Base64EncodedWireTransaction;
    const message = Buffer.from(tx.messageBytes).toString('base64') as never;

    // Raw calls for `finalized`: @solana/kit leaves a `finalized` commitment out of its requests (the node's default).
    const finalized = async (method: string, params: unknown[]) => ((await slow.post({ jsonrpc: '2.0', id: 1, method, params })) as { result: { value: any } }).result.value;
    expect(await finalized('isBlockhashValid', [newest.blockhash, { commitment: 'finalized' }])).toBe(false);
    expect((await slow.rpc.isBlockhashValid(newest.blockhash as never, { commitment: 'confirmed' }).send()).value).toBe(true);
    expect(await finalized('getFeeForMessage', [message, { commitment: 'finalized' }])).toBeNull();
    expect((await slow.rpc.getFeeForMessage(message, { commitment: 'confirmed' }).send()).value).toBe(5_000n);
    expect((await finalized('simulateTransaction', [wire, { encoding: 'base64', commitment: 'finalized' }])).err).toBe('BlockhashNotFound');
    expect((await slow.rpc.simulateTransaction(wire, { encoding: 'base64', commitment: 'confirmed' }).send()).value.err).toBeNull();
    const refused = (await slow.post({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [wire, { encoding: 'base64', preflightCommitment: 'finalized' }] })) as {
      error?: { code: number; message: string };
    };
    expect(refused.error).toMatchObject({ code: -32002, message: 'Transaction simulation failed: Blockhash not found' });
    expect(await slow.ledger.getSignatureStatuses([tx.signature as Signature])).toEqual([null]);
    // Without a commitment the newest state judges it (more lenient than Agave's finalized default; libs/ledger/README.md).
    const bare = (await slow.post({ jsonrpc: '2.0', id: 2, method: 'isBlockhashValid', params: [newest.blockhash] })) as { result: { value: boolean } };
    expect(bare.result.value).toBe(true);
    const sent = (await slow.post({ jsonrpc: '2.0', id: 3, method: 'sendTransaction', params: [wire, { encoding: 'base64' }] })) as { result?: string };
    expect(sent.result).toBe(tx.signature);
    // The finalized blockhash stays good at every commitment.
    const older = await slow.ledger.getLatestBlockhash('finalized');
    expect(await finalized('isBlockhashValid', [older.blockhash, { commitment: 'finalized' }])).toBe(true);
    expect((await slow.rpc.isBlockhashValid(older.blockhash as never, { commitment: 'processed' }).send()).value).toBe(true);
  });
});
