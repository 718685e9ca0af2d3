import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { ErrorCode } from '@svc/domain';

/**
 * Request bodies at the edge (spec §4 fields, §7 errors, §8 limits; docs/api.md "Input limits and content
 * types"): JSON only, a body limit per route, and a bound on nesting depth checked before `JSON.parse`.
 */

/** A request refused before it reaches a controller; carries its status (400, 413, 415…) and spec code. */
export class EdgeError extends Error {
  override readonly name = 'EdgeError';
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Default body limit of every route (bytes). */
export const DEFAULT_BODY_LIMIT = 64 * 1024;
/**
 * Body limit of routes that carry a draft's source (bytes): a 2,000,000-character source (spec §8) however a JSON
 * encoder writes it (at most 12 bytes a character: an astral one escaped as two `\uXXXX`), plus the default
 * limit for the other fields.
 */
export const DRAFT_BODY_LIMIT = 2_000_000 * 12 + DEFAULT_BODY_LIMIT;
/** Deepest nesting of arrays and objects a JSON body may have (the API's bodies need 4). */
export const MAX_JSON_DEPTH = 32;

/** A route that needs a larger body than the default. */
export interface LargeBodyRoute {
  method: string;
  /** Fastify route URL with parameters as `:name`, e.g. `/api/v1/drafts/:draftId`. */
  url: RegExp;
  bodyLimit: number;
  /**
   * Runs before the body is read (a route `onRequest` hook); when it rejects, the request is refused with its error
   * (an EdgeError or DomainError), so that nobody it refuses makes the service receive and parse a large body.
   */
  admit?: (request: FastifyRequest) => Promise<void>;
}

/** The draft routes (spec §4.10 `POST /v1/documents/{documentId}/drafts`, `PATCH /v1/drafts/{draftId}`). */
export const DRAFT_ROUTES: readonly LargeBodyRoute[] = [
  { method: 'POST', url: /^\/api\/v1\/documents\/:[^/]+\/drafts$/, bodyLimit: DRAFT_BODY_LIMIT },
  { method: 'PATCH', url: /^\/api\/v1\/drafts\/:[^/]+$/, bodyLimit: DRAFT_BODY_LIMIT },
];

/**
 * Whether the JSON text nests arrays and objects deeper than `maxDepth`. One linear pass that skips string
 * contents (and escapes within them); exact for well-formed JSON, and malformed text is refused by the
 * parser afterwards, so a parsed body never nests deeper than `maxDepth`.
 */
export function jsonNestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip to the closing quote: the next `"` not escaped by a backslash.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * Whether a `content-type` header names JSON in UTF-8: `application/json` (any case), with no charset or
 * `charset=utf-8` (optionally quoted, any case); other parameters are ignored.
 */
export function isJsonMediaType(header: string | undefined): boolean {
  if (typeof header !== 'string') return false;
  const [type, ...params] = header.split(';');
  if (type.trim().toLowerCase() !== 'application/json') return false;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return false;
  }
  return true;
}

/** Whether the request announces a body (RFC 9112 §6.3: a non-zero `content-length` or any `transfer-encoding`). */
function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The methods whose requests Fastify hands to a body parser by their content type, even with an empty body. */
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Whether the request's content is subject to the JSON-only rule: it announces a body, or it is a write that names
 * a content type (an empty body of a named type is content of that type: `text/plain` with no bytes is an empty text).
 */
function hasContent(request: FastifyRequest): boolean {
  return hasBody(request) || (request.headers['content-type'] !== undefined && BODY_METHODS.has(request.method));
}

export interface RequestBodyOptions {
  /** URL prefix of the routes that accept only JSON bodies (`/api/`); other routes keep Fastify's parsers. */
  jsonOnlyPrefix: string;
  largeBodyRoutes?: readonly LargeBodyRoute[];
  maxDepth?: number;
}

/**
 * The path of the key for which Fastify's parser refused well-formed JSON (prototype-poisoning protection: a
 * `__proto__` key, or a `constructor` key holding a `prototype`), e.g. `items[0].__proto__`; null when `text` is
 * not well-formed JSON, which is refused as malformed.
 */
function poisonedKey(text: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const find = (node: unknown, path: string): string | null => {
    if (typeof node !== 'object' || node === null) return null;
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) {
        const found = find(item, `${path}[${i}]`);
        if (found) return found;
      }
      return null;
    }
    for (const [key, child] of Object.entries(node)) {
      const here = path ? `${path}.${key}` : key;
      if (key === '__proto__' || (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype'))) return here;
      const found = find(child, here);
      if (found) return found;
    }
    return null;
  };
  return find(value, '');
}

/**
 * Installs the body rules on a Fastify instance before its routes are registered:
 * - `application/json` is parsed by Fastify's parser (prototype-poisoning protection) after a depth check:
 *   deeper than `maxDepth` → 400 `invalid_request`; malformed → 400 `invalid_request`; a `__proto__` key or a
 *   `constructor.prototype` → 400 `invalid_request` naming it (`<path>: unknown field`); an empty body is no body.
 * - Under `jsonOnlyPrefix`, a request with a body whose content type is not JSON in UTF-8 → 415 `invalid_request`,
 *   before the body is read; so is a POST, PUT, PATCH or DELETE naming such a content type without a body (the
 *   same answer whatever the type: `text/plain`, which Fastify parses, like the types it has no parser for); and so
 *   is a body with a `content-encoding` other than `identity` (gzip, deflate, br: bodies are read as sent).
 * - Routes listed in `largeBodyRoutes` get their larger limit; every other route keeps the server's `bodyLimit`
 *   (or its own). A larger body → 413 `invalid_request` (Fastify refuses it from `content-length`, unread).
 * @throws Error from Fastify when called after the instance started.
 */
export function registerRequestBodies(fastify: FastifyInstance, options: RequestBodyOptions): void {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.length === 0) return done(null, undefined);
    if (jsonNestsDeeperThan(text, maxDepth)) {
      return done(new EdgeError(400, 'invalid_request', `body: JSON nested deeper than ${maxDepth} levels`), undefined);
    }
    parseJson(request, text, (err: Error | null, value?: unknown) => {
      if (!err) return done(null, value);
      const key = poisonedKey(text);
      done(key ? new EdgeError(400, 'invalid_request', `${key}: unknown field`) : err, undefined);
    });
  });

  const large = options.largeBodyRoutes ?? [];
  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (route.bodyLimit !== undefined) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const match = large.find((r) => methods.includes(r.method) && r.url.test(route.url));
    if (!match) return;
    route.bodyLimit = match.bodyLimit;
    const admit = match.admit;
    if (admit === undefined) return;
    route.onRequest = route.onRequest === undefined ? [admit] : [...(Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]), admit];
  });

  // A callback hook, not an async one: it runs on every request, and a bodyless one (every GET) costs no promise.
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (!request.url.startsWith(options.jsonOnlyPrefix) || !hasContent(request)) return done();
    if (!isJsonMediaType(request.headers['content-type'])) {
      return done(new EdgeError(415, 'invalid_request', 'content-type: request bodies must be application/json (UTF-8)'));
    }
    // Bodies are read as sent: a compressed one would be parsed as its compressed bytes (RFC 9110 §8.4.1: 415).
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      return done(new EdgeError(415, 'invalid_request', 'content-encoding: request bodies must not be compressed (identity only)'));
    }
    done();
  });
}
