import type { DomainEvent } from '@svc/domain';
import type { StoredEvent } from '@svc/event-store';
import type { Projection, ReadStore } from '@svc/read-store';
import { COLLECTIONS, DEFAULT_SETTINGS, type OrganizationDoc } from './read-models';
import { isoFromUnix } from './time';

/** Organizations synced from the ledger, with members and settings. */
export const organizationsProjection: Projection = {
  name: 'organizations',
  version: 1,
  eventTypes: ['OrganizationSynced', 'OrganizationRefreshed'],
  indexes: {
    [COLLECTIONS.organizations]: [
      { fields: { address: 1 }, unique: true },
      { fields: { authority: 1 } },
      { fields: { domain: 1 }, sparse: true },
    ],
  },
  async handle(stored: StoredEvent, store: ReadStore): Promise<void> {
    const event = stored as unknown as DomainEvent & { metadata: StoredEvent['metadata'] };
    const organizations = store.collection<OrganizationDoc>(COLLECTIONS.organizations);
    switch (event.type) {
      case 'OrganizationSynced': {
        const d = event.data;
        await organizations.replaceOne({
          _id: d.organizationId,
          organizationId: d.organizationId,
          address: d.address,
          name: d.name,
          domain: d.domain,
          authority: d.authority,
          members: [{ address: d.authority, roles: ['owner', 'admin', 'publisher'], label: null }],
          settings: DEFAULT_SETTINGS,
          creationSignature: d.creationSignature,
          slot: d.slot,
          createdAt: isoFromUnix(d.blockTime),
          syncedAt: stored.metadata.occurredAt,
          refreshedAt: null,
        });
        return;
      }
      case 'OrganizationRefreshed':
        await organizations.updateOne({ _id: event.data.organizationId }, { $set: { refreshedAt: stored.metadata.occurredAt } });
        return;
      default:
        return;
    }
  },
};
