/** Acceptance sessions (spec §2.4, §4.5): usable once, for their organization and document, until they expire. */
import type { AcceptanceSessionCreatedData, EventOf } from '../events';
import { A, HEX } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import { acceptanceSessionDecider, sessionRefusal, type AcceptanceSessionEvent } from './acceptance-session.decider';

const SESSION_ID = '7d1e5c3b-9a2f-4e8d-b6c4-1a2b3c4d5e6f';
const SESSION: AcceptanceSessionCreatedData = {
  acceptanceSessionId: SESSION_ID,
  organizationId: A.orgId,
  organization: A.org,
  document: A.doc,
  externalUserRef: 'user-42',
  tokenHash: '2e'.repeat(32),
  createdAt: '2025-03-14T09:20:00.000Z',
  expiresAt: '2025-03-14T09:35:00.000Z',
  keyId: '0c5bd3a4-2f8e-4a61-9d7b-3e2f1a0b9c8d',
};
const created: EventOf<'AcceptanceSessionCreated'> = { type: 'AcceptanceSessionCreated', data: SESSION };
const consumed = (acceptanceId: string): EventOf<'AcceptanceSessionConsumed'> => ({
  type: 'AcceptanceSessionConsumed',
  data: { acceptanceSessionId: SESSION_ID, acceptanceId, challengeId: A.challengeId },
});
const released = (acceptanceId: string): EventOf<'AcceptanceSessionReleased'> => ({ type: 'AcceptanceSessionReleased', data: { acceptanceSessionId: SESSION_ID, acceptanceId } });
const consume = (acceptanceId: string) => ({ kind: 'ConsumeAcceptanceSession', acceptanceId, challengeId: A.challengeId }) as const;
const USE = { now: Date.parse('2025-03-14T09:30:00.000Z'), organization: A.org, document: A.doc };

describe('acceptance session decider', () => {
  it('creates a session once', () => {
    expect(given(acceptanceSessionDecider).when({ kind: 'CreateAcceptanceSession', session: SESSION })).toEqual(decided(created));
    expect(given(acceptanceSessionDecider, [created]).when({ kind: 'CreateAcceptanceSession', session: SESSION })).toEqual(refused('internal_error'));
  });

  it('is used up by one acceptance; the same acceptance claiming again decides nothing', () => {
    expect(given(acceptanceSessionDecider, [created]).when(consume(HEX.acceptance1))).toEqual(decided(consumed(HEX.acceptance1)));
    expect(given(acceptanceSessionDecider, [created, consumed(HEX.acceptance1)]).when(consume(HEX.acceptance1))).toEqual(decided());
  });

  it('refuses a second acceptance, and an unknown session, with forbidden', () => {
    expect(given(acceptanceSessionDecider, [created, consumed(HEX.acceptance1)]).when(consume(HEX.acceptance2))).toEqual(refused('forbidden'));
    expect(given(acceptanceSessionDecider).when(consume(HEX.acceptance1))).toEqual(refused('forbidden'));
  });

  it('is usable again after the acceptance that claimed it releases it; other releases decide nothing', () => {
    const events = [created, consumed(HEX.acceptance1)];
    expect(given(acceptanceSessionDecider, events).when({ kind: 'ReleaseAcceptanceSession', acceptanceId: HEX.acceptance2 })).toEqual(decided());
    expect(given(acceptanceSessionDecider, events).when({ kind: 'ReleaseAcceptanceSession', acceptanceId: HEX.acceptance1 })).toEqual(decided(released(HEX.acceptance1)));
    expect(given(acceptanceSessionDecider, [...events, released(HEX.acceptance1)]).when(consume(HEX.acceptance2))).toEqual(decided(consumed(HEX.acceptance2)));
  });

  it('says why a session cannot be presented with a challenge', () => {
    const state = (...events: AcceptanceSessionEvent[]) => given(acceptanceSessionDecider, events).state;
    expect(sessionRefusal(state(created), USE)).toBeNull();
    expect(sessionRefusal(state(), USE)).toBe('unknown acceptance session');
    expect(sessionRefusal(state(created, consumed(HEX.acceptance1)), USE)).toBe('the acceptance session was already used');
    expect(sessionRefusal(state(created), { ...USE, now: Date.parse(SESSION.expiresAt) })).toBe('the acceptance session expired');
    expect(sessionRefusal(state(created), { ...USE, organization: A.otherOrg })).toBe('the acceptance session belongs to another organization');
    expect(sessionRefusal(state(created), { ...USE, document: A.otherDoc })).toBe('the acceptance session was opened for another document');
  });

  it('a session without a document works for any document of its organization', () => {
    const anyDocument: EventOf<'AcceptanceSessionCreated'> = { ...created, data: { ...SESSION, document: null } };
    expect(sessionRefusal(given(acceptanceSessionDecider, [anyDocument]).state, { ...USE, document: A.otherDoc })).toBeNull();
  });
});
