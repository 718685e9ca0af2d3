/**
 * Stream `acceptancesession-<id>`: a single-use acceptance session opened by an organization's server for one
 * page view (spec §2.4, §4.5). Presented with a challenge, it links the acceptance to the organization's user
 * (`externalUserRef`, off the ledger); the submission that records the acceptance claims it first, with the
 * stream's expected revision, so of two submissions racing on one session exactly one is recorded.
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { AcceptanceSessionCreatedData, EventOf } from '../events';

export type AcceptanceSessionEvent = EventOf<'AcceptanceSessionCreated'> | EventOf<'AcceptanceSessionConsumed'> | EventOf<'AcceptanceSessionReleased'>;

export interface AcceptanceSessionState {
  created: AcceptanceSessionCreatedData | null;
  /** The acceptance that used the session up, or null while it is unused. */
  consumedBy: string | null;
}

export type AcceptanceSessionCommand =
  | { kind: 'CreateAcceptanceSession'; session: AcceptanceSessionCreatedData }
  | { kind: 'ConsumeAcceptanceSession'; acceptanceId: string; challengeId: string }
  | { kind: 'ReleaseAcceptanceSession'; acceptanceId: string };

/** What a challenge presents a session for: when, and for which organization and document. */
export interface SessionUse {
  /** Unix milliseconds. */
  now: number;
  organization: string;
  document: string;
}

/**
 * Why a session cannot be presented with a challenge, or null when it can (the messages name the reason, spec §4.5).
 * A session's expiry counts at challenge time; the challenge's own validity window covers the signing after it.
 */
export function sessionRefusal(state: AcceptanceSessionState, use: SessionUse): string | null {
  const session = state.created;
  if (!session) return 'unknown acceptance session';
  if (state.consumedBy !== null) return 'the acceptance session was already used';
  if (Date.parse(session.expiresAt) <= use.now) return 'the acceptance session expired';
  if (session.organization !== use.organization) return 'the acceptance session belongs to another organization';
  if (session.document !== null && session.document !== use.document) return 'the acceptance session was opened for another document';
  return null;
}

export const acceptanceSessionDecider: Decider<AcceptanceSessionCommand, AcceptanceSessionEvent, AcceptanceSessionState> = {
  eventTypes: ['AcceptanceSessionCreated', 'AcceptanceSessionConsumed', 'AcceptanceSessionReleased'],
  initialState: { created: null, consumedBy: null },
  evolve(state, event) {
    switch (event.type) {
      case 'AcceptanceSessionCreated':
        return { created: event.data, consumedBy: null };
      case 'AcceptanceSessionConsumed':
        return { ...state, consumedBy: event.data.acceptanceId };
      case 'AcceptanceSessionReleased':
        return state.consumedBy === event.data.acceptanceId ? { ...state, consumedBy: null } : state;
    }
  },
  /**
   * Consuming twice for the same acceptance, and releasing a session the acceptance does not hold, decide nothing.
   * @throws DomainError forbidden (403: consuming an unknown session, or one another acceptance used up),
   *   internal_error when a new session's id is taken (random UUIDs).
   */
  decide(command, state) {
    switch (command.kind) {
      case 'CreateAcceptanceSession':
        if (state.created) throw new DomainError('internal_error', 'acceptance session id already in use');
        return [{ type: 'AcceptanceSessionCreated', data: command.session }];
      case 'ConsumeAcceptanceSession':
        if (!state.created) throw new DomainError('forbidden', 'unknown acceptance session');
        if (state.consumedBy === command.acceptanceId) return [];
        if (state.consumedBy !== null) throw new DomainError('forbidden', 'the acceptance session was already used by another acceptance');
        return [{ type: 'AcceptanceSessionConsumed', data: { acceptanceSessionId: state.created.acceptanceSessionId, acceptanceId: command.acceptanceId, challengeId: command.challengeId } }];
      case 'ReleaseAcceptanceSession':
        if (!state.created || state.consumedBy !== command.acceptanceId) return [];
        return [{ type: 'AcceptanceSessionReleased', data: { acceptanceSessionId: state.created.acceptanceSessionId, acceptanceId: command.acceptanceId } }];
    }
  },
};
