import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from '@svc/domain';

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
  content?: Record<string, { schema?: { allOf?: { $ref?: string; properties?: { error?: { properties?: { code?: { enum?: string[] } } } } }[] } }>;
}

/** The subset of an OpenAPI 3.0 document this module edits. */
interface OpenApiLike {
  paths: Record<string, Record<string, { security?: unknown[]; parameters?: unknown[]; requestBody?: unknown; responses?: Record<string, ResponseLike> }>>;
  components?: { schemas?: Record<string, unknown> };
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
 * Completes the generated description with what every route shares: the `ErrorEnvelope` schema, the answers
 * any route may give (429 `rate_limited`, 500 `internal_error`), on routes that take a body the answers of the body
 * rules (400, 413, 415 `invalid_request`; docs/api.md "Errors and limits"), and on authenticated writes the optional
 * `Idempotency-Key` header with its answers (400 `invalid_idempotency_key`, 422 `idempotency_key_reused`;
 * docs/api.md "Idempotency"). Mutates and returns `document`.
 */
export function completeOpenApiDocument<T extends object>(document: T): T {
  const doc = document as unknown as OpenApiLike;
  doc.components ??= {};
  doc.components.schemas ??= {};
  doc.components.schemas[ERROR_ENVELOPE_SCHEMA] = ERROR_ENVELOPE;
  for (const schema of Object.values(doc.components.schemas)) nullableReferences(schema);
  for (const operations of Object.values(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const responses = (operation.responses ??= {});
      addCodes(responses, 429, ['rate_limited'], ' (header retry-after, seconds)');
      addCodes(responses, 500, ['internal_error']);
      if (operation.requestBody !== undefined) {
        addCodes(responses, 400, ['invalid_request'], ' (malformed JSON, unknown field)');
        addCodes(responses, 413, ['invalid_request'], ' (body too large)');
        addCodes(responses, 415, ['invalid_request'], ' (body not application/json)');
      }
      if (!WRITES.has(method) || (operation.security ?? []).length === 0) continue;
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
  return document;
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
