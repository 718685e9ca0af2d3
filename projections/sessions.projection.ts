import type { ReadStore } from '@svc/read-store';
import { COLLECTIONS, type SessionDoc } from './read-models';
import { defineProjection } from './define-projection';

const sessions = (store: ReadStore) => store.collection<SessionDoc>(COLLECTIONS.sessions);

/**
 * Dashboard sessions, looked up by the SHA-256 of the cookie value (the token itself is never stored); `signedAt`
 * is the last wallet signature (sign-in or re-authentication).
 */
export const sessionsProjection = defineProjection({
  name: 'sessions',
  version: 1,
  indexes: { [COLLECTIONS.sessions]: [{ fields: { tokenHash: 1 }, unique: true }] },
  handlers: {
    DashboardSessionStarted: async ({ data: d }, store) => {
      await sessions(store).replaceOne({
        _id: d.sessionId,
        sessionId: d.sessionId,
        address: d.address,
        tokenHash: d.tokenHash,
        csrfHash: d.csrfHash,
        signedAt: d.signedAt,
        expiresAt: d.expiresAt,
        endedAt: null,
      });
    },
    // A re-authentication moves the start of the fresh-signature window (spec §5 rule 3).
    DashboardSessionReauthenticated: async ({ data: d }, store) => {
      await sessions(store).updateOne({ _id: d.sessionId }, { $set: { signedAt: d.signedAt } });
    },
    DashboardSessionEnded: async ({ data: d, metadata }, store) => {
      await sessions(store).updateOne({ _id: d.sessionId }, { $set: { endedAt: metadata.occurredAt } });
    },
  },
});
