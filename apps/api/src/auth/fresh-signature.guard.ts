import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError } from '@svc/domain';
import { CLOCK, type Clock } from '@svc/application';
import type { DashboardSession } from './session.guard';

/**
 * Whether the session's last wallet signature is within the fresh-signature window at `now` (spec §5 rule 3, §8).
 * @param windowSeconds `FRESH_SIGNATURE_SECONDS` (600 by default).
 */
export function signatureFresh(session: Pick<DashboardSession, 'signedAt'>, now: Date, windowSeconds: number): boolean {
  return (now.getTime() - Date.parse(session.signedAt)) / 1000 <= windowSeconds;
}

/**
 * Operations that need a wallet signature made within the last `FRESH_SIGNATURE_SECONDS` (600 by default; spec §5
 * "Dashboard session" rule 3, §8 "Fresh-signature window"). Runs after SessionGuard: `@UseGuards(SessionGuard,
 * FreshSignatureGuard)`. The window starts at the session's `signedAt`, set by sign-in and by re-authentication
 * (docs/api.md "Re-authentication").
 * @throws DomainError reauthentication_required (403) when the last signature is older than the window.
 */
@Injectable()
export class FreshSignatureGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const session = context.switchToHttp().getRequest<{ dashboardSession?: DashboardSession }>().dashboardSession;
    if (!session) throw new DomainError('forbidden', 'sign in first: no dashboard session');
    const ageSeconds = (this.clock.now().getTime() - Date.parse(session.signedAt)) / 1000;
    if (!(ageSeconds <= this.config.freshSignatureSeconds)) {
      throw new DomainError(
        'reauthentication_required',
        `this operation needs a wallet signature made within the last ${this.config.freshSignatureSeconds} s; the last one is ${Math.floor(ageSeconds)} s old: re-authenticate first`,
      );
    }
    return true;
  }
}
