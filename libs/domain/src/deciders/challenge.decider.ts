/**
 * Stream `challenge-<id>`: an acceptance challenge, the exact message a signer is asked to sign (spec §4.4).
 * Issuing decides from facts gathered on the query side (organization, document, current version, an earlier
 * acceptance); each of them is re-checked on the write side when the signature is submitted (acceptance
 * decider: current version from the document stream, uniqueness from the acceptance stream).
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { AcceptanceChallengeIssuedData, EventOf, OrganizationSettingsValues } from '../events';

export type ChallengeEvent = EventOf<'AcceptanceChallengeIssued'> | EventOf<'AcceptanceChallengeCompleted'>;

export interface ChallengeState {
  issued: AcceptanceChallengeIssuedData | null;
  /**
   * The acceptance that used the challenge, for challenges whose completion earlier versions of the service recorded
   * on this stream (`AcceptanceChallengeCompleted`); null otherwise. The service now reads the use of a challenge
   * from the acceptance's own stream, which records the challenge of each submission (acceptance decider).
   */
  completedBy: string | null;
}

/** What the caller found about the target of a challenge before it is issued. */
export interface ChallengeFacts {
  organization:
    | ({ address: string } & Pick<
          OrganizationSettingsValues,
          'allowedRequestDomains' | 'requireAcceptanceSessions' | 'signingPolicy' | 'evidenceMode' | 'feeSponsor' | 'sponsorFallbackToStele'
        >)
    | null;
  /** Null when unknown or belonging to another organization. */
  document: { address: string; organization: string; hasPublishedVersion: boolean } | null;
  /** The requesting site (host of the Origin). */
  requestDomain: string;
  /**
   * The acceptance session presented: null when none was; `refusal` says why it cannot be used (unknown, used,
   * expired, another organization's or document's); otherwise the session to carry into the challenge.
   */
  session: { refusal: string } | { acceptanceSessionId: string; externalUserRef: string | null } | null;
  /** Whether the signer already has a live acceptance of the current version. */
  alreadyAccepted: boolean;
  signerType: 'wallet' | 'passkey' | 'passkey_p256';
  signer: string;
}

export type ChallengeCommand =
  | {
      kind: 'IssueChallenge';
      facts: ChallengeFacts;
      /** The challenge as the caller built it from the current version; null when there is no version to sign. */
      issued: AcceptanceChallengeIssuedData | null;
    };

/**
 * Who pays the recording fee of an acceptance under these settings (spec §2.8, §7 rule 5): `svc` when the service
 * sponsors, and also when the organization sponsors but its shard cannot pay and `sponsorFallbackToStele` is on (on
 * this deployment an organization's shard never pays yet, docs/api.md "Organization settings"); null when nobody
 * can (`sponsorship_unavailable`).
 */
export function payingSponsor(settings: Pick<OrganizationSettingsValues, 'feeSponsor' | 'sponsorFallbackToStele'>): 'svc' | null {
  if (settings.feeSponsor === 'svc' || settings.sponsorFallbackToStele) return 'svc';
  return null;
}

/**
 * Checks the rules of spec §4.4 for issuing a challenge, in the order the API reports them.
 * Settings whose behaviour this deployment does not offer yet are refused here, never ignored: a signing policy
 * without wallets (`passkey_required`), and fee sponsorship by the organization without the fallback to the service
 * (`sponsorship_unavailable`); docs/api.md
 * "Organization settings". Both evidence modes are offered: the challenge records the organization's.
 * A document without a published version (`no_published_version`) and a signer who accepted its current version
 * (`already_accepted`) are told so before those two: the refusals concern only a signature still to come.
 * @throws DomainError as {@link checkChallengeAccess}; then no_published_version (409), already_accepted (409),
 *   passkey_required (400), sponsorship_unavailable (402).
 */
export function checkChallengeFacts(facts: ChallengeFacts): void {
  const { org, document } = checkChallengeAccess(facts);
  if (!document.hasPublishedVersion) throw new DomainError('no_published_version', 'the document has no published version');
  if (facts.alreadyAccepted) throw new DomainError('already_accepted', `${facts.signer} already accepted the current version of this document`);
  if (org.signingPolicy === 'PASSKEY_ONLY' || org.signingPolicy === 'ACCOUNT_AND_PASSKEY') {
    throw new DomainError('passkey_required', `the organization's signing policy ${org.signingPolicy} accepts passkey signers only`);
  }
  if (payingSponsor(org) === null) {
    throw new DomainError(
      'sponsorship_unavailable',
      "the organization's shard cannot pay (fee sponsorship by the organization is not available on this deployment yet) and sponsorFallbackToStele is off: set feeSponsor to svc or turn the fallback on",
    );
  }
}

/**
 * The rules of {@link checkChallengeFacts} that do not depend on the document's version: who asks, from which site,
 * with which session. Returns the organization's and the document's facts.
 * @throws DomainError unsupported_signer (400: a passkey signer type, not served by this release), invalid_signer
 *   (400), not_found (404), forbidden (403: site not on the allowed list; session required, unknown, used, expired or
 *   for another document).
 */
export function checkChallengeAccess(facts: ChallengeFacts): { org: NonNullable<ChallengeFacts['organization']>; document: NonNullable<ChallengeFacts['document']> } {
  if (facts.signerType !== 'wallet') {
    throw new DomainError('unsupported_signer', `signerType: ${facts.signerType} signers are not served by this release; use a wallet`);
  }
  if (facts.signer.startsWith('p256:')) throw new DomainError('invalid_signer', 'signer: a wallet signer is a base58 address');
  const org = facts.organization;
  if (!org) throw new DomainError('not_found', 'organization not found');
  const document = facts.document;
  if (!document || document.organization !== org.address) throw new DomainError('not_found', 'document not found');
  if (org.allowedRequestDomains.length > 0 && !org.allowedRequestDomains.includes(facts.requestDomain)) {
    throw new DomainError('forbidden', `the site ${facts.requestDomain} may not request signatures for this organization`);
  }
  if (facts.session && 'refusal' in facts.session) throw new DomainError('forbidden', `sessionToken: ${facts.session.refusal}`);
  if (!facts.session && org.requireAcceptanceSessions) throw new DomainError('forbidden', 'this organization requires an acceptance session: sessionToken missing');
  return { org, document };
}

export const challengeDecider: Decider<ChallengeCommand, ChallengeEvent, ChallengeState> = {
  eventTypes: ['AcceptanceChallengeIssued', 'AcceptanceChallengeCompleted'],
  initialState: { issued: null, completedBy: null },
  evolve(state, event) {
    switch (event.type) {
      case 'AcceptanceChallengeIssued':
        return { ...state, issued: event.data };
      case 'AcceptanceChallengeCompleted':
        return { ...state, completedBy: event.data.acceptanceId };
    }
  },
  /**
   * @throws DomainError as {@link checkChallengeFacts}; internal_error when the challenge id is taken (random UUIDs)
   *   or the record's evidence mode is not the organization's (a caller bug).
   */
  decide(command, state) {
    switch (command.kind) {
      case 'IssueChallenge':
        checkChallengeFacts(command.facts);
        if (!command.issued) throw new DomainError('internal_error', 'a challenge that passed its checks without a message to sign');
        if (state.issued) throw new DomainError('internal_error', 'challenge id already in use');
        if (command.issued.evidenceMode !== command.facts.organization?.evidenceMode) throw new DomainError('internal_error', "a challenge recorded with another evidence mode than the organization's");
        return [{ type: 'AcceptanceChallengeIssued', data: command.issued }];
    }
  },
};
