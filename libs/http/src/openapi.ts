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

/**
 * Declares the error answers of a route in the OpenAPI description: one response per HTTP status of the given
 * codes (spec §7 table), each the shared error envelope, its description listing the codes. Use on every route
 * with the codes it can answer (docs/api.md "OpenAPI"); 429 and 500 are added to every route by
 * {@link completeOpenApiDocument}.
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return applyDecorators(
    ...[...byStatus].map(([status, group]) => ApiResponse({ status, description: `error envelope; code ${group.join(', ')}`, schema: ENVELOPE_REF })),
  );
}

/** The subset of an OpenAPI 3.0 document this module edits. */
interface OpenApiLike {
  paths: Record<string, Record<string, { security?: unknown[]; parameters?: unknown[]; responses?: Record<string, unknown> }>>;
  components?: { schemas?: Record<string, unknown> };
}

const WRITES = new Set(['post', 'patch', 'put', 'delete']);

/**
 * Completes the generated description with what every route shares: the `ErrorEnvelope` schema, the answers
 * any route may give (429 `rate_limited`, 500 `internal_error`), and on authenticated writes the optional
 * `Idempotency-Key` header with its answers (400 `invalid_idempotency_key`, 422 `idempotency_key_reused`;
 * docs/api.md "Idempotency"). Mutates and returns `document`.
 */
export function completeOpenApiDocument<T extends object>(document: T): T {
  const doc = document as unknown as OpenApiLike;
  doc.components ??= {};
  doc.components.schemas ??= {};
  doc.components.schemas[ERROR_ENVELOPE_SCHEMA] = ERROR_ENVELOPE;
  const envelope = (description: string) => ({ description, content: { 'application/json': { schema: ENVELOPE_REF } } });
  for (const operations of Object.values(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      operation.responses ??= {};
      operation.responses['429'] ??= envelope('error envelope; code rate_limited (header retry-after, seconds)');
      operation.responses['500'] ??= envelope('error envelope; code internal_error');
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
      operation.responses['400'] ??= envelope('error envelope');
      operation.responses['422'] ??= envelope('error envelope; code idempotency_key_reused');
    }
  }
  return document;
}
