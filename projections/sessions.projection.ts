import type { DomainEvent } from '@svc/domain';
import type { StoredEvent } from '@svc/event-store';
import type { Projection, ReadStore } from '@svc/read-store';
import { COLLECTIONS, type SessionDoc } from './read-models';

/** Dashboard sessions, looked up by the SHA-256 of the cookie value (the token itself is never stored). */
export const sessionsProjection: Projection = {
  name: 'sessions',
  version: 1,
  eventTypes: ['DashboardSessionStarted', 'DashboardSessionEnded'],
  indexes: { [COLLECTIONS.sessions]: [{ fields: { tokenHash: 1 }, unique: true }] },
  async handle(stored: StoredEvent, store: ReadStore): Promise<void> {
    const event = stored as unknown as DomainEvent;
    const sessions = store.collection<SessionDoc>(COLLECTIONS.sessions);
    switch (event.type) {
      case 'DashboardSessionStarted': {
        const d = event.data;
        await sessions.replaceOne({
          _id: d.sessionId,
          sessionId: d.sessionId,
          address: d.address,
          tokenHash: d.tokenHash,
          csrfHash: d.csrfHash,
          signedAt: d.signedAt,
          expiresAt: d.expiresAt,
          endedAt: null,
        });
        return;
      }
      case 'DashboardSessionEnded':
        await sessions.updateOne({ _id: event.data.sessionId }, { $set: { endedAt: stored.metadata.occurredAt } });
        return;
      default:
        return;
    }
  },
};
