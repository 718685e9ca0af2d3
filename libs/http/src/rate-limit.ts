import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Per-minute limits per client address (spec §8); each is configuration with the spec's default. */
export interface RateLimits {
  general: number;
  signIn: number;
  acceptance: number;
}

type Bucket = keyof RateLimits;

/** Which bucket a request counts against: the stricter, specific buckets replace the general one. */
export function bucketOf(method: string, url: string): Bucket {
  if (method === 'POST') {
    const path = url.split('?', 1)[0];
    if (path === '/api/v1/auth/challenge' || path === '/api/v1/auth/verify') return 'signIn';
    if (path === '/api/v1/acceptance/challenges' || /^\/api\/v1\/acceptance\/challenges\/[^/]+\/submit$/.test(path)) return 'acceptance';
  }
  return 'general';
}

/**
 * Registers the rate limiter on every route (fixed one-minute windows per client address and bucket).
 * The client address is Fastify's `request.ip`, which honours the server's `trustProxy` setting
 * (`TRUST_PROXY`): behind a trusted proxy it is taken from `x-forwarded-for`.
 * Every response carries `x-ratelimit-limit`, `x-ratelimit-remaining`, `x-ratelimit-reset` (seconds);
 * a limited request gets 429 `rate_limited` with `retry-after` (seconds).
 */
export async function registerRateLimits(app: FastifyInstance, limits: RateLimits): Promise<void> {
  const bucketFor = (req: FastifyRequest) => bucketOf(req.method, req.url);
  await app.register(rateLimit, {
    global: true,
    timeWindow: 60_000,
    max: (req) => limits[bucketFor(req)],
    keyGenerator: (req) => `${bucketFor(req)}|${req.ip}`,
    addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
    addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
    errorResponseBuilder: (_req, context) => {
      const err = new Error(`rate limit of ${context.max} requests per minute exceeded; retry in ${Math.ceil(context.ttl / 1000)} s`) as Error & {
        statusCode: number;
        code: string;
      };
      err.statusCode = 429;
      err.code = 'rate_limited';
      return err;
    },
  });
}
