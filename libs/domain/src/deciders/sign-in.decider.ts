/**
 * Stream `signin-<nonce>`: a wallet sign-in nonce, usable once (spec §5, docs/api.md "Dashboard sign-in").
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { EventOf, SignInChallengeIssuedData } from '../events';

export type SignInEvent = EventOf<'SignInChallengeIssued'> | EventOf<'SignInCompleted'>;

export interface SignInState {
  issued: SignInChallengeIssuedData | null;
  used: boolean;
}

/** Records a freshly issued nonce. The nonce is random: an existing stream is a collision. */
export interface IssueSignInNonce {
  kind: 'IssueSignInNonce';
  issued: SignInChallengeIssuedData;
}

/**
 * Completes a sign-in with a signed message. Facts computed by the caller before deciding:
 * `signatureValid` (Ed25519 over the signed message, strict verification) and the session id to open.
 */
export interface CompleteSignInWithNonce {
  kind: 'CompleteSignInWithNonce';
  address: string;
  signedMessage: string;
  signatureValid: boolean;
  sessionId: string;
  /** Decision time, Unix milliseconds. */
  now: number;
}

export type SignInCommand = IssueSignInNonce | CompleteSignInWithNonce;

export const signInDecider: Decider<SignInCommand, SignInEvent, SignInState> = {
  eventTypes: ['SignInChallengeIssued', 'SignInCompleted'],
  initialState: { issued: null, used: false },
  evolve(state, event) {
    switch (event.type) {
      case 'SignInChallengeIssued':
        return { ...state, issued: event.data };
      case 'SignInCompleted':
        return { ...state, used: true };
    }
  },
  /**
   * @throws DomainError nonce_unavailable (503: the nonce exists), unauthorized (401: unknown, used or expired
   *   nonce, or a message other than the one issued to this address), invalid_signature (400).
   */
  decide(command, state) {
    switch (command.kind) {
      case 'IssueSignInNonce':
        if (state.issued) throw new DomainError('nonce_unavailable', 'could not allocate a sign-in nonce; retry');
        return [{ type: 'SignInChallengeIssued', data: command.issued }];
      case 'CompleteSignInWithNonce': {
        const issued = state.issued;
        if (!issued) throw new DomainError('unauthorized', 'unknown sign-in nonce');
        if (state.used) throw new DomainError('unauthorized', 'this sign-in nonce was already used');
        if (issued.message !== command.signedMessage || issued.address !== command.address) {
          throw new DomainError('unauthorized', 'the signed message is not the one issued for this address');
        }
        if (Date.parse(issued.expiresAt) <= command.now) throw new DomainError('unauthorized', 'the sign-in nonce expired; start again');
        if (!command.signatureValid) throw new DomainError('invalid_signature', 'signature: does not verify for this address and message');
        return [{ type: 'SignInCompleted', data: { nonce: issued.nonce, address: command.address, sessionId: command.sessionId, signedAt: new Date(command.now).toISOString() } }];
      }
    }
  },
};
