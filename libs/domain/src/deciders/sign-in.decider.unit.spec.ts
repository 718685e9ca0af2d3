/**
 * Sign-in nonce stream (spec §5; docs/api.md "Dashboard sign-in", "Re-authentication"): a nonce is issued once and
 * used once, for its purpose; the signed message is judged field by field; refusals in the order they are checked.
 */
import { DomainError } from '../errors';
import type { EventOf, SignInChallengeIssuedData } from '../events';
import { A } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import type { SignedSignInFields } from './sign-in-fields';
import { signInDecider, type CompleteSignInWithNonce } from './sign-in.decider';

const NONCE = '9f2b7c41d0e84a6b8c3d5e7f1a2b3c4d';
const FIELDS = {
  domain: 'app.example.com',
  statement: 'Sign in to the agreement evidence dashboard.',
  uri: 'https://app.example.com',
  chainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
};
const ISSUED: SignInChallengeIssuedData = {
  nonce: NONCE,
  address: A.authority,
  message: 'the issued text (compared field by field, not as text)',
  issuedAt: '2025-03-14T09:26:53Z',
  expiresAt: '2025-03-14T09:36:53Z',
  purpose: 'sign_in',
  sessionId: null,
  ...FIELDS,
};
/** What a wallet signs for the issued message, rendered its own way: times with milliseconds, a request id, resources. */
const SIGNED: SignedSignInFields = {
  ...FIELDS,
  address: A.authority,
  version: '1',
  nonce: NONCE,
  issuedAt: '2025-03-14T09:26:53.000Z',
  expirationTime: '2025-03-14T09:36:53.000Z',
  requestId: 'req-42',
  resources: ['https://app.example.com/terms'],
};
const issued: EventOf<'SignInChallengeIssued'> = { type: 'SignInChallengeIssued', data: ISSUED };
const reauthIssued: EventOf<'SignInChallengeIssued'> = {
  type: 'SignInChallengeIssued',
  data: { ...ISSUED, purpose: 'reauthenticate', sessionId: A.sessionId, statement: 'Confirm a sensitive change.' },
};
const completed: EventOf<'SignInCompleted'> = {
  type: 'SignInCompleted',
  data: { nonce: NONCE, address: A.authority, sessionId: A.sessionId, signedAt: '2025-03-14T09:27:30.000Z' },
};

const complete = (over: Partial<CompleteSignInWithNonce> = {}, signed: Partial<SignedSignInFields> = {}): CompleteSignInWithNonce => ({
  kind: 'CompleteSignInWithNonce',
  purpose: 'sign_in',
  address: A.authority,
  signed: { ...SIGNED, ...signed },
  walletChain: 'solana:devnet',
  signatureValid: true,
  sessionId: A.sessionId,
  now: Date.parse('2025-03-14T09:27:30.000Z'),
  ...over,
});
/** The message of the refusal of `command` given `events` (the outcome helpers keep only the code). */
function refusalMessage(events: EventOf<'SignInChallengeIssued' | 'SignInCompleted'>[], command: CompleteSignInWithNonce): string {
  try {
    signInDecider.decide(command, given(signInDecider, events).state);
  } catch (err) {
    if (err instanceof DomainError) return err.message;
    throw err;
  }
  return 'decided';
}

describe('sign-in decider: issuing a nonce', () => {
  it('records a fresh nonce', () => {
    expect(given(signInDecider).when({ kind: 'IssueSignInNonce', issued: ISSUED })).toEqual(decided(issued));
  });

  it('refuses a nonce that exists already (a collision) with nonce_unavailable', () => {
    expect(given(signInDecider, [issued]).when({ kind: 'IssueSignInNonce', issued: ISSUED })).toEqual(refused('nonce_unavailable'));
  });
});

describe('sign-in decider: completing a sign-in', () => {
  it('opens the session for the issued request as a wallet renders it (milliseconds, request id, resources)', () => {
    expect(given(signInDecider, [issued]).when(complete())).toEqual(decided(completed));
  });

  it('accepts the issued text as is (whole seconds, no extra fields)', () => {
    const { requestId: _r, resources: _s, ...plain } = SIGNED;
    expect(given(signInDecider, [issued]).when({ ...complete(), signed: { ...plain, issuedAt: ISSUED.issuedAt, expirationTime: ISSUED.expiresAt } })).toEqual(decided(completed));
  });

  it('accepts a signature up to the last millisecond before expiry, and records the decision time', () => {
    const now = Date.parse(ISSUED.expiresAt) - 1;
    expect(given(signInDecider, [issued]).when(complete({ now }))).toEqual(
      decided({ ...completed, data: { ...completed.data, signedAt: '2025-03-14T09:36:52.999Z' } }),
    );
  });

  it('refuses an unknown nonce with unauthorized', () => {
    expect(given(signInDecider).when(complete())).toEqual(refused('unauthorized'));
  });

  it('refuses a nonce used once already with unauthorized', () => {
    expect(given(signInDecider, [issued, completed]).when(complete())).toEqual(refused('unauthorized'));
  });

  it('refuses the right message from another address with unauthorized', () => {
    expect(given(signInDecider, [issued]).when(complete({ address: A.stranger }))).toEqual(refused('unauthorized'));
  });

  it.each([
    ['domain', { domain: 'evil.example.com' }],
    ['address', { address: A.stranger }],
    ['statement', { statement: 'Log in to the agreement evidence dashboard.' }],
    ['statement', { statement: undefined }],
    ['uri', { uri: 'https://evil.example.com' }],
    ['version', { version: '2' }],
    ['chainId', { chainId: 'solana:mainnet' }],
    ['chainId', { chainId: 'solana:localnet' }],
    ['nonce', { nonce: '0'.repeat(32) }],
    ['issuedAt', { issuedAt: '2025-03-14T09:26:52.999Z' }],
    ['issuedAt', { issuedAt: '2025-03-14T09:36:53.001Z' }],
    ['issuedAt', { issuedAt: undefined }],
    ['expirationTime', { expirationTime: '2025-03-14T09:36:53.001Z' }],
    ['expirationTime', { expirationTime: '2025-03-14T09:26:53.000Z' }],
    ['expirationTime', { expirationTime: undefined }],
    ['notBefore', { notBefore: '2025-03-14T09:30:00.000Z' }],
  ] as [string, Partial<SignedSignInFields>][])('refuses a signed message whose %s differs from the issued one (%j), naming the field', (field, change) => {
    expect(given(signInDecider, [issued]).when(complete({}, change))).toEqual(refused('unauthorized'));
    expect(refusalMessage([issued], complete({}, change))).toMatch(new RegExp(`not the one issued: ${field}: `));
  });

  it('accepts the network wallet chain as the Chain ID in place of the issued CAIP-2 id (a wallet signing in on the chain it was discovered with)', () => {
    expect(given(signInDecider, [issued]).when(complete({}, { chainId: 'solana:devnet' }))).toEqual(decided(completed));
    expect(refusalMessage([issued], complete({ walletChain: 'solana:localnet' }, { chainId: 'solana:devnet' }))).toMatch(
      'chainId: the signed message says "solana:devnet", the issued one "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" (or the network\'s wallet chain "solana:localnet")',
    );
  });

  it('accepts a wallet that shortens the validity or sets its own issue time within the window, or a past notBefore', () => {
    const s = given(signInDecider, [issued]);
    expect(s.when(complete({}, { issuedAt: '2025-03-14T09:27:00Z', expirationTime: '2025-03-14T09:30:00Z', notBefore: '2025-03-14T09:27:00Z' }))).toEqual(decided(completed));
    expect(s.when(complete({}, { issuedAt: '2025-03-14T10:26:53+01:00' }))).toEqual(decided(completed));
  });

  it('refuses an expired nonce with unauthorized, from the instant the issued or the signed expiry passes', () => {
    expect(given(signInDecider, [issued]).when(complete({ now: Date.parse(ISSUED.expiresAt) }))).toEqual(refused('unauthorized'));
    expect(given(signInDecider, [issued]).when(complete({ now: Date.parse('2025-03-14T09:30:00Z') }, { expirationTime: '2025-03-14T09:30:00Z' }))).toEqual(refused('unauthorized'));
  });

  it('refuses a signature that does not verify with invalid_signature', () => {
    expect(given(signInDecider, [issued]).when(complete({ signatureValid: false }))).toEqual(refused('invalid_signature'));
  });

  it('checks unknown → used → field → expiry (all unauthorized) before the signature (invalid_signature)', () => {
    const bad = complete({ now: Date.parse(ISSUED.expiresAt) + 1, signatureValid: false }, { domain: 'evil.example.com' });
    // Every rule broken at once: the nonce check wins; then each fix reveals the next rule.
    expect(given(signInDecider).when(bad)).toEqual(refused('unauthorized'));
    expect(given(signInDecider, [issued, completed]).when(bad)).toEqual(refused('unauthorized'));
    expect(refusalMessage([issued], bad)).toMatch(/domain/);
    // An expired nonce with a bad signature says unauthorized, not invalid_signature.
    expect(given(signInDecider, [issued]).when({ ...bad, signed: SIGNED })).toEqual(refused('unauthorized'));
    expect(given(signInDecider, [issued]).when({ ...bad, signed: SIGNED, now: complete().now })).toEqual(refused('invalid_signature'));
  });

  it('folds the nonce as issued and used', () => {
    expect(given(signInDecider, [issued, completed]).state).toEqual({ issued: ISSUED, used: true });
  });
});

describe('sign-in decider: re-authentication nonces', () => {
  const reauth = (over: Partial<CompleteSignInWithNonce> = {}) => complete({ purpose: 'reauthenticate', ...over }, { statement: 'Confirm a sensitive change.' });

  it('completes a re-authentication of the session the nonce was issued to', () => {
    expect(given(signInDecider, [reauthIssued]).when(reauth())).toEqual(decided(completed));
  });

  it('refuses a sign-in nonce used to re-authenticate, and a re-authentication nonce used to sign in, with unauthorized', () => {
    expect(refusalMessage([issued], reauth())).toMatch(/issued for a sign-in/);
    expect(given(signInDecider, [issued]).when(reauth())).toEqual(refused('unauthorized'));
    expect(given(signInDecider, [reauthIssued]).when(complete({}, { statement: 'Confirm a sensitive change.' }))).toEqual(refused('unauthorized'));
  });

  it('refuses a re-authentication nonce of another session with unauthorized', () => {
    expect(given(signInDecider, [reauthIssued]).when(reauth({ sessionId: '5b0e9c1d-2f3a-4b5c-8d6e-7f8091a2b3c4' }))).toEqual(refused('unauthorized'));
  });

  it('refuses the sign-in statement on a re-authentication nonce (the statements are distinct) with unauthorized', () => {
    expect(given(signInDecider, [reauthIssued]).when({ ...reauth(), signed: SIGNED })).toEqual(refused('unauthorized'));
    expect(refusalMessage([reauthIssued], { ...reauth(), signed: SIGNED })).toMatch(/statement/);
  });
});
