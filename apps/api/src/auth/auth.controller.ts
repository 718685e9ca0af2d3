import { Body, Controller, Get, HttpCode, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { SameOriginGuard } from '@svc/http';
import { CLOCK, commandContext, type Clock } from '@svc/application';
import { SignInChallengeRequest, SignInVerifyRequest } from './auth.dto';
import { CompleteSignIn, EndSession, IssueSignInChallenge, type SignInChallengeResult, type SignInResult } from './sign-in.handlers';
import { CSRF_COOKIE, CurrentSession, SESSION_COOKIE, SessionGuard, type DashboardSession } from './session.guard';

/** Dashboard sign-in with a wallet (spec §4.10, §5). */
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
  @ApiOkResponse({ description: '`{message, nonce, issuedAt, expiresAt}`' })
  challenge(@Body() body: SignInChallengeRequest, @Req() req: FastifyRequest): Promise<SignInChallengeResult> {
    return this.commands.execute(new IssueSignInChallenge(body.address, commandContext(`wallet:${body.address}`, req.id, this.clock.now())));
  }

  /**
   * Completes sign-in and sets cookies `svc_session` (HttpOnly) and `svc_csrf` (readable by the app, to be
   * echoed in `x-csrf-token` on writes). Returns `{address, expiresAt, csrfToken}`.
   * Errors: 400 invalid_signature, 401 unauthorized (unknown, used or expired nonce; message not as issued).
   */
  @Post('verify')
  @HttpCode(200)
  @UseGuards(SameOriginGuard)
  @ApiOkResponse({ description: '`{address, signedAt, expiresAt, csrfToken}`; sets cookies svc_session and svc_csrf' })
  async verify(@Body() body: SignInVerifyRequest, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const result: SignInResult = await this.commands.execute(
      new CompleteSignIn(body.address, body.signedMessage, body.signature, commandContext(`wallet:${body.address}`, req.id, this.clock.now())),
    );
    const maxAge = Math.floor((Date.parse(result.expiresAt) - Date.now()) / 1000);
    const common = { path: '/', secure: this.config.secureCookies, maxAge };
    reply.setCookie(SESSION_COOKIE, result.sessionToken, { ...common, httpOnly: true, sameSite: 'lax' });
    reply.setCookie(CSRF_COOKIE, result.csrfToken, { ...common, httpOnly: false, sameSite: 'strict' });
    return { address: result.address, signedAt: result.signedAt, expiresAt: result.expiresAt, csrfToken: result.csrfToken };
  }

  /** Ends the session and clears the cookies. Returns `{signedOut: true}`. */
  @Post('logout')
  @HttpCode(200)
  @UseGuards(SessionGuard)
  @ApiCookieAuth()
  async logout(@CurrentSession() session: DashboardSession, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.commands.execute(new EndSession(session.sessionId, commandContext(`wallet:${session.address}`, req.id)));
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    reply.clearCookie(CSRF_COOKIE, { path: '/' });
    return { signedOut: true };
  }

  /** The signed-in wallet: `{address, signedAt, expiresAt, freshUntil}` (freshUntil: end of the fresh-signature window). */
  @Get('me')
  @UseGuards(SessionGuard)
  @ApiCookieAuth()
  me(@CurrentSession() session: DashboardSession) {
    const freshUntil = new Date(Date.parse(session.signedAt) + this.config.freshSignatureSeconds * 1000).toISOString();
    return { address: session.address, signedAt: session.signedAt, expiresAt: session.expiresAt, freshUntil };
  }
}
