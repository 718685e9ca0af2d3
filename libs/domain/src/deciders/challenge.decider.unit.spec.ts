/**
 * Acceptance challenge stream (spec §4.4; docs/api.md "Signing an acceptance"): issued after the rules of
 * §4.4 are checked in the order the API reports them; its use is recorded on the acceptance's stream.
 */
import type { EventOf } from '../events';
import { A, challengeIssued, HEX } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import { challengeDecider, checkChallengeFacts, payingSponsor, type ChallengeCommand, type ChallengeFacts } from './challenge.decider';

const FACTS: ChallengeFacts = {
  organization: {
    address: A.org,
    allowedRequestDomains: [],
    requireAcceptanceSessions: false,
    signingPolicy: 'WALLET_ONLY',
    evidenceMode: 'DIRECT_ONCHAIN',
    feeSponsor: 'svc',
    sponsorFallbackToStele: true,
  },
  document: { address: A.doc, organization: A.org, hasPublishedVersion: true },
  requestDomain: 'shop.example.com',
  session: null,
  alreadyAccepted: false,
  signerType: 'wallet',
  signer: A.signer,
};
const issued: EventOf<'AcceptanceChallengeIssued'> = { type: 'AcceptanceChallengeIssued', data: challengeIssued() };
const completed: EventOf<'AcceptanceChallengeCompleted'> = {
  type: 'AcceptanceChallengeCompleted',
  data: { challengeId: A.challengeId, acceptanceId: HEX.acceptance1 },
};

const issue = (facts: Partial<ChallengeFacts> = {}): Extract<ChallengeCommand, { kind: 'IssueChallenge' }> => ({ kind: 'IssueChallenge', facts: { ...FACTS, ...facts }, issued: challengeIssued() });
const org = (change: Partial<NonNullable<ChallengeFacts['organization']>>): Partial<ChallengeFacts> => ({ organization: { ...FACTS.organization!, ...change } });
const doc = (change: Partial<NonNullable<ChallengeFacts['document']>>): Partial<ChallengeFacts> => ({ document: { ...FACTS.document!, ...change } });

describe('challenge decider: issuing', () => {
  it('issues the challenge the caller built', () => {
    expect(given(challengeDecider).when(issue())).toEqual(decided(issued));
  });

  it('issues for an organization with batched evidence, recording its mode; a record with another mode is a caller bug', () => {
    const batched = { ...challengeIssued(), evidenceMode: 'MERKLE_BATCHED' as const };
    const command = { ...issue(org({ evidenceMode: 'MERKLE_BATCHED' })), issued: batched };
    expect(given(challengeDecider).when(command)).toEqual(decided({ type: 'AcceptanceChallengeIssued', data: batched }));
    expect(given(challengeDecider).when(issue(org({ evidenceMode: 'MERKLE_BATCHED' })))).toEqual(refused('internal_error'));
  });

  it('issues for a site on the allowed list', () => {
    expect(given(challengeDecider).when(issue(org({ allowedRequestDomains: ['app.example.org', 'shop.example.com'] })))).toEqual(decided(issued));
  });

  it.each<[string, Partial<ChallengeFacts>, string]>([
    ['a passkey signer type', { signerType: 'passkey' }, 'unsupported_signer'],
    ['a native passkey signer type', { signerType: 'passkey_p256' }, 'unsupported_signer'],
    ['a P256ID as a wallet signer', { signer: 'p256:AiKzWqR0q3Rj1hFh3bXnC0o6sVbY4u6yW2o1cF0r7pQx' }, 'invalid_signer'],
    ['an unknown organization', { organization: null }, 'not_found'],
    ['an unknown document', { document: null }, 'not_found'],
    ['a document of another organization', doc({ organization: A.otherOrg }), 'not_found'],
    ['a site not on the allowed list', org({ allowedRequestDomains: ['app.example.org'] }), 'forbidden'],
    ['an acceptance session that cannot be used', { session: { refusal: 'the acceptance session was already used' } }, 'forbidden'],
    ['an organization that requires acceptance sessions, without one', org({ requireAcceptanceSessions: true }), 'forbidden'],
    ['a passkey-only signing policy', org({ signingPolicy: 'PASSKEY_ONLY' }), 'passkey_required'],
    ['an account-and-passkey signing policy', org({ signingPolicy: 'ACCOUNT_AND_PASSKEY' }), 'passkey_required'],
    ['fee sponsorship by the organization (its shard cannot pay yet) without the fallback to the service', org({ feeSponsor: 'organization', sponsorFallbackToStele: false }), 'sponsorship_unavailable'],
    ['a document without a published version', doc({ hasPublishedVersion: false }), 'no_published_version'],
    ['a signer who accepted the current version already', { alreadyAccepted: true }, 'already_accepted'],
  ])('refuses %s with %s', (_what, facts, code) => {
    expect(given(challengeDecider).when(issue(facts))).toEqual({ refused: code });
  });

  it('issues with a usable session, also where sessions are required, and for a wallet-or-passkey policy', () => {
    const session = { acceptanceSessionId: A.sessionId, externalUserRef: 'user-42' };
    expect(given(challengeDecider).when(issue({ session, ...org({ requireAcceptanceSessions: true }) }))).toEqual(decided(issued));
    expect(given(challengeDecider).when(issue(org({ signingPolicy: 'WALLET_OR_PASSKEY' })))).toEqual(decided(issued));
  });

  it('issues under fee sponsorship by the organization when the fallback to the service is on, the service paying (spec §7 rule 5)', () => {
    expect(given(challengeDecider).when(issue(org({ feeSponsor: 'organization', sponsorFallbackToStele: true })))).toEqual(decided(issued));
    expect(payingSponsor({ feeSponsor: 'organization', sponsorFallbackToStele: true })).toBe('svc');
    expect(payingSponsor({ feeSponsor: 'organization', sponsorFallbackToStele: false })).toBeNull();
    expect(payingSponsor({ feeSponsor: 'svc', sponsorFallbackToStele: false })).toBe('svc');
  });

  it('names the reason a session cannot be used in the message', () => {
    expect(() => checkChallengeFacts({ ...FACTS, session: { refusal: 'the acceptance session expired' } })).toThrow('sessionToken: the acceptance session expired');
  });

  it('checks the rules in the order the API reports them', () => {
    // Every rule broken; fixing them one at a time reveals the next.
    const steps: [Partial<ChallengeFacts>, string][] = [
      [{ signerType: 'passkey', signer: 'p256:AiKzWqR0q3Rj1hFh3bXnC0o6sVbY4u6yW2o1cF0r7pQx', organization: null, document: null, session: { refusal: 'unknown acceptance session' }, alreadyAccepted: true }, 'unsupported_signer'],
      [{ signerType: 'wallet' }, 'invalid_signer'],
      [{ signer: A.signer }, 'not_found'],
      [org({ allowedRequestDomains: ['app.example.org'], requireAcceptanceSessions: true, signingPolicy: 'PASSKEY_ONLY', evidenceMode: 'MERKLE_BATCHED', feeSponsor: 'organization', sponsorFallbackToStele: false }), 'not_found'],
      [doc({ organization: A.otherOrg, hasPublishedVersion: false }), 'not_found'],
      [{ document: { address: A.doc, organization: A.org, hasPublishedVersion: false } }, 'forbidden'],
      [org({ allowedRequestDomains: [], requireAcceptanceSessions: true, signingPolicy: 'PASSKEY_ONLY', evidenceMode: 'MERKLE_BATCHED', feeSponsor: 'organization', sponsorFallbackToStele: false }), 'forbidden'],
      [{ session: null }, 'forbidden'],
      [org({ requireAcceptanceSessions: false, signingPolicy: 'PASSKEY_ONLY', evidenceMode: 'MERKLE_BATCHED', feeSponsor: 'organization', sponsorFallbackToStele: false }), 'no_published_version'],
      [doc({ hasPublishedVersion: true }), 'already_accepted'],
      [{ alreadyAccepted: false }, 'passkey_required'],
      [org({ signingPolicy: 'WALLET_ONLY', evidenceMode: 'MERKLE_BATCHED', feeSponsor: 'organization', sponsorFallbackToStele: false }), 'sponsorship_unavailable'],
      [org({ evidenceMode: 'DIRECT_ONCHAIN', feeSponsor: 'organization', sponsorFallbackToStele: false }), 'sponsorship_unavailable'],
      [org({ feeSponsor: 'svc' }), 'issued'],
    ];
    let facts: ChallengeFacts = FACTS;
    const seen: string[] = [];
    for (const [change] of steps) {
      facts = { ...facts, ...change };
      const outcome = given(challengeDecider).when({ kind: 'IssueChallenge', facts, issued: challengeIssued() });
      seen.push('refused' in outcome ? outcome.refused : 'issued');
    }
    expect(seen).toEqual(steps.map(([, expected]) => expected));
  });

  it('refuses a challenge id in use, or nothing to issue, with internal_error (after the rules)', () => {
    expect(given(challengeDecider, [issued]).when(issue())).toEqual(refused('internal_error'));
    expect(given(challengeDecider).when({ ...issue(), issued: null })).toEqual(refused('internal_error'));
    expect(given(challengeDecider, [issued]).when(issue({ alreadyAccepted: true }))).toEqual(refused('already_accepted'));
  });

  it('checkChallengeFacts passes a valid request and throws the DomainError otherwise', () => {
    expect(() => checkChallengeFacts(FACTS)).not.toThrow();
    expect(() => checkChallengeFacts({ ...FACTS, organization: null })).toThrow(expect.objectContaining({ name: 'DomainError', code: 'not_found' }));
  });
});

describe('challenge decider: completions recorded by earlier versions', () => {
  it('folds a recorded completion into completedBy', () => {
    expect(given(challengeDecider, [issued]).state.completedBy).toBeNull();
    expect(given(challengeDecider, [issued, completed]).state.completedBy).toBe(HEX.acceptance1);
  });
});
