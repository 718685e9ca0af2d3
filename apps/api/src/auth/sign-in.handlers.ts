import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomBytes, randomUUID } from 'node:crypto';
import { getBase58Encoder } from '@solana/kit';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError, sessionDecider, signInDecider, streams } from '@svc/domain';
import { buildSignInMessage, parseSignInMessage, verifyEd25519 } from '@svc/evidence';
import { type CommandContext, Decisions, EventLog, hashSecret, NetworkService, newSecret } from '@svc/application';

const STATEMENT = 'Sign in to the agreement evidence dashboard. This signature authorizes nothing on the ledger.';

/** Starts a wallet sign-in: a Sign-In-With-Solana style message with a single-use nonce (spec §5). */
export class IssueSignInChallenge extends Command<SignInChallengeResult> {
  constructor(readonly address: string, readonly ctx: CommandContext) {
    super();
  }
}

export interface SignInChallengeResult {
  /** The exact text the wallet must sign. */
  message: string;
  nonce: string;
  issuedAt: string;
  expiresAt: string;
}

@CommandHandler(IssueSignInChallenge)
export class IssueSignInChallengeHandler implements ICommandHandler<IssueSignInChallenge, SignInChallengeResult> {
  constructor(
    private readonly decisions: Decisions,
    private readonly network: NetworkService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** @throws DomainError nonce_unavailable (503) on a nonce collision. */
  async execute({ address, ctx }: IssueSignInChallenge): Promise<SignInChallengeResult> {
    const nonce = randomBytes(16).toString('hex');
    const issuedAt = isoSeconds(ctx.now);
    const expiresAt = isoSeconds(new Date(ctx.now.getTime() + this.config.signInNonceTtlSeconds * 1000));
    const message = buildSignInMessage({
      domain: new URL(this.config.publicBaseUrl).host,
      address,
      statement: STATEMENT,
      uri: this.config.publicBaseUrl,
      version: '1',
      chainId: this.network.chainId,
      nonce,
      issuedAt,
      expirationTime: expiresAt,
    });
    const issued = { nonce, address, message, issuedAt, expiresAt };
    await this.decisions.handle(streams.signIn(nonce), signInDecider, { kind: 'IssueSignInNonce', issued }, ctx, { expectNew: true });
    return { message, nonce, issuedAt, expiresAt };
  }
}

/** Completes a sign-in: checks the signed message and its nonce, then opens a dashboard session. */
export class CompleteSignIn extends Command<SignInResult> {
  constructor(readonly address: string, readonly signedMessage: string, readonly signature: string, readonly ctx: CommandContext) {
    super();
  }
}

export interface SignInResult {
  sessionId: string;
  address: string;
  /** Cookie values; shown to this response only, stored hashed. */
  sessionToken: string;
  csrfToken: string;
  signedAt: string;
  expiresAt: string;
}

@CommandHandler(CompleteSignIn)
export class CompleteSignInHandler implements ICommandHandler<CompleteSignIn, SignInResult> {
  constructor(
    private readonly decisions: Decisions,
    private readonly log: EventLog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * @throws DomainError invalid_request (400: not a sign-in message), unauthorized (401: unknown, used or expired
   *   nonce, message not the one issued), invalid_signature (400).
   */
  async execute({ address, signedMessage, signature, ctx }: CompleteSignIn): Promise<SignInResult> {
    let fields;
    try {
      fields = parseSignInMessage(signedMessage);
    } catch (err) {
      throw new DomainError('invalid_request', `signedMessage: ${(err as Error).message}`);
    }
    const signatureBytes = getBase58Encoder().encode(signature);
    const signatureValid = signatureBytes.length === 64 && verifyEd25519(address, new TextEncoder().encode(signedMessage), signatureBytes);
    const sessionId = randomUUID();
    // Single use: the nonce's stream is claimed at the revision read; a concurrent use sees the nonce used.
    await this.decisions.handle(
      streams.signIn(fields.nonce),
      signInDecider,
      { kind: 'CompleteSignInWithNonce', address, signedMessage, signatureValid, sessionId, now: ctx.now.getTime() },
      ctx,
    );
    const sessionToken = newSecret();
    const csrfToken = newSecret();
    const signedAt = ctx.now.toISOString();
    const expiresAt = new Date(ctx.now.getTime() + this.config.sessionTtlSeconds * 1000).toISOString();
    const session = { sessionId, address, tokenHash: hashSecret(sessionToken), csrfHash: hashSecret(csrfToken), signedAt, expiresAt };
    const started = await this.decisions.handle(streams.session(sessionId), sessionDecider, { kind: 'StartSession', session }, ctx, { expectNew: true });
    if (started.appended) await this.log.settled(started.appended.position);
    return { sessionId, address, sessionToken, csrfToken, signedAt, expiresAt };
  }
}

/** Ends a dashboard session (logout). */
export class EndSession extends Command<void> {
  constructor(readonly sessionId: string, readonly ctx: CommandContext) {
    super();
  }
}

@CommandHandler(EndSession)
export class EndSessionHandler implements ICommandHandler<EndSession, void> {
  constructor(private readonly decisions: Decisions, private readonly log: EventLog) {}

  /** Idempotent. @throws DomainError not_found (404) for a session that never started. */
  async execute({ sessionId, ctx }: EndSession): Promise<void> {
    const ended = await this.decisions.handle(streams.session(sessionId), sessionDecider, { kind: 'EndSession', reason: 'logout' }, ctx);
    if (ended.appended) await this.log.settled(ended.appended.position);
  }
}

/** ISO 8601 UTC with whole seconds (`2026-11-22T10:00:00Z`). */
export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export const SignInHandlers = [IssueSignInChallengeHandler, CompleteSignInHandler, EndSessionHandler];
