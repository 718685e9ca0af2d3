import { applyDecorators, type CanActivate, UseGuards, UseInterceptors, type Type } from '@nestjs/common';
import { IdempotencyInterceptor } from '../system/idempotency.interceptor';

/**
 * Marks a controller (or route) as authenticated by `guards` (SessionGuard for the dashboard, ApiKeyGuard for
 * servers; spec §5), and gives its writes `Idempotency-Key` (spec §8, "any authenticated POST, PATCH, PUT or
 * DELETE"). Every authenticated controller uses this rather than `UseGuards` alone, so none can miss the key.
 */
export function Authenticated(...guards: Type<CanActivate>[]) {
  return applyDecorators(UseGuards(...guards), UseInterceptors(IdempotencyInterceptor));
}
