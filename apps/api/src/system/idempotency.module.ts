import { Global, Module } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyStore } from './idempotency.store';

/**
 * Idempotency keys for authenticated writes (docs/api.md "Idempotency"). The interceptor is attached to the
 * authenticated controllers (`@Authenticated`), not globally: a global interceptor would put every public read,
 * which never takes a key, on Nest's interceptor path.
 */
@Global()
@Module({
  providers: [IdempotencyStore, IdempotencyInterceptor],
  exports: [IdempotencyStore, IdempotencyInterceptor],
})
export class IdempotencyModule {}
