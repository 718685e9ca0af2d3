import { Global, Module } from '@nestjs/common';
import { SharedModule, WebhookSecrets } from '@svc/application';
import { IdempotencyInterceptor, REPLAY_SEALER, REPLAY_SEALING_PURPOSE } from './idempotency.interceptor';
import { IdempotencyStore } from './idempotency.store';

/**
 * Idempotency keys for authenticated writes (docs/api.md "Idempotency"). The interceptor is attached to the
 * authenticated controllers (`@Authenticated`), not globally: a global interceptor would put every public read,
 * which never takes a key, on Nest's interceptor path.
 */
@Global()
@Module({
  imports: [SharedModule],
  providers: [
    IdempotencyStore,
    IdempotencyInterceptor,
    { provide: REPLAY_SEALER, inject: [WebhookSecrets], useFactory: (secrets: WebhookSecrets) => secrets.sealer(REPLAY_SEALING_PURPOSE) },
  ],
  exports: [IdempotencyStore, IdempotencyInterceptor, REPLAY_SEALER],
})
export class IdempotencyModule {}
