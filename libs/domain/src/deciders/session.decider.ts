/** Stream `session-<id>`: a dashboard session, opened by a sign-in and ended by logout (spec §5). */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { DashboardSessionStartedData, EventOf } from '../events';

export type SessionEvent = EventOf<'DashboardSessionStarted'> | EventOf<'DashboardSessionEnded'>;

export interface SessionState {
  started: DashboardSessionStartedData | null;
  ended: boolean;
}

export type SessionCommand =
  | { kind: 'StartSession'; session: DashboardSessionStartedData }
  | { kind: 'EndSession'; reason: 'logout' | 'expired' };

export const sessionDecider: Decider<SessionCommand, SessionEvent, SessionState> = {
  eventTypes: ['DashboardSessionStarted', 'DashboardSessionEnded'],
  initialState: { started: null, ended: false },
  evolve(state, event) {
    switch (event.type) {
      case 'DashboardSessionStarted':
        return { ...state, started: event.data };
      case 'DashboardSessionEnded':
        return { ...state, ended: true };
    }
  },
  /**
   * Ending an ended session is a no-op (logout is idempotent).
   * @throws DomainError internal_error when a session id is reused (ids are random UUIDs); not_found (404) when
   *   ending a session that never started.
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
    }
  },
};
