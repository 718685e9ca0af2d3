import { SharedRateCounters } from '@svc/http';
import { startTestService, type TestService } from './support/test-service';

/**
 * Rate limits of spec §8 over real HTTP: buckets chosen from the matched route, rate headers on every answer
 * (unmatched routes and answers given before the limiter included), and one budget shared by two API replicas on one data directory
 * (docs/api.md "Errors and limits").
 */
describe('rate limits by matched route', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { RATE_LIMIT_GENERAL_PER_MINUTE: '50', RATE_LIMIT_SIGNIN_PER_MINUTE: '3', RATE_LIMIT_ACCEPTANCE_PER_MINUTE: '4' } });
  });
  afterAll(() => service.destroy());

  const post = (path: string) => fetch(`${service.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

  it('counts a percent-encoded sign-in path as the sign-in it is routed to', async () => {
    const answers = [await post('/api/v1/auth/challenge'), await post('/api/v1/auth/%63hallenge'), await post('/api/v1/auth/%63hallenge'), await post('/api/v1/auth/%63hallenge')];
    expect(answers.map((r) => r.status)).toEqual([400, 400, 400, 429]);
    expect(answers.map((r) => r.headers.get('x-ratelimit-limit'))).toEqual(['3', '3', '3', '3']);
    expect(answers.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
    expect(((await answers[3].json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(Number(answers[3].headers.get('retry-after'))).toBeGreaterThan(0);
    // The acceptance bucket is its own, whatever the spelling of the path.
    const submit = await post('/api/v1/acceptance/challenges/%30%30/submit');
    expect(submit.headers.get('x-ratelimit-limit')).toBe('4');
  });

  it('puts the rate headers on 404 answers and counts them in the general bucket', async () => {
    const first = await fetch(`${service.baseUrl}/api/v1/no-such-route`);
    expect(first.status).toBe(404);
    expect(((await first.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect(first.headers.get('x-ratelimit-limit')).toBe('50');
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    const second = await fetch(`${service.baseUrl}/nowhere/at/all`);
    expect(second.status).toBe(404);
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
    expect(Number(second.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
  });

  it('puts the rate headers on answers given before the limiter runs (preflight, 415, 414, an unreadable URL), without counting them', async () => {
    const before = Number((await fetch(`${service.baseUrl}/api/health`)).headers.get('x-ratelimit-remaining'));
    const answers = [
      await fetch(`${service.baseUrl}/api/v1/network`, { method: 'OPTIONS', headers: { origin: 'https://shop.example.com', 'access-control-request-method': 'GET' } }),
      await fetch(`${service.baseUrl}/api/v1/acceptance-sessions`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }),
      await fetch(`${service.baseUrl}/api/v1/public/content/${'a'.repeat(250)}`),
      await fetch(`${service.baseUrl}/api/v1/public/organizations/%E0%A4%A`),
    ];
    expect(answers.map((r) => r.status)).toEqual([204, 415, 414, 400]);
    for (const answer of answers) {
      expect([answer.status, answer.headers.get('x-ratelimit-limit'), answer.headers.get('x-ratelimit-remaining')]).toEqual([answer.status, '50', String(before)]);
      expect(Number(answer.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    }
    expect(Number((await fetch(`${service.baseUrl}/api/health`)).headers.get('x-ratelimit-remaining'))).toBe(before - 1);
  });
});

describe('rate limits shared by two API replicas on one data directory', () => {
  const LIMIT = 10;
  // The replica's own ledger calls to the first service come from loopback too: the test's client is another address.
  const CLIENT = '198.51.100.7';
  const env = { RATE_LIMIT_GENERAL_PER_MINUTE: String(LIMIT), TRUST_PROXY: '127.0.0.1' };
  let first: TestService;
  let second: TestService;

  beforeAll(async () => {
    first = await startTestService({ env });
    // A replica beside the first: same data directory (so the same read store), the first's ledger, no projections.
    second = await startTestService({ dataDir: first.dataDir, env: { ...env, LEDGER_RPC_URL: first.rpcUrl, RUN_PROJECTIONS: 'false' } });
  });
  afterAll(async () => {
    await second?.stop();
    await first?.destroy();
  });

  it('spends one budget: the two together admit the limit (plus at most the documented slack), then both refuse', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 2 * LIMIT; i++) {
      const target = i % 2 === 0 ? first : second;
      statuses.push((await fetch(`${target.baseUrl}/api/health`, { headers: { 'x-forwarded-for': CLIENT } })).status);
    }
    const admitted = statuses.filter((s) => s === 200).length;
    // Without sharing each replica would admit LIMIT (2 × LIMIT in all).
    expect(admitted).toBeGreaterThanOrEqual(LIMIT);
    expect(admitted).toBeLessThanOrEqual(LIMIT + SharedRateCounters.slack(LIMIT));
    expect(statuses.slice(-2)).toEqual([429, 429]);
  });
});
