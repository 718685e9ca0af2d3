import type { ReadStore } from '@svc/read-store';
import { COLLECTIONS, type MembershipDoc } from './read-models';
import { defineProjection } from './define-projection';

const memberships = (store: ReadStore) => store.collection<MembershipDoc>(COLLECTIONS.memberships);

/**
 * Who belongs to which organization (the owner and the active members of its member records), indexed by member:
 * `GET /v1/organizations` lists a wallet's organizations with one indexed read.
 */
export const membershipsProjection = defineProjection({
  name: 'memberships',
  version: 1,
  indexes: { [COLLECTIONS.memberships]: [{ fields: { member: 1 } }, { fields: { organizationId: 1 } }] },
  handlers: {
    OrganizationSynced: async ({ data: d }, store) => {
      await memberships(store).replaceOne({ _id: `${d.organizationId}:${d.authority}`, organizationId: d.organizationId, member: d.authority, roles: ['owner', 'admin', 'publisher'] });
    },
    MemberChanged: async ({ data: d }, store) => {
      const _id = `${d.organizationId}:${d.member}`;
      if (d.active) await memberships(store).replaceOne({ _id, organizationId: d.organizationId, member: d.member, roles: [...d.roles] });
      else await memberships(store).deleteMany({ _id });
    },
  },
});
