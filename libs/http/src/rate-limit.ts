import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { ReadStore } from '@svc/read-store';
import { SharedRateCounters, type RateCount } from './rate-counters';

/** Per-minute limits per client address (spec §8); each is configuration with the spec's default. */
export interface RateLimits {
  general: number;
  signIn: number;
  acceptance: number;
  dnsCheck: number;
}

export type RateBucket = keyof RateLimits;

/**
 * The routes counted in a bucket of their own, as `<METHOD> <route pattern>` (Fastify's matched route, the
 * `/api` prefix included): sign-in, acceptance challenges and submissions, DNS checks (spec §8). Every other
 * request, unmatched ones (404) included, counts in `general`.
 */
export const RATE_LIMITED_ROUTES: Readonly<Record<string, RateBucket>> = {
  'POST /api/v1/auth/challenge': 'signIn',
  'POST /api/v1/auth/verify': 'signIn',
  'POST /api/v1/auth/reauthenticate/challenge': 'signIn',
  'POST /api/v1/auth/reauthenticate': 'signIn',
  'POST /api/v1/acceptance/challenges': 'acceptance',
  'POST /api/v1/acceptance/challenges/:challengeId/submit': 'acceptance',
  'POST /api/v1/organizations/:orgId/domains/:verificationId/check': 'dnsCheck',
};

/**
 * Which bucket a request counts against, from the route the router matched (never the raw URL, so that
 * `/api/v1/auth/%63hallenge` counts as the sign-in it is routed to). `route` is undefined for a request no
 * route matched.
 */
export function bucketOf(method: string, route: string | undefined): RateBucket {
  return (route !== undefined && RATE_LIMITED_ROUTES[`${method} ${route}`]) || 'general';
}

const WINDOW_MS = 60_000;

/** Request decoration holding the request's bucket, or {@link EXEMPT} for a route that counts its own requests. */
const RATE_TAG = Symbol('rateTag');
const EXEMPT = 'exempt';
type RateTag = RateBucket | typeof EXEMPT;

/** The three rate headers of spec §8, as names and values. */
export type RateHeaders = Record<'x-ratelimit-limit' | 'x-ratelimit-remaining' | 'x-ratelimit-reset', string>;

/** Where {@link registerRateLimits} leaves the headers function for answers written outside Fastify's hooks. */
const RATE_HEADERS = Symbol('rateHeaders');

/**
 * The rate headers for a request answered outside the limiter's hook, without counting it: the general bucket's
 * state for the client address (`request.ip` when Fastify built the request, else the socket's). Undefined before
 * {@link registerRateLimits} ran on `server`.
 */
export function rateHeadersOutsideLimiter(server: object, request: { ip?: string; raw?: IncomingMessage; socket?: { remoteAddress?: string } }): RateHeaders | undefined {
  const headers = (server as { [RATE_HEADERS]?: (ip: string) => RateHeaders })[RATE_HEADERS];
  const ip = request.ip ?? request.socket?.remoteAddress ?? request.raw?.socket?.remoteAddress ?? '';
  return headers?.(ip);
}

/**
 * Registers the rate limiter on every request, matched or not (fixed one-minute windows per client address and
 * bucket, counted by {@link SharedRateCounters} in the read store so that every API replica spends one budget).
 * The client address is Fastify's `request.ip`, which honours the server's `trustProxy` setting (`TRUST_PROXY`):
 * behind a trusted proxy it is taken from `x-forwarded-for`.
 * Every response carries `x-ratelimit-limit`, `x-ratelimit-remaining`, `x-ratelimit-reset` (seconds, spec §8):
 * set by the limiter for the requests it counts, and for answers given before it runs (a CORS preflight, a body
 * refused by its content type, a URL the router cannot read) from the general bucket's state, without counting them.
 * A limited request gets 429 `rate_limited` with `retry-after` (seconds). `exemptRoutes` are left to count their own
 * requests (they still carry the general bucket's headers, uncounted).
 * @returns the counters (stopped when the server closes).
 */
export async function registerRateLimits(
  app: FastifyInstance,
  limits: RateLimits,
  store: ReadStore,
  options: {
    syncIntervalMs?: number;
    /** Routes (as Fastify matched them) that count their requests themselves: the ledger's `/rpc`, per call. */
    exemptRoutes?: readonly string[];
  } = {},
): Promise<SharedRateCounters> {
  const counters = new SharedRateCounters(store, { syncIntervalMs: options.syncIntervalMs });
  const exempt = new Set(options.exemptRoutes ?? []);
  // The matched route is read once per request (Fastify builds a new `routeOptions` object on every read), by the
  // first of the hooks below that needs it; the limiter's options and the headers hook read the tag.
  app.decorateRequest(RATE_TAG, null);
  const tagOf = (req: FastifyRequest): RateTag => {
    const tagged = req as FastifyRequest & { [RATE_TAG]: RateTag | null };
    if (tagged[RATE_TAG] !== null) return tagged[RATE_TAG];
    const url = req.routeOptions.url;
    const tag: RateTag = url !== undefined && exempt.has(url) ? EXEMPT : bucketOf(req.method, url);
    tagged[RATE_TAG] = tag;
    return tag;
  };
  const bucketFor = (req: FastifyRequest): RateBucket => {
    const tag = tagOf(req);
    return tag === EXEMPT ? 'general' : tag;
  };
  /** The store interface of @fastify/rate-limit, answered by the shared counters. */
  class SharedStore {
    incr(key: string, callback: (err: Error | null, result?: RateCount) => void, timeWindow: number, max: number): void {
      counters.incr(key, timeWindow, max, callback);
    }
    child(): SharedStore {
      return this;
    }
  }
  await app.register(rateLimit, {
    // Applied by the hook below to every request, including those no route matches.
    global: false,
    store: SharedStore as never,
    timeWindow: WINDOW_MS,
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
  const limit = app.rateLimit();
  if (exempt.size === 0) app.addHook('onRequest', limit);
  else {
    app.addHook('onRequest', function (this: FastifyInstance, request, reply, done) {
      if (tagOf(request) === EXEMPT) return done();
      return (limit as (this: FastifyInstance, req: FastifyRequest, rep: typeof reply, cb: typeof done) => void).call(this, request, reply, done);
    });
  }
  const outside = (ip: string): RateHeaders => {
    const { current, ttl } = counters.peek(`general|${ip}`, WINDOW_MS);
    return {
      'x-ratelimit-limit': String(limits.general),
      'x-ratelimit-remaining': String(Math.max(0, limits.general - current)),
      'x-ratelimit-reset': String(Math.ceil(ttl / 1000)),
    };
  };
  Object.defineProperty(app, RATE_HEADERS, { value: outside });
  app.addHook('onSend', (request, reply, payload, done) => {
    // An exempt route (the ledger's /rpc) counts against a budget of its own: the general bucket's figures would mislead.
    if (!reply.hasHeader('x-ratelimit-limit') && tagOf(request) !== EXEMPT) void reply.headers(outside(request.ip));
    done(null, payload);
  });
  counters.start();
  app.addHook('onClose', async () => counters.stop());
  return counters;
}
