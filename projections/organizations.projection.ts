import type { ReadStore } from '@svc/read-store';
import { COLLECTIONS, DEFAULT_SETTINGS, type OrganizationDoc } from './read-models';
import { defineProjection } from './define-projection';
import { isoFromUnix } from './time';

const organizations = (store: ReadStore) => store.collection<OrganizationDoc>(COLLECTIONS.organizations);

/** Organizations synced from the ledger, with members and settings. */
export const organizationsProjection = defineProjection({
  name: 'organizations',
  version: 2,
  retiredCollections: ['organizations_v1'],
  indexes: {
    [COLLECTIONS.organizations]: [
      { fields: { address: 1 }, unique: true },
      { fields: { authority: 1 } },
      { fields: { domain: 1 }, sparse: true },
      { fields: { verifiedDomain: 1 }, sparse: true },
    ],
  },
  handlers: {
    OrganizationSynced: async ({ data: d, metadata }, store) => {
      await organizations(store).replaceOne({
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
        syncedAt: metadata.occurredAt,
        refreshedAt: null,
      });
    },
    OrganizationRefreshed: async ({ data: d, metadata }, store) => {
      await organizations(store).updateOne({ _id: d.organizationId }, { $set: { refreshedAt: metadata.occurredAt } });
    },
    OrganizationSettingsChanged: async ({ data: d }, store) => {
      await organizations(store).updateOne({ _id: d.organizationId }, { $set: { settings: d.settings } });
    },
    MemberChanged: async ({ data: d }, store) => {
      const org = await organizations(store).findOne({ _id: d.organizationId });
      if (!org) return;
      const old = org.members.find((m) => m.address === d.member);
      const others = org.members.filter((m) => m.address !== d.member);
      const members = d.active ? [...others, { address: d.member, roles: [...d.roles], label: old?.label ?? null }] : others;
      await organizations(store).updateOne({ _id: d.organizationId }, { $set: { members } });
    },
    MemberLabelSet: async ({ data: d }, store) => {
      const org = await organizations(store).findOne({ _id: d.organizationId });
      if (!org) return;
      const members = org.members.map((m) => (m.address === d.member ? { ...m, label: d.label } : m));
      await organizations(store).updateOne({ _id: d.organizationId }, { $set: { members } });
    },
    DomainVerified: async ({ data: d }, store) => {
      await organizations(store).updateOne({ _id: d.organizationId }, { $set: { verifiedDomain: d.domain, verifiedDomainExpiresAt: d.expiresAt } });
    },
    DomainVerificationRevoked: async ({ data: d }, store) => {
      await organizations(store).updateOne({ _id: d.organizationId, verifiedDomain: d.domain }, { $set: { verifiedDomain: null, verifiedDomainExpiresAt: null } });
    },
  },
});
