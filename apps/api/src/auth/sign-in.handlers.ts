import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomBytes, randomUUID } from 'node:crypto';
import { getBase58Encoder } from '@solana/kit';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError, streams } from '@svc/domain';
import { buildSignInMessage, parseSignInMessage, verifyEd25519 } from '@svc/evidence';
import { NetworkService } from '../infrastructure/network.service';
import { newEvent, type CommandContext } from '../infrastructure/command-context';
import { EventLog } from '../shared/event-log.service';
import { hashSecret, newSecret } from '../shared/secrets';

const STATEMENT = 'Sign in to the agreement evidence dashboard. This signature authorizes nothing on the ledger.';

/** Starts a wallet sign-in: a Sign-In-With-Solana style message with a single-use nonce (spec §5). */
export class IssueSignInChallenge {
  constructor(readonly address: string, readonly ctx: CommandContext) {}
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
    private readonly log: EventLog,
    private readonly network: NetworkService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

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
    const appended = await this.log.tryAppend(
      streams.signIn(nonce),
      [newEvent('SignInChallengeIssued', { nonce, address, message, issuedAt, expiresAt }, ctx)],
      'no_stream',
    );
    if (!appended) throw new DomainError('nonce_unavailable', 'could not allocate a sign-in nonce; retry');
    return { message, nonce, issuedAt, expiresAt };
  }
}

/** Completes a sign-in: checks the signed message and its nonce, then opens a dashboard session. */
export class CompleteSignIn {
  constructor(readonly address: string, readonly signedMessage: string, readonly signature: string, readonly ctx: CommandContext) {}
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
    private readonly log: EventLog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute({ address, signedMessage, signature, ctx }: CompleteSignIn): Promise<SignInResult> {
    let fields;
    try {
      fields = parseSignInMessage(signedMessage);
    } catch (err) {
      throw new DomainError('invalid_request', `signedMessage: ${(err as Error).message}`);
    }
    const stream = await this.log.load(streams.signIn(fields.nonce));
    const issued = stream.events[0];
    if (!issued || issued.type !== 'SignInChallengeIssued') throw new DomainError('unauthorized', 'unknown sign-in nonce');
    if (stream.events.length > 1) throw new DomainError('unauthorized', 'this sign-in nonce was already used');
    if (issued.data.message !== signedMessage || issued.data.address !== address) {
      throw new DomainError('unauthorized', 'the signed message is not the one issued for this address');
    }
    if (Date.parse(issued.data.expiresAt) <= ctx.now.getTime()) throw new DomainError('unauthorized', 'the sign-in nonce expired; start again');
    const signatureBytes = getBase58Encoder().encode(signature);
    if (signatureBytes.length !== 64 || !verifyEd25519(address, new TextEncoder().encode(signedMessage), signatureBytes)) {
      throw new DomainError('invalid_signature', 'signature: does not verify for this address and message');
    }
    const sessionId = randomUUID();
    // Single use: the nonce's stream must still be at the revision we read.
    const used = await this.log.tryAppend(
      streams.signIn(fields.nonce),
      [newEvent('SignInCompleted', { nonce: fields.nonce, address, sessionId }, ctx)],
      stream.revision,
    );
    if (!used) throw new DomainError('unauthorized', 'this sign-in nonce was already used');
    const sessionToken = newSecret();
    const csrfToken = newSecret();
    const signedAt = ctx.now.toISOString();
    const expiresAt = new Date(ctx.now.getTime() + this.config.sessionTtlSeconds * 1000).toISOString();
    const started = await this.log.append(
      streams.session(sessionId),
      [newEvent('DashboardSessionStarted', { sessionId, address, tokenHash: hashSecret(sessionToken), csrfHash: hashSecret(csrfToken), signedAt, expiresAt }, ctx)],
      'no_stream',
    );
    await this.log.settled(started.position);
    return { sessionId, address, sessionToken, csrfToken, signedAt, expiresAt };
  }
}

/** Ends a dashboard session (logout). */
export class EndSession {
  constructor(readonly sessionId: string, readonly ctx: CommandContext) {}
}

@CommandHandler(EndSession)
export class EndSessionHandler implements ICommandHandler<EndSession, void> {
  constructor(private readonly log: EventLog) {}

  async execute({ sessionId, ctx }: EndSession): Promise<void> {
    const stream = await this.log.load(streams.session(sessionId));
    if (stream.events.some((e) => e.type === 'DashboardSessionEnded')) return;
    const ended = await this.log.tryAppend(streams.session(sessionId), [newEvent('DashboardSessionEnded', { sessionId, reason: 'logout' }, ctx)], stream.revision);
    if (ended) await this.log.settled(ended.position);
  }
}

/** ISO 8601 UTC with whole seconds (`2026-11-22T10:00:00Z`). */
export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export const SignInHandlers = [IssueSignInChallengeHandler, CompleteSignInHandler, EndSessionHandler];
