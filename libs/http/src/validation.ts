import { type ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError, type ErrorCode } from '@svc/domain';

/**
 * Keys that class-transformer and class-validator treat as part of the object's machinery, not as data: those of
 * `Object.prototype` (class-transformer silently drops a key whose inherited value is a function, `toString` or
 * `hasOwnProperty`, so the unknown-field check never sees it), and `prototype`.
 */
const RESERVED_KEYS = new Set(['prototype', ...Object.getOwnPropertyNames(Object.prototype)]);

/**
 * The path of the first own key named `constructor`, `__proto__`, `prototype` or after another member of
 * `Object.prototype` (`toString`, `hasOwnProperty`…) in a parsed JSON body or a query, or null. No request body of the API has such a field; left in, `constructor` would slip past the
 * unknown-field check (class-transformer assigns it as the instance's constructor).
 */
export function reservedKeyPath(value: unknown, prefix = ''): string | null {
  if (value === null || typeof value !== 'object') return null;
  for (const [key, child] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (RESERVED_KEYS.has(key)) return path;
    const nested = reservedKeyPath(child, path);
    if (nested) return nested;
  }
  return null;
}

/**
 * Nest's ValidationPipe that first refuses a request body declared by a class (a DTO) which is not a JSON
 * object (an array, string, number, boolean or null; an absent body is validated as `{}`), then bodies with
 * reserved keys, and queries with reserved keys. All are 400 `invalid_request`.
 */
class EdgeValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'query' && metadata.data === undefined) {
      const reserved = reservedKeyPath(value);
      if (reserved !== null) throw new DomainError('invalid_request', `${reserved}: unknown field`);
    }
    if (metadata.type === 'body') {
      if (metadata.data === undefined && typeof metadata.metatype === 'function' && value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value))) {
        throw new DomainError('invalid_request', 'body: must be a JSON object');
      }
      const reserved = reservedKeyPath(value);
      if (reserved !== null) throw new DomainError('invalid_request', `${reserved}: unknown field`);
    }
    return super.transform(value, metadata);
  }
}

/**
 * Input validation at the edge: class-validator DTOs, unknown keys refused (`forbidNonWhitelisted`), also
 * `constructor`, `__proto__` and `prototype` at any depth. The first failing property names the field; a
 * constraint may carry a specific spec error code in its context (`{ context: { code: 'invalid_address' } }`),
 * otherwise the code is `invalid_request`.
 */
export function createValidationPipe(): ValidationPipe {
  return new EdgeValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => toDomainError(errors),
  });
}

function firstLeaf(errors: ValidationError[], prefix = ''): { path: string; error: ValidationError } | null {
  for (const error of errors) {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    if (error.constraints && Object.keys(error.constraints).length > 0) return { path, error };
    const nested = firstLeaf(error.children ?? [], path);
    if (nested) return nested;
  }
  return null;
}

function toDomainError(errors: ValidationError[]): DomainError | BadRequestException {
  const leaf = firstLeaf(errors);
  if (!leaf) return new DomainError('invalid_request', 'invalid request');
  const [constraint, message] = Object.entries(leaf.error.constraints ?? {})[0] ?? ['', 'invalid'];
  const code = (leaf.error.contexts?.[constraint] as { code?: ErrorCode } | undefined)?.code ?? 'invalid_request';
  const text = constraint === 'whitelistValidation' ? `${leaf.path}: unknown field` : `${leaf.path}: ${withoutFieldName(message, leaf.path)}`;
  return new DomainError(code, text);
}

/**
 * A DTO message that already names its field (`ttlSeconds: must be …`, `products.gate: must be …`) without that
 * name, so that the answer names the field once, by its full path (`scopes.2: …` for an entry of `scopes`).
 */
function withoutFieldName(message: string, path: string): string {
  const named = /^([A-Za-z_$][\w$]*(?:\.[\w$]+)*): (.*)$/s.exec(message);
  if (!named) return message;
  const field = named[1]!;
  return path === field || path.startsWith(`${field}.`) || path.endsWith(`.${field}`) || field.endsWith(`.${path}`) ? named[2]! : message;
}
