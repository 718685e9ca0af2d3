/**
 * The embedded ledger's JSON-RPC counts its own calls (RATE_LIMIT_RPC_CALLS_PER_MINUTE, each call of a batch), not
 * the general budget of HTTP requests: a client (a wallet, the service's own worker) that spent its general budget
 * can still read the ledger, and a refused call is answered as JSON-RPC clients expect a rate limit: HTTP 429 with
 * `retry-after` and error 429 (docs/api.md "Service endpoints", libs/ledger/README.md).
 */
import { startTestService, type TestService } from './support/test-service';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ env: { RATE_LIMIT_GENERAL_PER_MINUTE: '5', RATE_LIMIT_RPC_CALLS_PER_MINUTE: '3' } });
});

afterAll(async () => {
  await service?.destroy();
});

const getSlot = (id: number) =>
  fetch(service.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'getSlot' }) });

describe('rate limits of /rpc', () => {
  it('are its own: the general budget spent, calls are still answered up to their own budget, then refused with 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await fetch(`${service.baseUrl}/api/v1/network`)).status);
    expect(statuses.slice(-1)).toEqual([429]);

    for (let id = 1; id <= 3; id++) {
      const res = await getSlot(id);
      expect({ id, status: res.status }).toEqual({ id, status: 200 });
      // Not the general bucket's figures: /rpc has a budget of its own.
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id, result: expect.any(Number) });
    }
    const refused = await getSlot(4);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', error: { code: 429, data: { retryAfterSeconds: expect.any(Number) } } });
  });
});
