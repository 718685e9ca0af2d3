import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError, streams, type AcceptanceSubmittedData } from '@svc/domain';
import { acceptanceIdOf, base58ToBytes, verifyEd25519 } from '@svc/evidence';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type DocumentDoc } from '@svc/projections';
import { newEvent, type CommandContext } from '../infrastructure/command-context';
import { EventLog } from '../shared/event-log.service';
import { hashSecret, safeEqual } from '../shared/secrets';
import { AcceptanceRelay } from './acceptance-relay.service';

/** Response of the submit endpoint (spec §4.4). */
export interface SubmitResult {
  acceptanceId: string;
  transactionSignature: string | null;
  slot: number;
  status: 'confirmed';
  evidenceMode: 'DIRECT_ONCHAIN';
  signerType: 'wallet';
  fee: { payer: string; lamports: number; sponsor: 'svc' | 'organization'; reimbursedLamports: number | null };
  receiptUrl: string;
}

/** Submits a signed acceptance: verifies the signature over the exact message, records it, relays it. */
export class SubmitAcceptance {
  constructor(
    readonly challengeId: string,
    readonly clientBinding: string,
    readonly signature: string | undefined,
    readonly hasPasskeyAssertion: boolean,
    readonly ctx: CommandContext,
  ) {}
}

@CommandHandler(SubmitAcceptance)
export class SubmitAcceptanceHandler implements ICommandHandler<SubmitAcceptance, SubmitResult> {
  constructor(
    private readonly log: EventLog,
    private readonly relay: AcceptanceRelay,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * @throws DomainError not_found (404), forbidden (403: wrong clientBinding), challenge_not_open (409),
   * challenge_expired (409), version_superseded (409), invalid_request / invalid_signature (400),
   * already_accepted (409: enforced by the event store on the stream `acceptance-<version>-<signer>`),
   * relay_failed (502).
   */
  async execute(cmd: SubmitAcceptance): Promise<SubmitResult> {
    const { challengeId, ctx } = cmd;
    const challengeStream = await this.log.load(streams.challenge(challengeId));
    const issued = challengeStream.events[0];
    if (!issued || issued.type !== 'AcceptanceChallengeIssued') throw new DomainError('not_found', 'challenge not found');
    const challenge = issued.data;
    if (!safeEqual(hashSecret(cmd.clientBinding), challenge.clientBindingHash)) {
      throw new DomainError('forbidden', 'clientBinding does not match this challenge');
    }
    if (challengeStream.events.some((e) => e.type === 'AcceptanceChallengeCompleted')) {
      throw new DomainError('challenge_not_open', 'the challenge was already used');
    }
    if (Date.parse(challenge.expiresAt) <= ctx.now.getTime()) throw new DomainError('challenge_expired', 'the challenge expired; request a new one');
    if (cmd.hasPasskeyAssertion) throw new DomainError('invalid_request', 'passkeyAssertion: not accepted for wallet signers');
    if (!cmd.signature) throw new DomainError('invalid_request', 'signature: required for wallet signers');
    const signatureBytes = base58ToBytes(cmd.signature);
    if (signatureBytes.length !== 64 || !verifyEd25519(challenge.signer, Buffer.from(challenge.message, 'utf8'), signatureBytes)) {
      throw new DomainError('invalid_signature', 'signature: does not verify for the signer over the challenge message');
    }
    const document = await this.readStore.collection<DocumentDoc>(COLLECTIONS.documents).findOne({ _id: challenge.documentId });
    if (document?.currentVersion?.address !== challenge.versionAddress) {
      throw new DomainError('version_superseded', 'a newer version was published since the challenge; request a new one');
    }

    const streamId = streams.acceptance(challenge.versionAddress, challenge.signer);
    const existing = await this.log.load(streamId);
    const last = existing.events[existing.events.length - 1];
    if (last && last.type !== 'AcceptanceRelayFailed') {
      throw new DomainError('already_accepted', `${challenge.signer} already accepted version ${challenge.versionNumber} of this document`);
    }
    const acceptanceId = acceptanceIdOf(challenge.message);
    const signed = await this.relay.sign({
      signer: challenge.signer,
      signature: cmd.signature,
      message: challenge.message,
      acceptanceId,
      versionAddress: challenge.versionAddress,
    });
    const data: AcceptanceSubmittedData = {
      acceptanceId,
      challengeId,
      organizationId: challenge.organizationId,
      organization: challenge.organization,
      documentId: challenge.documentId,
      document: challenge.document,
      documentSlug: challenge.documentSlug,
      versionAddress: challenge.versionAddress,
      versionNumber: challenge.versionNumber,
      signer: challenge.signer,
      signerType: 'wallet',
      protocol: 'svc/1',
      message: challenge.message,
      signature: cmd.signature,
      requestDomain: challenge.requestDomain,
      externalUserRef: null,
      evidenceMode: 'DIRECT_ONCHAIN',
      feePayer: this.relay.feePayer,
      feeSponsor: 'svc',
      ...signed,
    };
    // The uniqueness rule lives here: one stream per signer and version, claimed with an expected revision.
    const submitted = await this.log.tryAppend(streamId, [newEvent('AcceptanceSubmitted', data, ctx)], existing.revision);
    if (!submitted) {
      throw new DomainError('already_accepted', `${challenge.signer} already accepted version ${challenge.versionNumber} of this document`);
    }
    const outcome = await this.relay.relay(data, signed, submitted.nextExpectedRevision, ctx);
    const completed = await this.log.tryAppend(
      streams.challenge(challengeId),
      [newEvent('AcceptanceChallengeCompleted', { challengeId, acceptanceId }, ctx)],
      challengeStream.revision,
    );
    const position = [outcome.position, completed?.position ?? -1n, submitted.position].reduce((a, b) => (a > b ? a : b));
    await this.log.settled(position);
    return {
      acceptanceId,
      transactionSignature: outcome.transactionSignature,
      slot: outcome.slot,
      status: 'confirmed',
      evidenceMode: 'DIRECT_ONCHAIN',
      signerType: 'wallet',
      fee: { payer: data.feePayer, lamports: outcome.feeLamports, sponsor: 'svc', reimbursedLamports: null },
      receiptUrl: receiptUrlOf(this.config.publicBaseUrl, acceptanceId),
    };
  }
}

/** The receipt page of an acceptance: an address that contains the acceptance ID (spec §2.3). */
export function receiptUrlOf(publicBaseUrl: string, acceptanceId: string): string {
  return `${publicBaseUrl}/receipts/${acceptanceId}`;
}
