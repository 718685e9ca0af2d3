import { Body, Controller, Get, HttpCode, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { ApiErrors, SameOriginGuard } from '@svc/http';
import { CLOCK, commandContext, type Clock } from '@svc/application';
import { ReauthenticateRequest, SessionResponse, SignedOutResponse, SignInChallengeRequest, SignInChallengeResponse, SignInResponse, SignInVerifyRequest } from './auth.dto';
import {
  CompleteReauthentication,
  CompleteSignIn,
  EndSession,
  IssueReauthenticationChallenge,
  IssueSignInChallenge,
  type ReauthenticationResult,
  type SignInChallengeResult,
  type SignInResult,
} from './sign-in.handlers';
import { CSRF_COOKIE, CurrentSession, SESSION_COOKIE, SessionGuard, SignOutGuard, type DashboardSession } from './session.guard';
import { Authenticated } from './authenticated';
import { SessionStateChange } from '../system/idempotency.interceptor';

/** Dashboard sign-in with a wallet, and re-authentication of a signed-in session (spec §4.10, §5). */
@ApiTags('dashboard: auth')
@Controller('v1/auth')
export class AuthController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Starts sign-in. Returns `{message, nonce, issuedAt, expiresAt}`; the nonce is single-use and valid 10 minutes. */
  @Post('challenge')
  @HttpCode(200)
  @ApiOkResponse({ type: SignInChallengeResponse })
  @ApiErrors('invalid_address', 'invalid_request', 'nonce_unavailable')
  challenge(@Body() body: SignInChallengeRequest, @Req() req: FastifyRequest): Promise<SignInChallengeResult> {
    return this.commands.execute(new IssueSignInChallenge(body.address, commandContext(`wallet:${body.address}`, req.id, this.clock.now())));
  }

  /**
   * Completes sign-in and sets cookies `svc_session` (HttpOnly) and `svc_csrf` (readable by the app, to be
   * echoed in `x-csrf-token` on writes). Returns `{address, signedAt, expiresAt, csrfToken}`. The signed message is
   * judged field by field against the issued one (docs/api.md "Dashboard sign-in").
   * Errors: 400 invalid_signature / invalid_request, 401 unauthorized (unknown, used or expired nonce; a changed field).
   */
  @Post('verify')
  @HttpCode(200)
  @UseGuards(SameOriginGuard)
  @ApiOkResponse({
    type: SignInResponse,
    description: 'Sets cookies svc_session (HttpOnly) and svc_csrf',
    headers: { 'set-cookie': { description: 'The session cookie `svc_session` (HttpOnly, SameSite=Lax) and `svc_csrf` (readable by the page, SameSite=Strict); Secure when the service is served over HTTPS', schema: { type: 'string' } } },
  })
  @ApiErrors('invalid_signature', 'invalid_address', 'invalid_request', 'unauthorized', 'forbidden')
  async verify(@Body() body: SignInVerifyRequest, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const now = this.clock.now();
    const result: SignInResult = await this.commands.execute(
      new CompleteSignIn(body.address, body.signedMessage, body.signature, commandContext(`wallet:${body.address}`, req.id, now)),
    );
    const maxAge = Math.floor((Date.parse(result.expiresAt) - now.getTime()) / 1000);
    const common = { path: '/', secure: this.config.secureCookies, maxAge };
    reply.setCookie(SESSION_COOKIE, result.sessionToken, { ...common, httpOnly: true, sameSite: 'lax' });
    reply.setCookie(CSRF_COOKIE, result.csrfToken, { ...common, httpOnly: false, sameSite: 'strict' });
    return { address: result.address, signedAt: result.signedAt, expiresAt: result.expiresAt, csrfToken: result.csrfToken };
  }

  /**
   * Starts a re-authentication of the signed-in session: a sign-in message with its own statement and a
   * single-use nonce valid 10 minutes, to be signed by the session's wallet. Cookie write (Origin and CSRF header).
   */
  @Post('reauthenticate/challenge')
  @SessionStateChange()
  @HttpCode(200)
  @Authenticated(SessionGuard)
  @ApiCookieAuth()
  @ApiOkResponse({ type: SignInChallengeResponse })
  @ApiErrors('forbidden', 'nonce_unavailable')
  reauthenticationChallenge(@CurrentSession() session: DashboardSession, @Req() req: FastifyRequest): Promise<SignInChallengeResult> {
    return this.commands.execute(new IssueReauthenticationChallenge(session.sessionId, session.address, commandContext(`wallet:${session.address}`, req.id, this.clock.now())));
  }

  /**
   * Completes a re-authentication: the session's fresh-signature window (spec §5 rule 3) starts again now.
   * Returns the session as `GET /v1/auth/me` does. Errors: 400 invalid_signature (not the session wallet's
   * signature) / invalid_request, 401 unauthorized (unknown, used or expired nonce; a sign-in nonce or another
   * session's; a changed field), 403 forbidden (no live session, Origin or CSRF header).
   */
  @Post('reauthenticate')
  @SessionStateChange()
  @HttpCode(200)
  @Authenticated(SessionGuard)
  @ApiCookieAuth()
  @ApiOkResponse({ type: SessionResponse })
  @ApiErrors('invalid_signature', 'invalid_request', 'unauthorized', 'forbidden')
  async reauthenticate(@Body() body: ReauthenticateRequest, @CurrentSession() session: DashboardSession, @Req() req: FastifyRequest): Promise<SessionResponse> {
    const ctx = commandContext(`wallet:${session.address}`, req.id, this.clock.now());
    const result: ReauthenticationResult = await this.commands.execute(new CompleteReauthentication(session.sessionId, session.address, body.signedMessage, body.signature, ctx));
    return this.sessionView({ ...session, signedAt: result.signedAt });
  }

  /**
   * Ends the session and clears the cookies. Returns `{signedOut: true}`, also when the cookie's session already
   * ended or expired (signing out again after a lost answer). Errors: 403 forbidden (no cookie, one naming no
   * session, Origin or CSRF header).
   */
  @Post('logout')
  @SessionStateChange()
  @HttpCode(200)
  @Authenticated(SignOutGuard)
  @ApiCookieAuth()
  @ApiOkResponse({ type: SignedOutResponse, headers: { 'set-cookie': { description: 'Clears `svc_session` and `svc_csrf` (expired cookies)', schema: { type: 'string' } } } })
  @ApiErrors('forbidden')
  async logout(@CurrentSession() session: DashboardSession, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SignedOutResponse> {
    if (session.live !== false) await this.commands.execute(new EndSession(session.sessionId, commandContext(`wallet:${session.address}`, req.id, this.clock.now())));
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    reply.clearCookie(CSRF_COOKIE, { path: '/' });
    return { signedOut: true };
  }

  /** The signed-in wallet: `{address, signedAt, expiresAt, freshUntil}` (freshUntil: end of the fresh-signature window). */
  @Get('me')
  @Authenticated(SessionGuard)
  @ApiCookieAuth()
  @ApiOkResponse({ type: SessionResponse })
  @ApiErrors('forbidden')
  me(@CurrentSession() session: DashboardSession): SessionResponse {
    return this.sessionView(session);
  }

  private sessionView(session: DashboardSession): SessionResponse {
    const freshUntil = new Date(Date.parse(session.signedAt) + this.config.freshSignatureSeconds * 1000).toISOString();
    return { address: session.address, signedAt: session.signedAt, expiresAt: session.expiresAt, freshUntil };
  }
}
