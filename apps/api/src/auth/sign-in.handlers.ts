import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomBytes, randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError, sessionDecider, signInDecider, streams, type SignedSignInFields, type SignInChallengeIssuedData } from '@svc/domain';
import { base58ToBytes, buildSignInMessage, parseWalletSignInMessage, verifyEd25519 } from '@svc/evidence';
import { type CommandContext, Decisions, EventLog, hashSecret, NetworkService, newSecret } from '@svc/application';

/** Statement of a sign-in message (docs/api.md "Dashboard sign-in"). */
export const SIGN_IN_STATEMENT = 'Sign in to the agreement evidence dashboard. This signature authorizes nothing on the ledger.';
/** Statement of a re-authentication message: distinct, so that neither kind of signature can stand for the other. */
export const REAUTHENTICATION_STATEMENT =
  'Confirm a sensitive change on the agreement evidence dashboard (re-authentication). This signature authorizes nothing on the ledger.';

/** A message for the wallet to sign, with its single-use nonce and validity window. */
export interface SignInChallengeResult {
  /** The exact text the wallet must sign. */
  message: string;
  nonce: string;
  issuedAt: string;
  expiresAt: string;
}

/** Starts a wallet sign-in: a Sign-In-With-Solana message with a single-use nonce (spec §5). */
export class IssueSignInChallenge extends Command<SignInChallengeResult> {
  constructor(readonly address: string, readonly ctx: CommandContext) {
    super();
  }
}

/** Starts a re-authentication of a signed-in session: the same kind of message with its own statement (docs/api.md "Re-authentication"). */
export class IssueReauthenticationChallenge extends Command<SignInChallengeResult> {
  constructor(readonly sessionId: string, readonly address: string, readonly ctx: CommandContext) {
    super();
  }
}

@CommandHandler(IssueSignInChallenge)
export class IssueSignInChallengeHandler implements ICommandHandler<IssueSignInChallenge, SignInChallengeResult> {
  constructor(
    private readonly decisions: Decisions,
    private readonly network: NetworkService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** @throws DomainError nonce_unavailable (503) on a nonce collision. */
  execute({ address, ctx }: IssueSignInChallenge): Promise<SignInChallengeResult> {
    return issueMessage(this.decisions, this.network, this.config, { address, purpose: 'sign_in', sessionId: null }, ctx);
  }
}

@CommandHandler(IssueReauthenticationChallenge)
export class IssueReauthenticationChallengeHandler implements ICommandHandler<IssueReauthenticationChallenge, SignInChallengeResult> {
  constructor(
    private readonly decisions: Decisions,
    private readonly network: NetworkService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** @throws DomainError nonce_unavailable (503) on a nonce collision. */
  execute({ sessionId, address, ctx }: IssueReauthenticationChallenge): Promise<SignInChallengeResult> {
    return issueMessage(this.decisions, this.network, this.config, { address, purpose: 'reauthenticate', sessionId }, ctx);
  }
}

/**
 * Builds the message (docs/protocol.md §10; chain id: the network's CAIP-2 id, docs/api.md) and records its nonce
 * with every issued field, valid `SIGN_IN_NONCE_TTL_SECONDS` from `ctx.now`.
 */
async function issueMessage(
  decisions: Decisions,
  network: NetworkService,
  config: AppConfig,
  who: Pick<SignInChallengeIssuedData, 'address' | 'purpose' | 'sessionId'>,
  ctx: CommandContext,
): Promise<SignInChallengeResult> {
  const nonce = randomBytes(16).toString('hex');
  const issuedAt = isoSeconds(ctx.now);
  const expiresAt = isoSeconds(new Date(ctx.now.getTime() + config.signInNonceTtlSeconds * 1000));
  const fields = {
    domain: new URL(config.publicBaseUrl).host,
    statement: who.purpose === 'sign_in' ? SIGN_IN_STATEMENT : REAUTHENTICATION_STATEMENT,
    uri: config.publicBaseUrl,
    chainId: network.chainId,
  };
  const message = buildSignInMessage({ ...fields, address: who.address, version: '1', nonce, issuedAt, expirationTime: expiresAt });
  const issued: SignInChallengeIssuedData = { nonce, message, issuedAt, expiresAt, ...who, ...fields };
  await decisions.handle(streams.signIn(nonce), signInDecider, { kind: 'IssueSignInNonce', issued }, ctx, { expectNew: true });
  return { message, nonce, issuedAt, expiresAt };
}

/**
 * The wallet's signed message, parsed in the Wallet Standard layout, and whether its signature verifies (strict
 * Ed25519 over the exact UTF-8 bytes sent).
 * @throws DomainError invalid_request (400) when the text is not a sign-in message; unauthorized (401) when it has
 *   no nonce (no issued message to compare it with).
 */
function readSignedMessage(address: string, signedMessage: string, signature: string): { signed: SignedSignInFields & { nonce: string }; signatureValid: boolean } {
  let signed: SignedSignInFields;
  try {
    signed = parseWalletSignInMessage(signedMessage);
  } catch (err) {
    throw new DomainError('invalid_request', `signedMessage: ${(err as Error).message}`);
  }
  const nonce = signed.nonce;
  if (nonce === undefined || !/^[0-9a-f]{32}$/.test(nonce)) throw new DomainError('unauthorized', 'nonce: the signed message carries no nonce issued by this service');
  const signatureValid = verifyEd25519(address, new TextEncoder().encode(signedMessage), base58ToBytes(signature));
  return { signed: { ...signed, nonce }, signatureValid };
}

/** Completes a sign-in: checks the signed message against its nonce's record, then opens a dashboard session. */
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
    private readonly network: NetworkService,
    private readonly log: EventLog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * @throws DomainError invalid_request (400: not a sign-in message), unauthorized (401: unknown, used or expired
   *   nonce, a re-authentication nonce, a field that differs from the issued message), invalid_signature (400).
   */
  async execute({ address, signedMessage, signature, ctx }: CompleteSignIn): Promise<SignInResult> {
    const { signed, signatureValid } = readSignedMessage(address, signedMessage, signature);
    const sessionId = randomUUID();
    // Single use: the nonce's stream is claimed at the revision read; a concurrent use sees the nonce used.
    await this.decisions.handle(
      streams.signIn(signed.nonce),
      signInDecider,
      { kind: 'CompleteSignInWithNonce', purpose: 'sign_in', address, signed, walletChain: this.network.network.walletChain, signatureValid, sessionId, now: ctx.now.getTime() },
      ctx,
    );
    const sessionToken = newSecret();
    const csrfToken = newSecret();
    const signedAt = ctx.now.toISOString();
    const expiresAt = new Date(ctx.now.getTime() + this.config.sessionTtlSeconds * 1000).toISOString();
    const session = { sessionId, address, tokenHash: hashSecret(sessionToken), csrfHash: hashSecret(csrfToken), signedAt, expiresAt };
    const started = await this.decisions.handle(streams.session(sessionId), sessionDecider, { kind: 'StartSession', session }, ctx, { expectNew: true });
    await this.log.settledAfter(started.appended);
    return { sessionId, address, sessionToken, csrfToken, signedAt, expiresAt };
  }
}

/** Completes a re-authentication of a signed-in session: the fresh-signature window starts again (spec §5 rule 3). */
export class CompleteReauthentication extends Command<ReauthenticationResult> {
  constructor(
    readonly sessionId: string,
    /** The session's wallet: the only one that may re-authenticate it. */
    readonly address: string,
    readonly signedMessage: string,
    readonly signature: string,
    readonly ctx: CommandContext,
  ) {
    super();
  }
}

export interface ReauthenticationResult {
  address: string;
  /** The new start of the fresh-signature window (ISO 8601). */
  signedAt: string;
}

@CommandHandler(CompleteReauthentication)
export class CompleteReauthenticationHandler implements ICommandHandler<CompleteReauthentication, ReauthenticationResult> {
  constructor(
    private readonly decisions: Decisions,
    private readonly network: NetworkService,
    private readonly log: EventLog,
  ) {}

  /**
   * Uses the nonce on its own stream (single use), then records `DashboardSessionReauthenticated` on the session's.
   * @throws DomainError invalid_request (400: not a sign-in message), unauthorized (401: unknown, used or expired
   *   nonce, a sign-in nonce or another session's, a field that differs from the issued message, a session ended or
   *   expired meanwhile), invalid_signature (400: not signed by the session's wallet).
   */
  async execute({ sessionId, address, signedMessage, signature, ctx }: CompleteReauthentication): Promise<ReauthenticationResult> {
    const { signed, signatureValid } = readSignedMessage(address, signedMessage, signature);
    const now = ctx.now.getTime();
    await this.decisions.handle(
      streams.signIn(signed.nonce),
      signInDecider,
      { kind: 'CompleteSignInWithNonce', purpose: 'reauthenticate', address, signed, walletChain: this.network.network.walletChain, signatureValid, sessionId, now },
      ctx,
    );
    const signedAt = ctx.now.toISOString();
    const renewed = await this.decisions.handle(streams.session(sessionId), sessionDecider, { kind: 'Reauthenticate', address, nonce: signed.nonce, signedAt, now }, ctx);
    await this.log.settledAfter(renewed.appended);
    return { address, signedAt };
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
    await this.log.settledAfter(ended.appended);
  }
}

/** ISO 8601 UTC with whole seconds (`2026-11-22T10:00:00Z`). */
export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export const SignInHandlers = [
  IssueSignInChallengeHandler,
  IssueReauthenticationChallengeHandler,
  CompleteSignInHandler,
  CompleteReauthenticationHandler,
  EndSessionHandler,
];
