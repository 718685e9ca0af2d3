import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from '@svc/domain';
import { ADDR, HEX64, ORG_REF, P256ID, SIG, SLUG, UUID } from './patterns';

/** Name of the error envelope's schema in `components.schemas` (spec §7). */
export const ERROR_ENVELOPE_SCHEMA = 'ErrorEnvelope';

/** The error envelope of spec §7 as an OpenAPI 3.0 schema: `{"error": {"code", "message"}}`, nothing else. */
export const ERROR_ENVELOPE = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: { code: { type: 'string', description: 'stable code of spec §7; clients branch on it' }, message: { type: 'string' } },
    },
  },
} as const;

const ENVELOPE_REF = { $ref: `#/components/schemas/${ERROR_ENVELOPE_SCHEMA}` };

/** The error envelope whose `error.code` is one of `codes`. */
function envelopeWithCodes(codes: readonly string[]) {
  return { allOf: [ENVELOPE_REF, { type: 'object', properties: { error: { type: 'object', properties: { code: { type: 'string', enum: [...codes] } } } } }] };
}

/** A JSON error response of the given codes. */
function errorResponse(codes: readonly string[], note = '') {
  return { description: `error envelope; code ${codes.join(', ')}${note}`, content: { 'application/json': { schema: envelopeWithCodes(codes) } } };
}

/**
 * Declares the error answers of a route in the OpenAPI description: one response per HTTP status of the given
 * codes (spec §7 table), each the shared error envelope with `error.code` one of the codes of that status. Use on
 * every route with the codes it can answer (docs/api.md "OpenAPI"); the answers every route shares are added by
 * {@link completeOpenApiDocument}.
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  // The media type is explicit: a route that produces another type (content bytes) still answers errors in JSON.
  return applyDecorators(...[...byStatus].map(([status, group]) => ApiResponse({ status, ...errorResponse(group) })));
}

/** A response as this module reads it. */
interface ResponseLike {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: { allOf?: { $ref?: string; properties?: { error?: { properties?: { code?: { enum?: string[] } } } } }[] } }>;
}

/** A parameter as this module reads it. */
interface ParameterLike {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Record<string, unknown>;
}

/** A request body as this module reads it. */
interface RequestBodyLike {
  required?: boolean;
  content?: Record<string, { schema?: { $ref?: string } }>;
}

/** The subset of an OpenAPI 3.0 document this module edits. */
interface OpenApiLike {
  paths: Record<string, Record<string, { security?: Record<string, unknown>[]; parameters?: ParameterLike[]; requestBody?: RequestBodyLike; responses?: Record<string, ResponseLike> }>>;
  components?: { schemas?: Record<string, SchemaLike>; headers?: Record<string, unknown> };
}

/** A component schema as this module reads it. */
interface SchemaLike {
  type?: string;
  properties?: Record<string, unknown>;
  required?: readonly string[];
  additionalProperties?: unknown;
}

/**
 * Schemas of the path parameters, by name (spec "Conventions": UUID, HEX64, ADDR, SIG, SLUG; §4.2 an organization
 * `ref`). The pipes of libs/http/src/params.ts validate with the same expressions; ADDR and SIG values must also
 * decode to 32 and 64 bytes, which a pattern cannot say.
 */
const PATH_PARAMETERS: Record<string, Record<string, unknown>> = {
  ...Object.fromEntries(['orgId', 'documentId', 'draftId', 'keyId', 'webhookId', 'verificationId', 'challengeId'].map((name) => [name, { type: 'string', format: 'uuid', pattern: UUID.source }])),
  ...Object.fromEntries(['acceptanceId', 'hash', 'root'].map((name) => [name, { type: 'string', pattern: HEX64.source, minLength: 64, maxLength: 64 }])),
  ...Object.fromEntries(['address', 'memberAddress'].map((name) => [name, { type: 'string', pattern: ADDR.source, minLength: 32, maxLength: 44 }])),
  signature: { type: 'string', pattern: SIG.source, minLength: 64, maxLength: 90 },
  publicKey: { type: 'string', description: 'ADDR, or a p256 identity', pattern: `${ADDR.source}|${P256ID.source}`, minLength: 32, maxLength: 71 },
  slug: { type: 'string', pattern: SLUG.source, minLength: 1, maxLength: 32 },
  ref: { type: 'string', description: 'organization address, or its verified domain', pattern: ORG_REF.source, minLength: 1, maxLength: 64 },
};

/**
 * Response headers (spec §8 "Rate headers on every response", §7 rule 2, §8 idempotency; docs/api.md "Errors and limits").
 * Those every answer carries (and `retry-after`, which every 429 carries) are declared `required`.
 */
const HEADERS = {
  RequestId: { required: true, description: 'Id of the request: the caller\'s well-formed `x-request-id`, or one the service made', schema: { type: 'string' } },
  RateLimitLimit: { required: true, description: 'Requests allowed per minute in the bucket the request counted in', schema: { type: 'integer', minimum: 0 } },
  RateLimitRemaining: { required: true, description: 'Requests left in the current window', schema: { type: 'integer', minimum: 0 } },
  RateLimitReset: { required: true, description: 'Seconds until the window starts over', schema: { type: 'integer', minimum: 0 } },
  RetryAfter: { required: true, description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } },
  IdempotentReplayed: { description: '`true` on an answer replayed for a repeated Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
} as const;

const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** The headers every answer carries; 431 (headers too large) is refused by the HTTP parser, before it is a request. */
function answerHeaders(status: string, idempotent: boolean): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  if (status !== '431') {
    headers['x-request-id'] = headerRef('RequestId');
    headers['x-ratelimit-limit'] = headerRef('RateLimitLimit');
    headers['x-ratelimit-remaining'] = headerRef('RateLimitRemaining');
    headers['x-ratelimit-reset'] = headerRef('RateLimitReset');
  }
  if (status === '429') headers['retry-after'] = headerRef('RetryAfter');
  if (idempotent && /^[24]/.test(status)) headers['idempotent-replayed'] = headerRef('IdempotentReplayed');
  return headers;
}

const WRITES = new Set(['post', 'patch', 'put', 'delete']);

/**
 * Adds shared codes to an operation's answer of `status`: a new error response, or more codes in the one the route
 * declared with {@link ApiErrors}. An answer of another shape (an HTML page, a readiness body) is left as it is.
 */
function addCodes(responses: Record<string, ResponseLike>, status: number, codes: ErrorCode[], note = ''): void {
  const existing = responses[String(status)];
  if (!existing) {
    responses[String(status)] = errorResponse(codes, note);
    return;
  }
  const declared = existing.content?.['application/json']?.schema?.allOf?.[1]?.properties?.error?.properties?.code?.enum;
  if (!declared) return;
  const added = codes.filter((code) => !declared.includes(code));
  if (added.length === 0) return;
  // A new response: the declared one may be shared metadata of a class-level decorator.
  responses[String(status)] = { ...errorResponse([...declared, ...added]), description: `${existing.description ?? 'error envelope'}; ${added.join(', ')}${note}` };
}

/**
 * Completes the generated description with what every route shares: the `ErrorEnvelope` schema; the answers any
 * route may give (400 `invalid_request` for a malformed request, 414 path too long, 429 `rate_limited`, 431 headers
 * too large, 500 `internal_error`); on routes that
 * take a body, and on writes that take none (a body with fields is refused), the answers of the body rules (400,
 * 413, 415 `invalid_request`; docs/api.md "Errors and limits"); request schemas closed to other keys (the edge
 * refuses unknown fields), and a body optional when none of its fields is required; path parameters with their
 * formats; the response headers of spec §8 on every answer; on cookie-authenticated writes the `x-csrf-token`
 * header (spec §5); and on authenticated writes the optional `Idempotency-Key` header with its answers (400
 * `invalid_idempotency_key`, 422 `idempotency_key_reused`; docs/api.md "Idempotency"). Mutates and returns
 * `document`.
 */
export function completeOpenApiDocument<T extends object>(document: T): T {
  const doc = document as unknown as OpenApiLike;
  doc.components ??= {};
  doc.components.schemas ??= {};
  doc.components.schemas[ERROR_ENVELOPE_SCHEMA] = ERROR_ENVELOPE;
  doc.components.headers = { ...doc.components.headers, ...HEADERS };
  for (const schema of Object.values(doc.components.schemas)) nullableReferences(schema);
  const schemas = doc.components.schemas;
  for (const operations of Object.values(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const responses = (operation.responses ??= {});
      addCodes(responses, 414, ['invalid_request'], ' (request target too long)');
      addCodes(responses, 429, ['rate_limited'], ' (header retry-after, seconds)');
      addCodes(responses, 431, ['invalid_request'], ' (request headers too large)');
      addCodes(responses, 500, ['internal_error']);
      if (operation.requestBody !== undefined || WRITES.has(method)) {
        addCodes(responses, 400, ['invalid_request'], operation.requestBody !== undefined ? ' (malformed JSON, unknown field)' : ' (a body with fields: this route takes none)');
        addCodes(responses, 413, ['invalid_request'], ' (body too large)');
        addCodes(responses, 415, ['invalid_request'], ' (body not application/json)');
      }
      // Any route: a request the edge refuses before it runs (an HTTP/1.1 request without Host, a URL that cannot be decoded).
      addCodes(responses, 400, ['invalid_request'], ' (malformed request)');
      const bodyRef = operation.requestBody?.content?.['application/json']?.schema?.$ref;
      if (bodyRef) {
        closeSchema(schemas, bodyRef, new Set());
        if ((schemas[refName(bodyRef)]?.required ?? []).length === 0) operation.requestBody!.required = false;
      }
      for (const parameter of operation.parameters ?? []) {
        const format = parameter.in === 'path' ? PATH_PARAMETERS[parameter.name] : undefined;
        if (format) parameter.schema = { ...format };
      }
      if (!WRITES.has(method) || (operation.security ?? []).length === 0) continue;
      const security = operation.security ?? [];
      if (security.some((requirement) => 'cookie' in requirement)) {
        const cookieOnly = security.every((requirement) => 'cookie' in requirement);
        operation.parameters = [
          ...(operation.parameters ?? []),
          { name: 'x-csrf-token', in: 'header', required: cookieOnly, description: 'the value of the `svc_csrf` cookie (spec §5); also send `Origin` equal to the app\'s origin', schema: { type: 'string' } },
        ];
      }
      operation.parameters = [
        ...(operation.parameters ?? []),
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'replays the stored answer of an earlier request with this key (24 h, per caller)',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
        },
      ];
      addCodes(responses, 400, ['invalid_idempotency_key']);
      addCodes(responses, 422, ['idempotency_key_reused']);
    }
  }
  // Once every answer is declared: the headers each carries.
  for (const operations of Object.values(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const responses = operation.responses ?? {};
      const idempotent = WRITES.has(method) && (operation.security ?? []).length > 0;
      // A fresh object: a response may be metadata shared with other operations.
      for (const [status, response] of Object.entries(responses)) responses[status] = { ...response, headers: { ...response.headers, ...answerHeaders(status, idempotent) } };
    }
  }
  return document;
}

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

/**
 * Marks the request schema `ref` and the object schemas it references as closed (`additionalProperties: false`): the
 * edge refuses unknown fields of a request body (docs/api.md "Errors and limits"). Open maps declared with their own
 * `additionalProperties` are left as they are. Mutates `schemas`.
 */
function closeSchema(schemas: Record<string, SchemaLike>, ref: string, seen: Set<string>): void {
  const name = refName(ref);
  const schema = schemas[name];
  if (!schema || seen.has(name)) return;
  seen.add(name);
  if (schema.properties && schema.additionalProperties === undefined) schema.additionalProperties = false;
  for (const nested of referencesIn(schema.properties ?? {})) closeSchema(schemas, nested, seen);
}

/** Every `$ref` inside `node`. */
function referencesIn(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(referencesIn);
  if (typeof node !== 'object' || node === null) return [];
  const refs: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') refs.push(value);
    else refs.push(...referencesIn(value));
  }
  return refs;
}

/** The schema that admits `null` alone, in OpenAPI 3.0 terms (`nullable` needs a `type` beside it, and `enum` holds null). */
const NULL_ONLY = { type: 'object', nullable: true, enum: [null] } as const;

/**
 * Rewrites, throughout `node`, each nullable reference as the generator writes it (`{nullable: true, type: "object",
 * allOf: [{$ref}]}`) to `{anyOf: [{$ref}, NULL_ONLY]}`. OpenAPI 3.0.3 says `nullable` adds null only to the `type`
 * beside it, so validators apply the referenced schema to a null and refuse it; this form admits null under every
 * reading. Mutates `node`.
 */
function nullableReferences(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) nullableReferences(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  const allOf = schema['allOf'];
  if (schema['nullable'] === true && Array.isArray(allOf) && allOf.length === 1 && typeof (allOf[0] as { $ref?: unknown }).$ref === 'string') {
    delete schema['nullable'];
    delete schema['type'];
    delete schema['allOf'];
    schema['anyOf'] = [allOf[0], NULL_ONLY];
    return;
  }
  for (const value of Object.values(schema)) nullableReferences(value);
}
