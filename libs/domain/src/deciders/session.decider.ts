/**
 * Stream `session-<id>`: a dashboard session, opened by a sign-in, renewed by re-authentications (its
 * fresh-signature window, spec §5 rule 3) and ended by logout.
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { DashboardSessionStartedData, EventOf } from '../events';

export type SessionEvent = EventOf<'DashboardSessionStarted'> | EventOf<'DashboardSessionReauthenticated'> | EventOf<'DashboardSessionEnded'>;

export interface SessionState {
  started: DashboardSessionStartedData | null;
  ended: boolean;
  /** When the wallet last signed (sign-in or re-authentication), ISO 8601. */
  signedAt: string | null;
  /** Re-authentication nonces recorded on this session. */
  reauthenticatedWith: readonly string[];
}

export type SessionCommand =
  | { kind: 'StartSession'; session: DashboardSessionStartedData }
  | { kind: 'EndSession'; reason: 'logout' | 'expired' }
  | {
      kind: 'Reauthenticate';
      /** The wallet that signed the re-authentication message. */
      address: string;
      /** The nonce used, already consumed on its own stream. */
      nonce: string;
      /** Time of the signature, ISO 8601. */
      signedAt: string;
      /** Decision time, Unix milliseconds. */
      now: number;
    };

export const sessionDecider: Decider<SessionCommand, SessionEvent, SessionState> = {
  eventTypes: ['DashboardSessionStarted', 'DashboardSessionReauthenticated', 'DashboardSessionEnded'],
  initialState: { started: null, ended: false, signedAt: null, reauthenticatedWith: [] },
  evolve(state, event) {
    switch (event.type) {
      case 'DashboardSessionStarted':
        return { ...state, started: event.data, signedAt: event.data.signedAt };
      case 'DashboardSessionReauthenticated':
        return { ...state, signedAt: event.data.signedAt, reauthenticatedWith: [...state.reauthenticatedWith, event.data.nonce] };
      case 'DashboardSessionEnded':
        return { ...state, ended: true };
    }
  },
  /**
   * Ending an ended session is a no-op (logout is idempotent); so is recording a re-authentication nonce twice.
   * @throws DomainError internal_error when a session id is reused (ids are random UUIDs); not_found (404) when
   *   ending a session that never started; unauthorized (401) when re-authenticating a session that never
   *   started, has ended or expired, or with another wallet than the session's.
   */
  decide(command, state) {
    switch (command.kind) {
      case 'StartSession':
        if (state.started) throw new DomainError('internal_error', 'session id already in use');
        return [{ type: 'DashboardSessionStarted', data: command.session }];
      case 'EndSession':
        if (!state.started) throw new DomainError('not_found', 'session not found');
        if (state.ended) return [];
        return [{ type: 'DashboardSessionEnded', data: { sessionId: state.started.sessionId, reason: command.reason } }];
      case 'Reauthenticate': {
        const started = state.started;
        if (!started) throw new DomainError('unauthorized', 'the dashboard session does not exist');
        if (state.reauthenticatedWith.includes(command.nonce)) return [];
        if (state.ended) throw new DomainError('unauthorized', 'the dashboard session has ended; sign in again');
        if (Date.parse(started.expiresAt) <= command.now) throw new DomainError('unauthorized', 'the dashboard session expired; sign in again');
        if (command.address !== started.address) throw new DomainError('unauthorized', `address: the session belongs to ${started.address}`);
        return [{ type: 'DashboardSessionReauthenticated', data: { sessionId: started.sessionId, nonce: command.nonce, signedAt: command.signedAt } }];
      }
    }
  },
};
