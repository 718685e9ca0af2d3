import type { ReadStore } from '@svc/read-store';
import { COLLECTIONS, type DomainVerificationDoc, type ShardDoc } from './read-models';
import { defineProjection } from './define-projection';
import { isoFromUnix } from './time';

const verifications = (store: ReadStore) => store.collection<DomainVerificationDoc>(COLLECTIONS.domainVerifications);
const shards = (store: ReadStore) => store.collection<ShardDoc>(COLLECTIONS.shards);

/** Domain verifications of organizations (docs/api.md "Domains"), by id and by organization. */
export const domainVerificationsProjection = defineProjection({
  name: 'domain-verifications',
  version: 1,
  indexes: { [COLLECTIONS.domainVerifications]: [{ fields: { organizationId: 1, startedAt: -1 } }] },
  handlers: {
    DomainVerificationStarted: async ({ data: d }, store) => {
      await verifications(store).replaceOne({
        _id: d.verificationId,
        verificationId: d.verificationId,
        organizationId: d.organizationId,
        domain: d.domain,
        status: 'pending',
        recordName: d.recordName,
        recordValue: d.recordValue,
        startedBy: d.startedBy,
        startedAt: d.startedAt,
        checkBefore: d.checkBefore,
        verifiedAt: null,
        expiresAt: null,
        revokedAt: null,
      });
    },
    DomainVerified: async ({ data: d }, store) => {
      await verifications(store).updateOne({ _id: d.verificationId }, { $set: { status: 'verified', verifiedAt: d.verifiedAt, expiresAt: d.expiresAt } });
    },
    DomainVerificationRevoked: async ({ data: d, metadata }, store) => {
      await verifications(store).updateOne({ _id: d.verificationId }, { $set: { status: 'revoked', revokedAt: metadata.occurredAt } });
    },
  },
});

/** Capacity shards of organizations (docs/protocol.md "Shard record"). */
export const shardsProjection = defineProjection({
  name: 'shards',
  version: 1,
  indexes: { [COLLECTIONS.shards]: [{ fields: { organizationId: 1 } }] },
  handlers: {
    ShardSynced: async ({ data: d, metadata }, store) => {
      await shards(store).replaceOne({
        _id: d.shard,
        shard: d.shard,
        organizationId: d.organizationId,
        organization: d.organization,
        operator: d.operator,
        creationSignature: d.creationSignature,
        slot: d.slot,
        createdAt: isoFromUnix(d.blockTime),
        balanceLamports: d.balanceLamports,
        rentExemptLamports: d.rentExemptLamports,
        syncedAt: metadata.occurredAt,
      });
    },
  },
});
