import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError, type ErrorCode } from '@svc/domain';

/**
 * Input validation at the edge: class-validator DTOs, unknown keys refused (`forbidNonWhitelisted`).
 * The first failing property names the field; a constraint may carry a specific spec error code in its
 * context (`{ context: { code: 'invalid_address' } }`), otherwise the code is `invalid_request`.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
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
  const text = constraint === 'whitelistValidation' ? `${leaf.path}: unknown field` : `${leaf.path}: ${message}`;
  return new DomainError(code, text);
}
