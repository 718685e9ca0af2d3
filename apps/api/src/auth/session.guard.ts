import { CanActivate, createParamDecorator, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError } from '@svc/domain';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type SessionDoc } from '@svc/projections';
import { CLOCK, hashSecret, safeEqual, type Clock } from '@svc/application';
import { setCaller } from './caller';

export const SESSION_COOKIE = 'svc_session';
export const CSRF_COOKIE = 'svc_csrf';
export const CSRF_HEADER = 'x-csrf-token';

/** The signed-in wallet of a dashboard request. */
export interface DashboardSession {
  sessionId: string;
  address: string;
  /** When the wallet last signed (ISO 8601): the start of its fresh-signature window. */
  signedAt: string;
  expiresAt: string;
  /** False only for a session that ended or expired, which only {@link SignOutGuard} lets through. */
  live?: boolean;
}

const UNSAFE = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/**
 * The live dashboard session a request names (spec §5 "Dashboard session"): cookie `svc_session`, of which only the
 * SHA-256 is stored; a write (POST, PATCH, PUT, DELETE) must also come from the app's own origin and carry
 * `x-csrf-token` equal to cookie `svc_csrf`.
 * @throws DomainError forbidden (403) without a live session (spec §7: "session required"; 401 is for API keys only),
 *   and on a failed origin or CSRF check.
 */
export async function liveDashboardSession(request: FastifyRequest, readStore: ReadStore, config: Pick<AppConfig, 'appOrigin'>, clock: Clock): Promise<SessionDoc> {
  return dashboardSession(request, readStore, config, clock, false);
}

/** {@link liveDashboardSession}, or with `endedToo` a session that ended or expired as well (a repeated sign-out). */
async function dashboardSession(request: FastifyRequest, readStore: ReadStore, config: Pick<AppConfig, 'appOrigin'>, clock: Clock, endedToo: boolean): Promise<SessionDoc> {
  const token = request.cookies?.[SESSION_COOKIE];
  if (!token) throw new DomainError('forbidden', 'sign in first: no dashboard session');
  const session = await readStore.collection<SessionDoc>(COLLECTIONS.sessions).findOne({ tokenHash: hashSecret(token) });
  if (!session || (!endedToo && !isLive(session, clock))) {
    throw new DomainError('forbidden', 'sign in first: the dashboard session is unknown, ended or expired');
  }
  if (UNSAFE.has(request.method)) {
    if (request.headers.origin !== config.appOrigin) {
      throw new DomainError('forbidden', `writes must come from ${config.appOrigin}`);
    }
    const header = request.headers[CSRF_HEADER];
    const cookie = request.cookies?.[CSRF_COOKIE];
    if (typeof header !== 'string' || !cookie || !safeEqual(header, cookie) || !safeEqual(hashSecret(cookie), session.csrfHash)) {
      throw new DomainError('forbidden', `header ${CSRF_HEADER} must carry the value of cookie ${CSRF_COOKIE}`);
    }
  }
  return session;
}

/** Makes the session a request names its caller; `endedToo` lets a session that ended or expired pass too. */
abstract class DashboardSessionGuard implements CanActivate {
  protected abstract readonly endedToo: boolean;

  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest & { dashboardSession?: DashboardSession }>();
    const session = await dashboardSession(request, this.readStore, this.config, this.clock, this.endedToo);
    request.dashboardSession = { sessionId: session.sessionId, address: session.address, signedAt: session.signedAt, expiresAt: session.expiresAt, live: isLive(session, this.clock) };
    setCaller(request, { kind: 'session', id: session.sessionId, address: session.address });
    return true;
  }
}

/**
 * Dashboard authentication: the request's live session ({@link liveDashboardSession}) becomes its caller.
 * @throws as {@link liveDashboardSession}.
 */
@Injectable()
export class SessionGuard extends DashboardSessionGuard {
  protected readonly endedToo = false;
}

function isLive(session: SessionDoc, clock: Clock): boolean {
  return session.endedAt === null && Date.parse(session.expiresAt) > clock.now().getTime();
}

/**
 * Sign-out: as {@link SessionGuard}, but a session the cookie names that already ended or expired passes too (with
 * `live: false`), so that signing out again, after a lost answer, answers as the first time did.
 * @throws DomainError forbidden (403) for no session cookie, one that names no session, or a failed origin or CSRF check.
 */
@Injectable()
export class SignOutGuard extends DashboardSessionGuard {
  protected readonly endedToo = true;
}

/** The dashboard session of a request that passed SessionGuard. */
export const CurrentSession = createParamDecorator((_: unknown, ctx: ExecutionContext): DashboardSession => {
  const request = ctx.switchToHttp().getRequest<{ dashboardSession?: DashboardSession }>();
  if (!request.dashboardSession) throw new DomainError('unauthorized', 'no dashboard session');
  return request.dashboardSession;
});
