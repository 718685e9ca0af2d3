/**
 * Sign-in nonce stream (spec §5; docs/api.md "Dashboard sign-in"): a nonce is issued once and used once;
 * refusals in the order they are checked.
 */
import type { EventOf, SignInChallengeIssuedData } from '../events';
import { A } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import { signInDecider, type CompleteSignInWithNonce } from './sign-in.decider';

const NONCE = '9f2b7c41d0e84a6b8c3d5e7f1a2b3c4d';
const MESSAGE = [
  'app.example.com wants you to sign in with your Solana account:',
  A.authority,
  '',
  'Sign in to the agreement evidence dashboard.',
  '',
  'URI: https://app.example.com',
  'Version: 1',
  'Chain ID: devnet',
  `Nonce: ${NONCE}`,
  'Issued At: 2025-03-14T09:26:53Z',
  'Expiration Time: 2025-03-14T09:36:53Z',
].join('\n');
const ISSUED: SignInChallengeIssuedData = {
  nonce: NONCE,
  address: A.authority,
  message: MESSAGE,
  issuedAt: '2025-03-14T09:26:53.000Z',
  expiresAt: '2025-03-14T09:36:53.000Z',
};
const issued: EventOf<'SignInChallengeIssued'> = { type: 'SignInChallengeIssued', data: ISSUED };
const completed: EventOf<'SignInCompleted'> = {
  type: 'SignInCompleted',
  data: { nonce: NONCE, address: A.authority, sessionId: A.sessionId, signedAt: '2025-03-14T09:27:30.000Z' },
};

const complete = (over: Partial<CompleteSignInWithNonce> = {}): CompleteSignInWithNonce => ({
  kind: 'CompleteSignInWithNonce',
  address: A.authority,
  signedMessage: MESSAGE,
  signatureValid: true,
  sessionId: A.sessionId,
  now: Date.parse('2025-03-14T09:27:30.000Z'),
  ...over,
});

describe('sign-in decider: issuing a nonce', () => {
  it('records a fresh nonce', () => {
    expect(given(signInDecider).when({ kind: 'IssueSignInNonce', issued: ISSUED })).toEqual(decided(issued));
  });

  it('refuses a nonce that exists already (a collision) with nonce_unavailable', () => {
    expect(given(signInDecider, [issued]).when({ kind: 'IssueSignInNonce', issued: ISSUED })).toEqual(refused('nonce_unavailable'));
  });
});

describe('sign-in decider: completing a sign-in', () => {
  it('opens the session when the issued message is signed before it expires', () => {
    expect(given(signInDecider, [issued]).when(complete())).toEqual(decided(completed));
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

  it('refuses a message other than the one issued, or the right message from another address, with unauthorized', () => {
    const s = given(signInDecider, [issued]);
    expect(s.when(complete({ signedMessage: MESSAGE.replace('Version: 1', 'Version: 2') }))).toEqual(refused('unauthorized'));
    expect(s.when(complete({ address: A.stranger }))).toEqual(refused('unauthorized'));
  });

  it('refuses an expired nonce with unauthorized, from the instant it expires', () => {
    expect(given(signInDecider, [issued]).when(complete({ now: Date.parse(ISSUED.expiresAt) }))).toEqual(refused('unauthorized'));
  });

  it('refuses a signature that does not verify with invalid_signature', () => {
    expect(given(signInDecider, [issued]).when(complete({ signatureValid: false }))).toEqual(refused('invalid_signature'));
  });

  it('checks unknown → used → message → expiry (all unauthorized) before the signature (invalid_signature)', () => {
    const bad = complete({ signedMessage: 'something else', now: Date.parse(ISSUED.expiresAt) + 1, signatureValid: false });
    // Every rule broken at once: the nonce check wins; then each fix reveals the next rule.
    expect(given(signInDecider).when(bad)).toEqual(refused('unauthorized'));
    expect(given(signInDecider, [issued, completed]).when(bad)).toEqual(refused('unauthorized'));
    expect(given(signInDecider, [issued]).when(bad)).toEqual(refused('unauthorized'));
    // An expired nonce with a bad signature says unauthorized, not invalid_signature.
    expect(given(signInDecider, [issued]).when({ ...bad, signedMessage: MESSAGE })).toEqual(refused('unauthorized'));
    expect(given(signInDecider, [issued]).when({ ...bad, signedMessage: MESSAGE, now: complete().now })).toEqual(refused('invalid_signature'));
  });

  it('folds the nonce as issued and used', () => {
    expect(given(signInDecider, [issued, completed]).state).toEqual({ issued: ISSUED, used: true });
  });
});
