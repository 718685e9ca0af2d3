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
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
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
    const signature = await rpc
      .sendTransaction(Buffer.from(tx.wire).toString('base64') as Base64EncodedWireTransaction, { encoding: 'base64' })
      .send();
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

    const b = await buildTransaction(lifetime, payer, [transfer(200n * SOL)]);
    const sig = await rpc
      .sendTransaction(Buffer.from(b.wire).toString('base64') as Base64EncodedWireTransaction, { encoding: 'base64', skipPreflight: true })
      .send();
    expect(sig).toBe(b.signature);
    const [status] = (await rpc.getSignatureStatuses([sig]).send()).value;
    expect(bigintsToNumbers(status!.err)).toEqual({ InstructionError: [0, { Custom: 1 }] });
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
});

describe('registerLedgerJsonRpc over raw HTTP', () => {
  test('JSON-RPC 2.0 envelope and error codes', async () => {
    expect(await post({ jsonrpc: '2.0', id: 1, method: 'nope' })).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } });
    expect(await post('{"jsonrpc":"2.0",')).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect(await post({ id: 2, method: 'getSlot' })).toMatchObject({ id: 2, error: { code: -32600 } });
    expect(await post({ jsonrpc: '2.0', id: 3, method: 'getBalance', params: ['not-an-address'] })).toMatchObject({ id: 3, error: { code: -32602 } });
    expect(await post({ jsonrpc: '2.0', id: 4, method: 'getBlockTime', params: [10 ** 12] })).toMatchObject({ id: 4, error: { code: -32004 } });
    expect(await post([])).toMatchObject({ error: { code: -32600 } });

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
