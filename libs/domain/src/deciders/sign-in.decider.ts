/**
 * Stream `signin-<nonce>`: a nonce for a wallet's sign-in message, usable once, issued to open a session or to
 * re-authenticate one (spec §5, docs/api.md "Dashboard sign-in" and "Re-authentication").
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { EventOf, SignInChallengeIssuedData } from '../events';
import { signedFieldsMismatch, type SignedSignInFields } from './sign-in-fields';

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
 * Uses a nonce: completes a sign-in (`purpose: 'sign_in'`, opening session `sessionId`) or a re-authentication
 * (`purpose: 'reauthenticate'` of the session `sessionId` the nonce was issued to). Facts computed by the caller
 * before deciding: the fields parsed from the wallet's signed message, and `signatureValid` (Ed25519 over the
 * exact signed bytes, strict verification, docs/protocol.md §13).
 */
export interface CompleteSignInWithNonce {
  kind: 'CompleteSignInWithNonce';
  purpose: 'sign_in' | 'reauthenticate';
  /** The wallet that signs: the request's address (sign-in) or the session's (re-authentication). */
  address: string;
  signed: SignedSignInFields;
  /** The network's Wallet Standard chain, accepted as the signed Chain ID in place of the issued CAIP-2 id. */
  walletChain: string;
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
   * Refusals in this order: unknown nonce, used nonce, nonce issued for another purpose or session, a signed
   * field that differs from the issued message (the message names the field, `signedFieldsMismatch`), expired
   * (the issued expiry or the signed one, whichever is first), then the signature.
   * @throws DomainError nonce_unavailable (503: the nonce exists), unauthorized (401: unknown, used or expired
   *   nonce; a nonce of another purpose or session; a message that differs from the one issued to this address),
   *   invalid_signature (400).
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
        if (issued.purpose !== command.purpose) {
          throw new DomainError('unauthorized', issued.purpose === 'sign_in' ? 'this nonce was issued for a sign-in, not a re-authentication' : 'this nonce was issued for a re-authentication, not a sign-in');
        }
        if (issued.purpose === 'reauthenticate' && issued.sessionId !== command.sessionId) {
          throw new DomainError('unauthorized', 'this re-authentication nonce was issued to another session');
        }
        if (issued.address !== command.address) throw new DomainError('unauthorized', `address: the nonce was issued to ${issued.address}`);
        const mismatch = signedFieldsMismatch(issued, command.signed, command.now, command.walletChain);
        if (mismatch) throw new DomainError('unauthorized', `the signed message is not the one issued: ${mismatch}`);
        const expiry = Math.min(Date.parse(issued.expiresAt), Date.parse(command.signed.expirationTime!));
        if (expiry <= command.now) throw new DomainError('unauthorized', 'the sign-in nonce expired; start again');
        if (!command.signatureValid) throw new DomainError('invalid_signature', 'signature: does not verify for this address and message');
        return [{ type: 'SignInCompleted', data: { nonce: issued.nonce, address: command.address, sessionId: command.sessionId, signedAt: new Date(command.now).toISOString() } }];
      }
    }
  },
};
