/**
 * Limits of the JSON-RPC endpoint over real HTTP: airdrop caps (per request, per recipient and
 * client per minute), batch size, and every call of a batch counted by `countCalls`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { generateKeyPairSigner } from '@solana/kit';
import { EmbeddedLedger } from '../embedded/embedded-ledger';
import { LedgerError, LedgerErrorCode } from '../ledger-error';
import { registerLedgerJsonRpc, type LedgerJsonRpcOptions } from './json-rpc-server';
import { RpcLedger } from './rpc-ledger';
import { callsPerMinutePerClient } from './rpc-limits';

jest.setTimeout(60_000);

const SOL = 1_000_000_000n;
let dataDir: string;
let ledger: EmbeddedLedger;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ledger-rpc-limits-'));
  ledger = await EmbeddedLedger.open({ dataDir, slotMs: 20, synchronous: 'normal' });
});

afterAll(async () => {
  for (const app of apps) await app.close();
  await ledger.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function serve(options: Omit<LedgerJsonRpcOptions, 'path'>): Promise<string> {
  const app = Fastify();
  apps.push(app);
  registerLedgerJsonRpc(app, ledger, { path: '/rpc', ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/rpc`;
}

async function post(url: string, body: unknown): Promise<{ status: number; retryAfter: string | null; json: unknown }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), json: await res.json() };
}

const airdrop = (id: number, to: string, lamports: number) => ({ jsonrpc: '2.0', id, method: 'requestAirdrop', params: [to, lamports] });

describe('airdrop caps', () => {
  test('over the per-request maximum: -32602, nothing credited; by default 2 SOL is the maximum', async () => {
    const url = await serve({});
    const who = await generateKeyPairSigner();
    const over = await post(url, airdrop(1, who.address, Number(2n * SOL + 1n)));
    expect(over.status).toBe(200);
    expect(over.json).toMatchObject({ id: 1, error: { code: -32602, message: expect.stringContaining('2000000000') } });
    expect(await ledger.getBalance(who.address)).toBe(0n);
    const ok = await post(url, airdrop(2, who.address, Number(2n * SOL)));
    expect(ok.json).toMatchObject({ id: 2, result: expect.any(String) });
    expect(await ledger.getBalance(who.address)).toBe(2n * SOL);
  });

  test('per recipient and per client address per minute: HTTP and JSON-RPC 429 with retry-after; RpcLedger sees Unavailable with rpcCode 429', async () => {
    const url = await serve({ airdrop: { perMinute: 2 } });
    const alice = await generateKeyPairSigner();
    const bob = await generateKeyPairSigner();
    expect((await post(url, airdrop(1, alice.address, 1_000_000_000))).json).toMatchObject({ result: expect.any(String) });
    expect((await post(url, airdrop(2, alice.address, 1_000_000_000))).json).toMatchObject({ result: expect.any(String) });
    const third = await post(url, airdrop(3, alice.address, 1_000_000_000));
    expect(third.status).toBe(429);
    expect(Number(third.retryAfter)).toBeGreaterThan(0);
    expect(third.json).toMatchObject({ id: 3, error: { code: 429, data: { retryAfterSeconds: expect.any(Number) } } });
    // Inside a batch the refusal is that call's error; the other calls run.
    const batch = await post(url, [airdrop(4, alice.address, 1_000_000_000), { jsonrpc: '2.0', id: 5, method: 'getSlot' }]);
    expect(batch.status).toBe(200);
    expect(batch.json).toMatchObject([{ id: 4, error: { code: 429 } }, { id: 5, result: expect.any(Number) }]);
    expect(await ledger.getBalance(alice.address)).toBe(2n * SOL);
    // Another recipient from the same client address: the client's budget is spent too.
    const rpc = new RpcLedger({ url });
    const refused = await rpc.requestAirdrop(bob.address, SOL).catch((e: unknown) => e);
    await rpc.close();
    expect(refused).toBeInstanceOf(LedgerError);
    expect((refused as LedgerError).code).toBe(LedgerErrorCode.Unavailable);
    expect((refused as LedgerError).rpcCode).toBe(429);
    expect(await ledger.getBalance(bob.address)).toBe(0n);
  });

  test('airdrop: false answers -32601', async () => {
    const url = await serve({ airdrop: false });
    const who = await generateKeyPairSigner();
    expect((await post(url, airdrop(1, who.address, 1_000_000))).json).toMatchObject({ error: { code: -32601 } });
  });
});

describe('batches', () => {
  test('a batch over maxBatch is refused whole with -32600', async () => {
    const url = await serve({ maxBatch: 3 });
    const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'getSlot' }));
    expect(((await post(url, calls(3))).json as unknown[]).length).toBe(3);
    const over = await post(url, calls(4));
    expect(over.status).toBe(200);
    expect(over.json).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('4') } });
  });

  test('countCalls counts every call of a batch; a refused request gets HTTP 429, retry-after, and runs nothing', async () => {
    const seen: number[] = [];
    const limit = callsPerMinutePerClient(5);
    const url = await serve({ countCalls: (request, calls) => (seen.push(calls), limit(request, calls)) });
    const who = await generateKeyPairSigner();
    const three = [1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'getSlot' }));
    expect((await post(url, three)).status).toBe(200);
    const refused = await post(url, [...three.slice(0, 2), airdrop(9, who.address, 1_000_000_000)]);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(refused.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: 429 } });
    expect(await ledger.getBalance(who.address)).toBe(0n);
    // Each request counts one before its body is read (the refused batch too), the rest of a batch once parsed:
    // 3 + 1 spent, so one single call fits in 5 and the next does not.
    expect((await post(url, { jsonrpc: '2.0', id: 4, method: 'getSlot' })).status).toBe(200);
    expect((await post(url, { jsonrpc: '2.0', id: 5, method: 'getSlot' })).status).toBe(429);
    expect(seen).toEqual([1, 2, 1, 2, 1, 1]);
  });

  test('bodies refused unparsed spend the budget too: invalid JSON, an empty batch, another content type, a batch over the limit', async () => {
    const url = await serve({ maxBatch: 3, countCalls: callsPerMinutePerClient(4) });
    const raw = (body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const bad = await raw('{"jsonrpc": "2.0", "method": ');
    expect(bad.status).toBe(200);
    expect(await bad.json()).toMatchObject({ error: { code: -32700 } });
    expect(await (await raw('[]')).json()).toMatchObject({ error: { code: -32600 } });
    const form = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
    expect([form.status, await form.json()]).toEqual([200, expect.objectContaining({ error: expect.objectContaining({ code: -32700 }) })]);
    const calls = Array.from({ length: 4 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'getSlot' }));
    expect((await post(url, calls)).json).toMatchObject({ error: { code: -32600 } });
    const refused = await raw('not json at all');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ id: null, error: { code: 429 } });
    expect((await post(url, { jsonrpc: '2.0', id: 1, method: 'getSlot' })).status).toBe(429);
  });
});

describe('a limiter in front of the endpoint', () => {
  test('its refusal is answered as the endpoint refuses calls itself: HTTP 429, retry-after, error 429', async () => {
    const app = Fastify();
    apps.push(app);
    app.addHook('onRequest', async (_request, reply) => {
      void reply.header('retry-after', '17');
      throw Object.assign(new Error('rate limit of 300 requests per minute exceeded'), { statusCode: 429 });
    });
    registerLedgerJsonRpc(app, ledger, { path: '/rpc' });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const res = await post(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/rpc`, { jsonrpc: '2.0', id: 1, method: 'getSlot' });
    expect(res).toEqual({ status: 429, retryAfter: '17', json: { jsonrpc: '2.0', error: { code: 429, message: 'Too many requests: retry in 17 s', data: { retryAfterSeconds: 17 } }, id: null } });
  });
});
