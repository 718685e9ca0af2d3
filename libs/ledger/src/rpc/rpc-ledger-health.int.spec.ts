/**
 * `RpcLedger.health()` against endpoints that fail in the ways a readiness probe meets: nothing listening, an HTTP
 * refusal (a spent budget, a wrong key), and a node that answers `getHealth` with Solana's "behind" error. The message
 * must say which, and must never repeat the endpoint's URL (providers put API keys in it).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RpcLedger } from './rpc-ledger';

type Answer = { status: number; body: unknown };

function endpoint(answer: (method: string, id: unknown) => Answer): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method: string; id: unknown };
      const { status, body } = answer(call.method, call.id);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/?api-key=SECRET-KEY` })));
}

describe('RpcLedger.health', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((s) => (s.closeAllConnections(), s.close())));

  const healthAt = async (url: string, requestTimeoutMs?: number) => {
    const ledger = new RpcLedger({ url, requestTimeoutMs });
    try {
      return await ledger.health();
    } finally {
      await ledger.close();
    }
  };

  it('is up when the node answers "ok"', async () => {
    const { server, url } = await endpoint((_m, id) => ({ status: 200, body: { jsonrpc: '2.0', id, result: 'ok' } }));
    servers.push(server);
    expect(await healthAt(url)).toEqual({ up: true });
  });

  it('says the node is behind, in its own words', async () => {
    const { server, url } = await endpoint((_m, id) => ({
      status: 200,
      body: { jsonrpc: '2.0', id, error: { code: -32005, message: 'Node is behind by 42 slots', data: { numSlotsBehind: 42 } } },
    }));
    servers.push(server);
    const health = await healthAt(url);
    expect(health).toMatchObject({ up: false, code: 'Unavailable' });
    expect(health.up === false && health.message).toMatch(/behind by 42 slots/);
    expect(JSON.stringify(health)).not.toContain('SECRET-KEY');
  });

  it('names an HTTP refusal by its status', async () => {
    const { server, url } = await endpoint(() => ({ status: 429, body: { jsonrpc: '2.0', id: null, error: { code: 429, message: 'Too many requests' } } }));
    servers.push(server);
    const health = await healthAt(url);
    expect(health).toMatchObject({ up: false, code: 'Unavailable' });
    expect(health.up === false && health.message).toMatch(/429/);
    expect(JSON.stringify(health)).not.toContain('SECRET-KEY');
  });

  it('gives up on a node that accepts the request and never answers, saying so', async () => {
    const held: import('node:http').ServerResponse[] = [];
    const server = createServer((_req, res) => void held.push(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/?api-key=SECRET-KEY`;
    const health = await healthAt(url, 300);
    expect(health).toEqual({ up: false, code: 'Unavailable', message: 'ledger RPC sent no answer within 0.3 s' });
    expect(held.length).toBe(1);
    const ledger = new RpcLedger({ url, requestTimeoutMs: 300 });
    await expect(ledger.getSlot()).rejects.toMatchObject({ code: 'Unavailable', message: 'ledger RPC sent no answer within 0.3 s' });
    // Closing the adapter while a request waits is still "closed", not a timeout.
    const pending = new RpcLedger({ url, requestTimeoutMs: 60_000 });
    const slot = pending.getSlot();
    await new Promise((r) => setTimeout(r, 50));
    await pending.close();
    await expect(slot).rejects.toMatchObject({ code: 'Unavailable', message: 'RpcLedger closed' });
    held.forEach((res) => res.destroy());
  });

  it('refuses a getTransaction answer whose slot, block time or fee is not an integer, or without its status, rather than coercing it', async () => {
    const good = { slot: 5, blockTime: 1_795_947_908, meta: { fee: 5000, err: null, logMessages: [], loadedAddresses: { writable: [], readonly: [] } }, transaction: ['AQID', 'base64'], version: 'legacy' };
    const signature = '1'.repeat(64);
    for (const [change, problem] of [
      [{}, null],
      [{ blockTime: '1795947908' }, 'blockTime 1795947908 is neither null nor an integer'],
      [{ slot: '5' }, 'slot 5 is not a non-negative integer'],
      [{ meta: { ...good.meta, fee: '10000' } }, 'fee 10000 is not a non-negative integer'],
      [{ meta: null }, 'the transaction status (meta) is missing'],
      [{ transaction: ['not base64!', 'base64'] }, 'the transaction is not base64 bytes'],
    ] as const) {
      const { server, url } = await endpoint((method, id) => ({
        status: 200,
        body: { jsonrpc: '2.0', id, result: method === 'getTransaction' ? { ...good, ...change } : { context: { slot: 5 }, value: [null] } },
      }));
      servers.push(server);
      const ledger = new RpcLedger({ url });
      const read = await ledger.getTransaction(signature as never).then(
        (tx) => (tx === null ? 'null' : `slot ${tx.slot}, fee ${tx.fee}`),
        (e: Error & { code?: string }) => `${e.code}: ${e.message}`,
      );
      await ledger.close();
      expect([change, read]).toEqual([change, problem === null ? 'slot 5, fee 5000' : `RpcError: the ledger's answer to getTransaction is malformed: ${problem}`]);
    }
  });

  it('says the endpoint is unreachable when nothing listens', async () => {
    const { server, url } = await endpoint(() => ({ status: 200, body: {} }));
    await new Promise((r) => server.close(r));
    const health = await healthAt(url);
    expect(health).toMatchObject({ up: false, code: 'Unavailable' });
    expect(health.up === false && health.message).toMatch(/unreachable/);
    expect(JSON.stringify(health)).not.toContain('SECRET-KEY');
    expect(JSON.stringify(health)).not.toContain('127.0.0.1');
  });
});
