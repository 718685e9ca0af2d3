/** Dashboard session stream (spec §5): started once by a sign-in, ended by logout; logout is idempotent. */
import type { DashboardSessionStartedData, EventOf } from '../events';
import { A } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import { sessionDecider } from './session.decider';

const SESSION: DashboardSessionStartedData = {
  sessionId: A.sessionId,
  address: A.authority,
  tokenHash: '3b7d9c2f4e6a8b0c1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5e6f7089a1b',
  csrfHash: 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90',
  signedAt: '2025-03-14T09:27:30.000Z',
  expiresAt: '2025-03-14T21:27:30.000Z',
};
const started: EventOf<'DashboardSessionStarted'> = { type: 'DashboardSessionStarted', data: SESSION };
const ended: EventOf<'DashboardSessionEnded'> = { type: 'DashboardSessionEnded', data: { sessionId: A.sessionId, reason: 'logout' } };

describe('session decider', () => {
  it('starts a new session', () => {
    expect(given(sessionDecider).when({ kind: 'StartSession', session: SESSION })).toEqual(decided(started));
  });

  it('refuses to start a session whose id is in use with internal_error', () => {
    expect(given(sessionDecider, [started]).when({ kind: 'StartSession', session: SESSION })).toEqual(refused('internal_error'));
  });

  it('ends a live session with the reason given', () => {
    expect(given(sessionDecider, [started]).when({ kind: 'EndSession', reason: 'logout' })).toEqual(decided(ended));
    expect(given(sessionDecider, [started]).when({ kind: 'EndSession', reason: 'expired' })).toEqual(
      decided({ type: 'DashboardSessionEnded', data: { sessionId: A.sessionId, reason: 'expired' } }),
    );
  });

  it('ending an ended session decides nothing (logout twice)', () => {
    expect(given(sessionDecider, [started, ended]).when({ kind: 'EndSession', reason: 'logout' })).toEqual(decided());
  });

  it('refuses to end a session that never started with not_found', () => {
    expect(given(sessionDecider).when({ kind: 'EndSession', reason: 'logout' })).toEqual(refused('not_found'));
  });
});

describe('session decider: re-authentication', () => {
  const NONCE = '0c1d2e3f405162738495a6b7c8d9e0f1';
  const reauthenticate = (over: { address?: string; nonce?: string; now?: number } = {}) => ({
    kind: 'Reauthenticate' as const,
    address: A.authority,
    nonce: NONCE,
    signedAt: '2025-03-14T10:00:00.000Z',
    now: Date.parse('2025-03-14T10:00:00.000Z'),
    ...over,
  });
  const reauthenticated: EventOf<'DashboardSessionReauthenticated'> = {
    type: 'DashboardSessionReauthenticated',
    data: { sessionId: A.sessionId, nonce: NONCE, signedAt: '2025-03-14T10:00:00.000Z' },
  };

  it('moves the start of the fresh-signature window', () => {
    expect(given(sessionDecider, [started]).when(reauthenticate())).toEqual(decided(reauthenticated));
    expect(given(sessionDecider, [started, reauthenticated]).state.signedAt).toBe('2025-03-14T10:00:00.000Z');
  });

  it('records a nonce once (a retry decides nothing)', () => {
    expect(given(sessionDecider, [started, reauthenticated]).when(reauthenticate())).toEqual(decided());
  });

  it('refuses a session that never started, has ended or has expired with unauthorized', () => {
    expect(given(sessionDecider).when(reauthenticate())).toEqual(refused('unauthorized'));
    expect(given(sessionDecider, [started, ended]).when(reauthenticate())).toEqual(refused('unauthorized'));
    expect(given(sessionDecider, [started]).when(reauthenticate({ now: Date.parse(SESSION.expiresAt) }))).toEqual(refused('unauthorized'));
  });

  it("refuses another wallet than the session's with unauthorized", () => {
    expect(given(sessionDecider, [started]).when(reauthenticate({ address: A.stranger }))).toEqual(refused('unauthorized'));
  });
});
