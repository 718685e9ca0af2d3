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
