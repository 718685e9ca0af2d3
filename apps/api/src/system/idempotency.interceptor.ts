import { createHash, randomUUID } from 'node:crypto';
import { CallHandler, ExecutionContext, Inject, Injectable, Logger, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import canonicalize from 'canonicalize';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { from, mergeMap, of, type Observable } from 'rxjs';
import type { Sealer } from '@svc/application';
import { DomainError } from '@svc/domain';
import { callerOf, callerScope } from '../auth/caller';
import { IdempotencyStore, type IdempotencyClaim } from './idempotency.store';

/** Request header carrying the key (spec §8 "Idempotency scope"). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Response header marking a replayed response (spec §8). */
export const REPLAYED_HEADER = 'idempotent-replayed';

/** 1 to 255 printable ASCII characters (spec §8), space included. */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
/** Response headers stored and replayed with the body: those a client reads to use the answer. */
const REPLAYED_HEADERS = ['content-type', 'location', 'cache-control', 'etag', 'last-modified', 'x-batch-transaction'];

const CLAIM = Symbol('idempotencyClaim');
/** How a route's one-time secrets are kept in its stored response. */
type SecretFields = { dropped: readonly string[]; sealed: readonly string[] };
type StoredClaim = { claim: IdempotencyClaim; secrets: SecretFields };
type WithClaim = { [CLAIM]?: StoredClaim };

const ONE_TIME_SECRET = 'svc:one-time-secret';
const REPLAYED_SECRET = 'svc:replayed-secret';
const SESSION_STATE = 'svc:session-state';
const NO_SECRETS: SecretFields = { dropped: [], sealed: [] };

/** Purpose of the key that seals replayed secrets (derived from the deployment's secrets key). */
export const REPLAY_SEALING_PURPOSE = 'svc idempotent replay secrets v1';
/** Injection token of the {@link Sealer} of replayed secrets (provided by the idempotency module). */
export const REPLAY_SEALER = Symbol('REPLAY_SEALER');

/**
 * Marks a route bound to the calling session itself (logout, a re-authentication and its challenge): a well-formed
 * `Idempotency-Key` is not stored or replayed there and the request always runs, because stored answers are shared
 * by every session of a wallet, and a replay would tell one session that it was signed out, or freshly signed, when
 * only another one was, or hand it a nonce issued to another session. Running them again is harmless: the first two
 * are idempotent by nature, and a challenge issued again only issues another nonce.
 */
export const SessionStateChange = () => SetMetadata(SESSION_STATE, true);

/**
 * Marks a route whose answer carries a secret that may be stored only as a hash (`fields`: top-level keys of the
 * body; an API key, spec §5 rule 1). Its stored idempotent response keeps those keys as null: a replay answers the
 * same body without the secret (docs/api.md "Idempotency").
 */
export const OneTimeSecret = (...fields: string[]) => SetMetadata(ONE_TIME_SECRET, fields);

/**
 * Marks a route whose answer carries a secret shown once that a lost answer must not lose (`fields`: top-level keys
 * of the body; an acceptance session token, a webhook signing secret). Its stored idempotent response holds each
 * sealed (AES-256-GCM under a key of its own derived from the deployment's secrets key, bound to the stored row),
 * and a replay answers it again, opened; the row is forgotten with the rest after 24 hours.
 */
export const ReplayedSecret = (...fields: string[]) => SetMetadata(REPLAYED_SECRET, fields);

/** Marks `request` as running under `claim`: its response is stored (or the key released) as it is sent. */
export function attachClaim(request: object, claim: IdempotencyClaim, secrets: SecretFields = NO_SECRETS): void {
  (request as WithClaim)[CLAIM] = { claim, secrets };
}

/**
 * The id of what `request` creates (`purpose` names it, e.g. `webhook`): for a request running under an
 * Idempotency-Key, a UUID named by its claimed run (version 8, the first 16 bytes of SHA-256 over purpose and run
 * with the version and variant bits set: RFC 9562 §5.8 and its Appendix B.2), the same for a retry that takes the
 * key over from a run whose process died, so the retry finds what that run recorded; otherwise a random UUID.
 */
export function createdIdOf(request: object, purpose: string): string {
  const run = (request as WithClaim)[CLAIM]?.claim.run;
  if (run === undefined) return randomUUID();
  const bytes = createHash('sha256').update(`${purpose}\0${run}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A JSON object body as a record, or null for any other body. */
function jsonObject(body: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The body to store: a JSON object body's dropped secrets set to null and its replayed ones sealed for the row
 * `rowId` (a body that is not a JSON object is kept as is).
 */
function storedBody(body: string, secrets: SecretFields, sealer: Sealer, rowId: string): string {
  if (secrets.dropped.length === 0 && secrets.sealed.length === 0) return body;
  const record = jsonObject(body);
  if (record === null) return body;
  for (const field of secrets.dropped) if (field in record) record[field] = null;
  for (const field of secrets.sealed) if (typeof record[field] === 'string') record[field] = sealer.seal(record[field], rowId);
  return JSON.stringify(record);
}

/** The stored body as it is answered again: its sealed secrets opened (null where one cannot be opened). */
function replayedBody(body: string, sealed: readonly string[], sealer: Sealer, rowId: string): string {
  if (sealed.length === 0) return body;
  const record = jsonObject(body);
  if (record === null) return body;
  for (const field of sealed) {
    const value = record[field];
    if (typeof value !== 'string') continue;
    try {
      record[field] = sealer.open(value, rowId);
    } catch {
      record[field] = null;
    }
  }
  return JSON.stringify(record);
}

/**
 * The request's identity for its key: SHA-256 of the canonical JSON of method, matched route, path parameters (UUIDs
 * in lower case), query and body (the body as parsed JSON, so key order and spacing do not matter; none, `null` and
 * `{}` alike).
 */
export function requestFingerprint(request: FastifyRequest): string {
  const text = canonicalize({
    method: request.method,
    route: request.routeOptions.url ?? request.url,
    params: sameResourceParams(request.params),
    query: request.query ?? {},
    body: sameBody(request.body),
  });
  return createHash('sha256').update(text ?? '').digest('hex');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Path parameters as they name resources: a UUID in either case names the same one (docs/api.md "Errors and limits"). */
function sameResourceParams(params: unknown): unknown {
  if (typeof params !== 'object' || params === null) return {};
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) out[name] = typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : value;
  return out;
}

/** No body, `null` and `{}` are the same request (an absent body is validated as `{}`: docs/api.md "Input limits"). */
function sameBody(body: unknown): unknown {
  if (body === undefined || body === null) return null;
  if (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0) return null;
  return body;
}

/**
 * Whether the request carried the header more than once (Node joins repeated headers with `, `, which would
 * otherwise read as one key made of both).
 */
function repeatedKeyHeader(request: FastifyRequest): boolean {
  let seen = 0;
  const raw = request.raw.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === IDEMPOTENCY_HEADER && ++seen > 1) return true;
  return false;
}

/**
 * Whether an answer depends on the caller's state when it was given rather than on the request, and so is not
 * stored: `403 reauthentication_required` (the signature was not fresh; the documented remedy is to re-authenticate
 * and retry, which a stored refusal would defeat for 24 hours).
 */
function dependsOnCallerState(status: number, body: string): boolean {
  if (status !== 403) return false;
  try {
    return (JSON.parse(body) as { error?: { code?: unknown } }).error?.code === 'reauthentication_required';
  } catch {
    return false;
  }
}

/**
 * `Idempotency-Key` on authenticated writes (spec §7 rule 4, §8; docs/api.md "Idempotency"): runs after the
 * guards, so only a request whose guard set a caller is concerned (public routes ignore the header). The first
 * request with a key runs and its response is stored by {@link registerIdempotencyHooks}; a later one with the
 * same key and the same request gets that response again with `idempotent-replayed: true`; one sent while the
 * first runs waits for it.
 * @throws DomainError invalid_idempotency_key (400) for a key that is not 1 to 255 printable ASCII characters, or a
 *   header sent more than once;
 *   idempotency_key_reused (422) for a key used with another request.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly reflector: Reflector,
    @Inject(REPLAY_SEALER) private readonly sealer: Sealer,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!WRITES.has(request.method)) return next.handle();
    const key = request.headers[IDEMPOTENCY_HEADER];
    const caller = callerOf(request);
    if (key === undefined || caller === undefined) return next.handle();
    if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
      throw new DomainError('invalid_idempotency_key', 'Idempotency-Key: must be 1 to 255 printable ASCII characters');
    }
    if (key.includes(',') && repeatedKeyHeader(request)) throw new DomainError('invalid_idempotency_key', 'Idempotency-Key: send the header once');
    if (this.reflector.get<boolean | undefined>(SESSION_STATE, context.getHandler())) return next.handle();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const handler = context.getHandler();
    const secrets: SecretFields = {
      dropped: this.reflector.get<string[] | undefined>(ONE_TIME_SECRET, handler) ?? [],
      sealed: this.reflector.get<string[] | undefined>(REPLAYED_SECRET, handler) ?? [],
    };
    return from(this.store.begin(callerScope(caller), key, requestFingerprint(request))).pipe(
      mergeMap((outcome) => {
        if (outcome.kind === 'execute') {
          attachClaim(request, outcome.claim, secrets);
          return next.handle();
        }
        const { status, headers, body } = outcome.response;
        void reply.status(status);
        for (const [name, value] of Object.entries(headers)) void reply.header(name, value);
        void reply.header(REPLAYED_HEADER, 'true');
        return of(replayedBody(body, secrets.sealed, this.sealer, outcome.rowId));
      }),
    );
  }
}

/**
 * Stores the response of a request that claimed a key, as it is sent (status, the headers of `REPLAYED_HEADERS`,
 * the body's text), before it leaves; a 5xx, a `403 reauthentication_required`, or a body that is not text, releases
 * the key instead. A response
 * that ends without passing `onSend` releases it too. A request whose client went away still runs to its end
 * and keeps the key meanwhile, so a retry waits for it rather than running it twice.
 */
export function registerIdempotencyHooks(app: FastifyInstance, store: IdempotencyStore, sealer: Sealer): void {
  const logger = new Logger('Idempotency');
  // Most requests carry no claim: the hooks then answer synchronously, without a promise, and leave the request's
  // shape alone (the claim is cleared, never deleted).
  const take = (request: FastifyRequest): StoredClaim | undefined => {
    const held = request as WithClaim;
    const claim = held[CLAIM];
    if (claim !== undefined) held[CLAIM] = undefined;
    return claim;
  };
  const save = async ({ claim, secrets }: StoredClaim, reply: FastifyReply, payload: unknown): Promise<void> => {
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
    try {
      if (reply.statusCode >= 500 || body === undefined || dependsOnCallerState(reply.statusCode, body)) {
        await store.release(claim);
      } else {
        const headers: Record<string, string> = {};
        for (const name of REPLAYED_HEADERS) {
          const value = reply.getHeader(name);
          if (value !== undefined) headers[name] = String(value);
        }
        await store.complete(claim, { status: reply.statusCode, headers, body: storedBody(body, secrets, sealer, claim.id) });
      }
    } catch (err) {
      logger.error(`stored response of an idempotent request not saved: ${(err as Error).message}`);
    }
  };
  app.addHook('onSend', (request, reply, payload, done) => {
    const taken = take(request);
    if (taken === undefined) return done(null, payload);
    void save(taken, reply, payload).then(() => done(null, payload));
  });
  app.addHook('onResponse', (request, _reply, done) => {
    const claim = take(request)?.claim;
    if (claim === undefined) return done();
    void store
      .release(claim)
      .catch((err: Error) => logger.error(`idempotency key not released: ${err.message}`))
      .then(() => done());
  });
}
