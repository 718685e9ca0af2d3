import type { ReadStore } from '@svc/read-store';
import { COLLECTIONS, type ApiKeyDoc } from './read-models';
import { defineProjection } from './define-projection';

const apiKeys = (store: ReadStore) => store.collection<ApiKeyDoc>(COLLECTIONS.apiKeys);

/**
 * API keys of organizations' servers (spec §5): found by the SHA-256 of a presented key on every authenticated
 * request, listed per organization on the dashboard. A revocation answers only once this read model has it
 * (the revoking command waits for it), so the next request on any replica is refused.
 */
export const apiKeysProjection = defineProjection({
  name: 'api-keys',
  version: 1,
  indexes: {
    [COLLECTIONS.apiKeys]: [{ fields: { keyHash: 1 }, unique: true }, { fields: { organizationId: 1, createdAt: -1 } }],
  },
  handlers: {
    ApiKeyCreated: async ({ data: d }, store) => {
      await apiKeys(store).replaceOne({
        _id: d.keyId,
        keyId: d.keyId,
        organizationId: d.organizationId,
        organization: d.organization,
        name: d.name,
        scopes: d.scopes,
        keyPrefix: d.keyPrefix,
        keyHash: d.keyHash,
        createdAt: d.createdAt,
        expiresAt: d.expiresAt,
        revokedAt: null,
        createdBy: d.createdBy,
      });
    },
    ApiKeyRevoked: async ({ data: d }, store) => {
      await apiKeys(store).updateOne({ _id: d.keyId }, { $set: { revokedAt: d.revokedAt } });
    },
  },
});
