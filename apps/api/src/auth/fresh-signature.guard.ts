import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError, MANAGERS, requireRole } from '@svc/domain';
import { UUID } from '@svc/http';
import { CLOCK, type Clock, OrganizationFactsReader } from '@svc/application';
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
 * (docs/api.md "Re-authentication"). On a route under `/v1/organizations/{orgId}`, access comes first, as on every
 * other route: a wallet that is not a member is answered 404 and a member who is neither owner nor admin 403
 * forbidden whatever the age of its signature; only the organization's owner and admins are asked to re-sign. A
 * path id that is not a UUID is left to the route's own validation (400).
 * @throws DomainError not_found (404: unknown organization or not a member), forbidden (403: neither owner nor
 *   admin), reauthentication_required (403) when the last signature is older than the window.
 */
@Injectable()
export class FreshSignatureGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly facts: OrganizationFactsReader,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<{ dashboardSession?: DashboardSession; params?: Record<string, string | undefined> }>();
    const session = request.dashboardSession;
    if (!session) throw new DomainError('forbidden', 'sign in first: no dashboard session');
    const orgId = request.params?.orgId;
    // Every operation behind this guard is the owner's or an admin's (spec §5 roles).
    if (orgId !== undefined && UUID.test(orgId)) {
      requireRole(await this.facts.organization(await this.facts.organizationAddress(orgId.toLowerCase())), session.address, MANAGERS);
    }
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
