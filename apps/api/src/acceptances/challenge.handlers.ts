import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomBytes, randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError, streams, type AcceptanceChallengeIssuedData } from '@svc/domain';
import { buildAcceptanceMessage } from '@svc/evidence';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type AcceptanceDoc, type DocumentDoc, type OrganizationDoc } from '@svc/projections';
import { newEvent, type CommandContext } from '../infrastructure/command-context';
import { NetworkService } from '../infrastructure/network.service';
import { EventLog } from '../shared/event-log.service';
import { hashSecret, newSecret } from '../shared/secrets';
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
  evidenceMode: 'DIRECT_ONCHAIN';
  organization: string;
  document: string;
  version: { address: string; number: number; label: string; title: string; fingerprint: string; contentHash: string; effectiveAt: number | null };
}

/** Issues the message a signer must sign to accept the current version of a document. */
export class IssueAcceptanceChallenge {
  constructor(readonly input: ChallengeInput, readonly origin: string | undefined, readonly ctx: CommandContext) {}
}

/** `https://app.example.com` → `app.example.com`; the requesting site (spec §2.3 requestDomain). */
export function requestDomainOf(origin: string | undefined): string {
  if (!origin) throw new DomainError('invalid_origin', 'Origin: header required (the site asking for the signature)');
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new DomainError('invalid_origin', 'Origin: not a valid origin');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.host.length > 64 || url.origin !== origin.replace(/\/$/, '')) {
    throw new DomainError('invalid_origin', 'Origin: must be an http(s) origin');
  }
  return url.host.toLowerCase();
}

@CommandHandler(IssueAcceptanceChallenge)
export class IssueAcceptanceChallengeHandler implements ICommandHandler<IssueAcceptanceChallenge, ChallengeResult> {
  constructor(
    private readonly log: EventLog,
    private readonly network: NetworkService,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * @throws DomainError invalid_origin (400), unsupported_signer / invalid_signer (400), not_found (404),
   * forbidden (403: site not allowed, unknown session), no_published_version (409), already_accepted (409).
   */
  async execute({ input, origin, ctx }: IssueAcceptanceChallenge): Promise<ChallengeResult> {
    const requestDomain = requestDomainOf(origin);
    if (input.signerType !== 'wallet') {
      throw new DomainError('invalid_request', `signerType: ${input.signerType} signers are not accepted by this deployment; use a wallet`);
    }
    if (input.signer.startsWith('p256:')) throw new DomainError('invalid_signer', 'signer: a wallet signer is a base58 address');
    const [org, doc] = await Promise.all([
      this.readStore.collection<OrganizationDoc>(COLLECTIONS.organizations).findOne({ address: input.organization }),
      this.readStore.collection<DocumentDoc>(COLLECTIONS.documents).findOne({ address: input.document }),
    ]);
    if (!org) throw new DomainError('not_found', 'organization not found');
    if (!doc || doc.organization !== org.address) throw new DomainError('not_found', 'document not found');
    const allowed = org.settings.allowedRequestDomains;
    if (allowed.length > 0 && !allowed.includes(requestDomain)) throw new DomainError('forbidden', `the site ${requestDomain} may not request signatures for this organization`);
    if (input.sessionToken !== undefined) throw new DomainError('forbidden', 'unknown or expired acceptance session');
    if (org.settings.requireAcceptanceSessions) throw new DomainError('forbidden', 'this organization requires an acceptance session');
    const version = doc.currentVersion;
    if (!version) throw new DomainError('no_published_version', 'the document has no published version');
    // An early answer from the read model; the event store enforces the rule at submit. A failed relay leaves a
    // `failed` record beside the signer's later acceptance (another acceptance ID), so look past failed ones.
    const accepted = await this.readStore
      .collection<AcceptanceDoc>(COLLECTIONS.acceptances)
      .findOne({ versionAddress: version.address, signer: input.signer, status: { $ne: 'failed' } });
    if (accepted) {
      throw new DomainError('already_accepted', `${input.signer} already accepted version ${version.number} of this document`);
    }

    const challengeId = randomUUID();
    const nonce = randomBytes(16).toString('hex');
    const issuedAt = isoSeconds(ctx.now);
    const expiresAt = isoSeconds(new Date(ctx.now.getTime() + this.config.challengeTtlSeconds * 1000));
    const message = buildAcceptanceMessage({
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
    });
    const clientBinding = newSecret(24);
    const data: AcceptanceChallengeIssuedData = {
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
      message,
      nonce,
      clientBindingHash: hashSecret(clientBinding),
      requestDomain,
      issuedAt,
      expiresAt,
    };
    await this.log.append(streams.challenge(challengeId), [newEvent('AcceptanceChallengeIssued', data, ctx)], 'no_stream');
    return {
      challengeId,
      message,
      nonce,
      issuedAt,
      expiresAt,
      clientBinding,
      protocol: 'svc/1',
      signerType: 'wallet',
      feeSponsor: org.settings.feeSponsor,
      evidenceMode: 'DIRECT_ONCHAIN',
      organization: org.address,
      document: doc.address,
      version: {
        address: version.address,
        number: version.number,
        label: version.label,
        title: version.title,
        fingerprint: version.fingerprint,
        contentHash: version.contentHash,
        effectiveAt: version.effectiveAt,
      },
    };
  }
}
