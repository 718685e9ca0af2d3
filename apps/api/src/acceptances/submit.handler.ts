import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { LedgerError } from '@svc/ledger';
import {
  acceptanceDecider,
  acceptanceSessionDecider,
  challengeDecider,
  currentVersion,
  DomainError,
  streams,
  type AcceptanceSubmittedData,
  type AcceptanceChallengeIssuedData,
  type SubmitAcceptanceCommand,
  type EvidenceMode,
} from '@svc/domain';
import { acceptanceIdOf, base58ToBytes, verifyEd25519OffThread } from '@svc/evidence';
import { type CatchUpDocument, PublicationCatchUp } from '../organizations/publication-catch-up';
import { AcceptanceRelay, type CommandContext, Decisions, EventLog, hashSecret, OrganizationFactsReader, RelayOutcomes, safeEqual } from '@svc/application';

/** Response of the submit endpoint (spec §4.4). */
export interface SubmitResult {
  acceptanceId: string;
  /** Null while a batched acceptance awaits anchoring. */
  transactionSignature: string | null;
  /** 0 while a batched acceptance awaits anchoring, as its record has it (spec §2.3 types the slot as an integer). */
  slot: number;
  /** `pending_batch`: recorded, to be anchored with the next batch (docs/architecture.md "Batches"). */
  status: 'confirmed' | 'pending_batch';
  evidenceMode: EvidenceMode;
  signerType: 'wallet';
  fee: { payer: string; lamports: number | null; sponsor: 'svc' | 'organization'; reimbursedLamports: number | null };
  receiptUrl: string;
}

/** How long a submission waits for the relay processor's outcome before answering 502, in milliseconds. */
const RELAY_WAIT_MS = 30_000;

/** Submits a signed acceptance: verifies the signature over the exact message, records it, waits for the relay. */
export class SubmitAcceptance extends Command<SubmitResult> {
  constructor(
    readonly challengeId: string,
    readonly clientBinding: string,
    readonly signature: string | undefined,
    readonly hasPasskeyAssertion: boolean,
    readonly ctx: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(SubmitAcceptance)
export class SubmitAcceptanceHandler implements ICommandHandler<SubmitAcceptance, SubmitResult> {
  constructor(
    private readonly decisions: Decisions,
    private readonly log: EventLog,
    private readonly relay: AcceptanceRelay,
    private readonly outcomes: RelayOutcomes,
    private readonly facts: OrganizationFactsReader,
    private readonly publications: PublicationCatchUp,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The acceptance decider judges the submission against the challenge's stream, the document's stream (current
   * version, after a publication of it that landed on the ledger but was not confirmed yet is recorded) and the
   * acceptance's own stream (one per signer and version); the relay processor sends it. A challenge
   * issued in `MERKLE_BATCHED` mode is answered at once with `pending_batch`: the batcher anchors it within 10 s.
   * @throws DomainError not_found (404), forbidden (403: wrong clientBinding), challenge_not_open (409),
   * challenge_expired (409), version_superseded (409), invalid_request / invalid_signature (400),
   * already_accepted (409), relay_failed (502: refused by the ledger, no outcome within 30 s, or no recent blockhash
   * from the ledger, nothing recorded); with an acceptance
   * session, forbidden (403) when another submission used it up first.
   */
  async execute(cmd: SubmitAcceptance): Promise<SubmitResult> {
    const { ctx } = cmd;
    // The challenge's own state may come from this process's memory: a completion missed there is caught by the
    // acceptance's stream, whose append is guarded by its revision.
    const challenge = (await this.decisions.load(streams.challenge(cmd.challengeId), challengeDecider, { cached: true })).state;
    const issued = challenge.issued;
    if (!issued) throw new DomainError('not_found', 'challenge not found');
    const signatureBytes = cmd.signature ? base58ToBytes(cmd.signature) : null;
    // The curve equation is checked on the thread pool while the document's stream is probed.
    const verifying = signatureBytes !== null && signatureBytes.length === 64 ? verifyEd25519OffThread(issued.signer, Buffer.from(issued.message, 'utf8'), signatureBytes) : false;
    const probing = this.facts.document(issued.document);
    const signatureValid = await verifying;
    // A publication of the document that landed since the challenge was issued, but was not confirmed yet, is
    // recorded first, so the decider refuses the superseded version (spec §4.4; docs/api.md "Signing an acceptance").
    // Only a verified signature on a challenge still valid pays for the ledger read.
    const open = challenge.completedBy === null && Date.parse(issued.expiresAt) > ctx.now.getTime();
    const landed = signatureValid && open && (await this.publications.catchUp(catchUpDocumentOf(issued), ctx, { fresh: true }));
    const document = landed ? await this.facts.document(issued.document) : await probing;
    const acceptanceId = acceptanceIdOf(issued.message);
    const submission = signatureValid && cmd.signature ? await this.submission(issued, cmd.signature, acceptanceId) : null;
    const command: SubmitAcceptanceCommand = {
      kind: 'SubmitAcceptance',
      challenge,
      bindingMatches: safeEqual(hashSecret(cmd.clientBinding), issued.clientBindingHash),
      hasPasskeyAssertion: cmd.hasPasskeyAssertion,
      signature: cmd.signature,
      signatureValid,
      currentVersionAddress: currentVersion(document)?.versionAddress ?? null,
      now: ctx.now.getTime(),
      submission,
    };
    const acceptanceStream = streams.acceptance(issued.versionAddress, issued.signer);
    const sessionId = issued.acceptanceSessionId;
    if (sessionId !== null) await this.claimSession(sessionId, acceptanceStream, command, acceptanceId, ctx);
    if (issued.evidenceMode === 'MERKLE_BATCHED') {
      const position = await this.record(acceptanceStream, command, acceptanceId, sessionId, ctx);
      // The answer names a record the public reads then show (pending, transaction null).
      if (position !== null) await this.log.settled(position);
      return this.pendingBatch(acceptanceId);
    }
    const wait = this.outcomes.expect(acceptanceId, RELAY_WAIT_MS);
    try {
      await this.record(acceptanceStream, command, acceptanceId, sessionId, ctx);
    } catch (err) {
      wait.cancel();
      throw err;
    }
    const result = await wait.outcome;
    if (!result) throw new DomainError('relay_failed', 'the ledger has not confirmed the acceptance yet; its relay goes on (see the challenge status)');
    await this.log.settled(result.position);
    if (result.type === 'AcceptanceRelayFailed') throw new DomainError('relay_failed', `the ledger refused the acceptance: ${result.data.reason}`);
    const relayed = result.data;
    return {
      acceptanceId,
      transactionSignature: relayed.transactionSignature,
      slot: relayed.slot,
      status: 'confirmed',
      evidenceMode: 'DIRECT_ONCHAIN',
      signerType: 'wallet',
      fee: { payer: this.relay.feePayer, lamports: relayed.feeLamports, sponsor: 'svc', reimbursedLamports: null },
      receiptUrl: receiptUrlOf(this.config.publicBaseUrl, acceptanceId),
    };
  }

  /**
   * Appends the submission; a refused one gives the acceptance session it claimed back.
   * @returns the log position of the appended submission.
   * @throws DomainError as the acceptance decider.
   */
  private async record(acceptanceStream: string, command: SubmitAcceptanceCommand, acceptanceId: string, sessionId: string | null, ctx: CommandContext): Promise<bigint | null> {
    try {
      // Usually the signer's first acceptance of the version: claim the stream; an existing one is read and judged.
      const decided = await this.decisions.handle(acceptanceStream, acceptanceDecider, command, ctx, { expectNew: true });
      return decided.appended?.position ?? null;
    } catch (err) {
      if (sessionId !== null) {
        await this.decisions.handle(streams.acceptanceSession(sessionId), acceptanceSessionDecider, { kind: 'ReleaseAcceptanceSession', acceptanceId }, ctx);
      }
      throw err;
    }
  }

  /** The answer to a batched submission: recorded, anchored with the next batch (no transaction yet). */
  private pendingBatch(acceptanceId: string): SubmitResult {
    return {
      acceptanceId,
      transactionSignature: null,
      slot: 0,
      status: 'pending_batch',
      evidenceMode: 'MERKLE_BATCHED',
      signerType: 'wallet',
      fee: { payer: this.relay.feePayer, lamports: null, sponsor: 'svc', reimbursedLamports: null },
      receiptUrl: receiptUrlOf(this.config.publicBaseUrl, acceptanceId),
    };
  }

  /**
   * Claims the challenge's acceptance session for this acceptance before it is recorded (docs/api.md "Acceptance
   * sessions"): the submission is judged first without writing, so a refused one never uses the session up; the
   * claim is an append at the session stream's revision, so of two submissions racing on one session one wins. If
   * the acceptance is then not recorded after all, the caller releases the session.
   * @throws DomainError as the acceptance decider; forbidden (403) when the session is used up by another acceptance.
   */
  private async claimSession(sessionId: string, acceptanceStream: string, command: SubmitAcceptanceCommand, acceptanceId: string, ctx: CommandContext): Promise<void> {
    const { state } = await this.decisions.load(acceptanceStream, acceptanceDecider);
    acceptanceDecider.decide(command, state);
    await this.decisions.handle(
      streams.acceptanceSession(sessionId),
      acceptanceSessionDecider,
      { kind: 'ConsumeAcceptanceSession', acceptanceId, challengeId: command.challenge.issued?.challengeId ?? '' },
      ctx,
    );
  }

  /** The record of a verified submission, with the relay transaction signed (docs/architecture.md "Relay": sign, record, send). */
  private async submission(issued: AcceptanceChallengeIssuedData, signature: string, acceptanceId: string): Promise<AcceptanceSubmittedData> {
    const batched = issued.evidenceMode === 'MERKLE_BATCHED';
    // A batched acceptance has no transaction of its own: its leaf is anchored with its batch's root.
    const transaction = batched
      ? { transactionSignature: null, transactionWire: null, lastValidBlockHeight: null }
      : await this.relay.sign({ signer: issued.signer, signature, message: issued.message, acceptanceId, versionAddress: issued.versionAddress }).catch((err: unknown) => {
          // No recent blockhash (the ledger unreachable, or its RPC refusing this process's calls): nothing recorded.
          if (err instanceof LedgerError) throw new DomainError('relay_failed', `the ledger gave no recent blockhash to sign with (${err.message}); nothing was recorded: submit again`);
          throw err;
        });
    return {
      acceptanceId,
      challengeId: issued.challengeId,
      organizationId: issued.organizationId,
      organization: issued.organization,
      documentId: issued.documentId,
      document: issued.document,
      documentSlug: issued.documentSlug,
      versionAddress: issued.versionAddress,
      versionNumber: issued.versionNumber,
      signer: issued.signer,
      signerType: 'wallet',
      protocol: 'svc/1',
      message: issued.message,
      signature,
      requestDomain: issued.requestDomain,
      externalUserRef: issued.externalUserRef,
      evidenceMode: issued.evidenceMode,
      feePayer: this.relay.feePayer,
      feeSponsor: 'svc',
      ...transaction,
    };
  }
}

/** The document a challenge names, as the publication catch-up reads it. */
function catchUpDocumentOf(issued: AcceptanceChallengeIssuedData): CatchUpDocument {
  return { documentId: issued.documentId, address: issued.document, organization: issued.organization };
}

/** The receipt page of an acceptance: an address that contains the acceptance ID (spec §2.3). */
export function receiptUrlOf(publicBaseUrl: string, acceptanceId: string): string {
  return `${publicBaseUrl}/receipts/${acceptanceId}`;
}
