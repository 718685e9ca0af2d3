import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomBytes, randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import {
  acceptanceSessionDecider,
  challengeDecider,
  checkChallengeAccess,
  checkChallengeFacts,
  DomainError,
  payingSponsor,
  sessionRefusal,
  streams,
  type AcceptanceChallengeIssuedData,
  type ChallengeFacts,
  type EvidenceMode,
} from '@svc/domain';
import { buildAcceptanceMessage, isRequestDomain } from '@svc/evidence';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type AcceptanceDoc, type DocumentDoc, type OrganizationDoc, type VersionView } from '@svc/projections';
import { type CommandContext, Decisions, hashSecret, NetworkService, newSecret, safeEqual } from '@svc/application';
import { PublicationCatchUp } from '../organizations/publication-catch-up';
import { OpenChallengeCap } from './open-challenges';
import { sessionIdOf } from '../acceptance-sessions/session-token';
import { isoSeconds } from '../auth/sign-in.handlers';

/** Input of `POST /v1/acceptance/challenges` after edge validation. */
export interface ChallengeInput {
  organization: string;
  document: string;
  signer: string;
  signerType: 'wallet' | 'passkey' | 'passkey_p256';
  sessionToken?: string;
}

/** Response of `POST /v1/acceptance/challenges` (spec §4.4). */
export interface ChallengeResult {
  challengeId: string;
  /** The exact text to sign (UTF-8), rebuilt from the ledger-backed current version. */
  message: string;
  nonce: string;
  issuedAt: string;
  expiresAt: string;
  /** Secret the browser keeps and sends back on submit and status reads. */
  clientBinding: string;
  protocol: 'svc/1';
  signerType: 'wallet';
  feeSponsor: 'svc' | 'organization';
  evidenceMode: EvidenceMode;
  organization: string;
  document: string;
  /** The version to sign: its address, fingerprint and fields (the read model's view, publication details left out). */
  version: ChallengeVersion;
}

type ChallengeVersion = Pick<VersionView, 'address' | 'number' | 'label' | 'title' | 'fingerprint' | 'contentHash' | 'effectiveAt'>;

function challengeVersion({ address, number, label, title, fingerprint, contentHash, effectiveAt }: VersionView): ChallengeVersion {
  return { address, number, label, title, fingerprint, contentHash, effectiveAt };
}

/** Issues the message a signer must sign to accept the current version of a document. */
export class IssueAcceptanceChallenge extends Command<ChallengeResult> {
  constructor(
    readonly input: ChallengeInput,
    readonly origin: string | undefined,
    readonly ctx: CommandContext,
  ) {
    super();
  }
}

/**
 * `https://app.example.com` → `app.example.com` (`https://APP.Example.com`, `https://app.example.com:443` and
 * `https://app.example.com/` too); the requesting site (spec §2.3
 * requestDomain), by the rule the signed message applies (docs/protocol.md §1.1: a lower-case host name with optional
 * `:port` 1 to 65535, at most 64 characters). An origin whose host is none (an IPv6 literal, a trailing dot, an underscore, port 0) is refused
 * here rather than when the message is built.
 * @throws DomainError invalid_origin (400) without an Origin, or with one that is not an http(s) origin of such a host.
 */
export function requestDomainOf(origin: string | undefined): string {
  if (!origin) throw new DomainError('invalid_origin', 'Origin: header required (the site asking for the signature)');
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new DomainError('invalid_origin', 'Origin: not a valid origin');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new DomainError('invalid_origin', 'Origin: the scheme must be https or http');
  // The header must be an origin and nothing more (no path, query or credentials). Spellings that name exactly the
  // origin a browser would serialize (RFC 6454 §6.2) are read as it: scheme and host in any case (RFC 3986
  // §6.2.2.1), the scheme's default port spelled out, a trailing slash.
  const spelled = origin.replace(/\/$/, '').toLowerCase().replace(url.protocol === 'https:' ? /:443$/ : /:80$/, '');
  if (/[^\x00-\x7f]/.test(origin)) throw new DomainError('invalid_origin', 'Origin: the host must be ASCII (an international name in its xn-- form, as browsers send it)');
  if (url.origin !== spelled) throw new DomainError('invalid_origin', 'Origin: must be an origin alone (scheme, host and port; no path, query or credentials)');
  const host = url.host.toLowerCase();
  if (!isRequestDomain(host)) throw new DomainError('invalid_origin', 'Origin: the host must be a DNS host name with optional :port 1 to 65535, at most 64 characters (no IP v6 literal, no trailing dot)');
  return host;
}

@CommandHandler(IssueAcceptanceChallenge)
export class IssueAcceptanceChallengeHandler implements ICommandHandler<IssueAcceptanceChallenge, ChallengeResult> {
  constructor(
    private readonly decisions: Decisions,
    private readonly network: NetworkService,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly openChallenges: OpenChallengeCap,
    private readonly publications: PublicationCatchUp,
  ) {}

  /**
   * The rules are the challenge decider's (libs/domain); the facts come from the read models, as hints that the
   * acceptance decider re-checks against the document's and the acceptance's streams at submit.
   * An acceptance session is read from its own stream (the token names it), so one created a moment ago on another
   * replica is already usable; it is claimed only by the submission (docs/api.md "Acceptance sessions").
   * @throws DomainError invalid_origin (400), unsupported_signer / invalid_signer (400), not_found (404),
   * forbidden (403: site not allowed; session required, unknown, used, expired, or for another document),
   * passkey_required (400), chain_state (409), sponsorship_unavailable (402: settings not offered yet),
   * no_published_version (409), already_accepted (409), too_many_open_challenges (429: the signer's open challenges
   * of the document are at the cap).
   */
  async execute({ input, origin, ctx }: IssueAcceptanceChallenge): Promise<ChallengeResult> {
    const requestDomain = requestDomainOf(origin);
    const documents = this.readStore.collection<DocumentDoc>(COLLECTIONS.documents);
    const [org, found] = await Promise.all([
      this.readStore.collection<OrganizationDoc>(COLLECTIONS.organizations).findOne({ address: input.organization }),
      documents.findOne({ address: input.document }),
    ]);
    const session = input.sessionToken === undefined ? null : await this.session(input.sessionToken, ctx.now, input.organization, input.document);
    const factsOf = (doc: DocumentDoc | null, alreadyAccepted: boolean, hasPublishedVersion: boolean): ChallengeFacts => ({
      organization: org && {
        address: org.address,
        allowedRequestDomains: org.settings.allowedRequestDomains,
        requireAcceptanceSessions: org.settings.requireAcceptanceSessions,
        signingPolicy: org.settings.signingPolicy,
        evidenceMode: org.settings.evidenceMode,
        feeSponsor: org.settings.feeSponsor,
        sponsorFallbackToStele: org.settings.sponsorFallbackToStele,
      },
      document: doc && { address: doc.address, organization: doc.organization, hasPublishedVersion },
      requestDomain,
      session,
      alreadyAccepted,
      signerType: input.signerType,
      signer: input.signer,
    });
    // The rules that do not depend on the version first (organization, document, site, session), so that only a
    // request the organization would serve makes the ledger read below.
    checkChallengeAccess(factsOf(found, false, true));
    // A publication that landed on the ledger but was not confirmed yet is recorded first (spec §4.4 "live ledger state").
    const doc = found && (await this.publications.catchUp(found, ctx)) ? await documents.findOne({ address: input.document }) : found;
    const version = doc?.currentVersion ?? null;
    // A failed relay leaves a `failed` record beside the signer's later acceptance (another acceptance ID).
    const accepted = version
      ? await this.readStore.collection<AcceptanceDoc>(COLLECTIONS.acceptances).findOne({
          versionAddress: version.address,
          signer: input.signer,
          status: { $ne: 'failed' },
        })
      : null;
    const facts = factsOf(doc, accepted !== null, version !== null);
    // The message is built only for facts that pass; the decider judges them again before anything is recorded.
    checkChallengeFacts(facts);
    if (!org || !doc || !version) throw new DomainError('internal_error', 'challenge facts passed without a version');
    await this.openChallenges.claim(input.signer, doc.address);
    const challengeId = randomUUID();
    const nonce = randomBytes(16).toString('hex');
    const issuedAt = isoSeconds(ctx.now);
    const expiresAt = isoSeconds(new Date(ctx.now.getTime() + this.config.challengeTtlSeconds * 1000));
    const clientBinding = newSecret(24);
    const issued: AcceptanceChallengeIssuedData = {
      challengeId,
      organizationId: org.organizationId,
      organization: org.address,
      documentId: doc.documentId,
      document: doc.address,
      documentSlug: doc.slug,
      versionAddress: version.address,
      versionNumber: version.number,
      signer: input.signer,
      signerType: 'wallet',
      protocol: 'svc/1',
      message: buildAcceptanceMessage({
        protocol: 'svc/1',
        requestDomain,
        chainId: this.network.chainId,
        organization: org.address,
        document: doc.address,
        versionAddress: version.address,
        versionNumber: version.number,
        contentHash: version.contentHash,
        fingerprint: version.fingerprint,
        signer: input.signer,
        nonce,
        issuedAt,
        expiresAt,
      }),
      nonce,
      clientBindingHash: hashSecret(clientBinding),
      requestDomain,
      issuedAt,
      expiresAt,
      acceptanceSessionId: session && 'acceptanceSessionId' in session ? session.acceptanceSessionId : null,
      externalUserRef: session && 'externalUserRef' in session ? session.externalUserRef : null,
      evidenceMode: org.settings.evidenceMode,
    };
    const decided = await this.decisions.handle(streams.challenge(challengeId), challengeDecider, { kind: 'IssueChallenge', facts, issued }, ctx, { expectNew: true });
    const message = decided.state.issued?.message ?? issued.message;
    return {
      challengeId,
      message,
      nonce,
      issuedAt,
      expiresAt,
      clientBinding,
      protocol: 'svc/1',
      signerType: 'wallet',
      feeSponsor: payingSponsor(org.settings) ?? 'svc',
      evidenceMode: issued.evidenceMode,
      organization: org.address,
      document: doc.address,
      version: challengeVersion(version),
    };
  }

  /** The session a token names, as its stream says, or why it cannot be used with this challenge. */
  private async session(token: string, now: Date, organization: string, document: string): Promise<ChallengeFacts['session']> {
    const acceptanceSessionId = sessionIdOf(token);
    if (!acceptanceSessionId) return { refusal: 'not an acceptance session token of this service' };
    const { state } = await this.decisions.load(streams.acceptanceSession(acceptanceSessionId), acceptanceSessionDecider);
    if (!state.created || !safeEqual(hashSecret(token), state.created.tokenHash)) return { refusal: 'unknown acceptance session' };
    const refusal = sessionRefusal(state, { now: now.getTime(), organization, document });
    return refusal ? { refusal } : { acceptanceSessionId, externalUserRef: state.created.externalUserRef };
  }
}
