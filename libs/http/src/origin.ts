import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError } from '@svc/domain';

/**
 * Same-origin check for browser writes that are not yet cookie-authenticated (dashboard sign-in, spec §5
 * "Dashboard session" 2): a request that carries an `Origin` header must carry the app's own origin.
 * Browsers send `Origin` with every POST (Fetch standard), so a page of another site cannot complete a
 * sign-in in the victim's browser (login CSRF); clients that are not browsers (the CLI) send none.
 * @throws DomainError forbidden (403) for any other origin, including `null`.
 */
@Injectable()
export class SameOriginGuard implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const origin = context.switchToHttp().getRequest<FastifyRequest>().headers.origin;
    if (origin !== undefined && origin !== this.config.appOrigin) {
      throw new DomainError('forbidden', `origin: sign-in must come from ${this.config.appOrigin}`);
    }
    return true;
  }
}
