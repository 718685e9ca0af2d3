import type { ReadStore } from '@svc/read-store';
import { COLLECTIONS, type AcceptanceStatDoc, type SignerStatDoc, type StatsPendingDoc } from './read-models';
import { defineProjection } from './define-projection';

const pending = (store: ReadStore) => store.collection<StatsPendingDoc>(COLLECTIONS.statsPending);
const perDay = (store: ReadStore) => store.collection<AcceptanceStatDoc>(COLLECTIONS.acceptanceStats);
const signers = (store: ReadStore) => store.collection<SignerStatDoc>(COLLECTIONS.signerStats);

/**
 * Counters behind `GET /v1/organizations/{orgId}/stats` (docs/api.md "Stats"): acceptances confirmed on the ledger
 * per document version and UTC day with their fees, and one document per signer. A submission is remembered until
 * its relay outcome; the outcome is counted once (the pending record is marked before the counters move, so a
 * replayed outcome counts nothing).
 */
export const statsProjection = defineProjection({
  name: 'stats',
  version: 1,
  indexes: {
    [COLLECTIONS.statsPending]: [],
    [COLLECTIONS.acceptanceStats]: [{ fields: { organizationId: 1, day: 1 } }],
    [COLLECTIONS.signerStats]: [{ fields: { organizationId: 1 } }],
  },
  handlers: {
    AcceptanceSubmitted: async ({ data: d }, store) => {
      if (await pending(store).findOne({ _id: d.acceptanceId })) return;
      await pending(store).replaceOne({
        _id: d.acceptanceId,
        organizationId: d.organizationId,
        documentId: d.documentId,
        documentSlug: d.documentSlug,
        versionAddress: d.versionAddress,
        versionNumber: d.versionNumber,
        signer: d.signer,
        counted: false,
      });
    },
    AcceptanceRelayed: async ({ data: d, metadata }, store) => {
      const p = await pending(store).findOne({ _id: d.acceptanceId });
      // A projection's handlers run one at a time, so the record just read is still the stored one: marking it by
      // `_id` alone is the same test-and-set as a filter on `counted`, without a query to match in memory.
      if (!p || p.counted) return;
      await pending(store).updateOne({ _id: d.acceptanceId }, { $set: { counted: true } });
      const at = d.blockTime === null ? metadata.occurredAt : new Date(d.blockTime * 1000).toISOString();
      const day = at.slice(0, 10);
      await perDay(store).updateOne(
        { _id: `${p.organizationId}:${p.versionAddress}:${day}` },
        {
          $set: { organizationId: p.organizationId, documentId: p.documentId, documentSlug: p.documentSlug, versionAddress: p.versionAddress, versionNumber: p.versionNumber, day },
          $inc: { acceptances: 1, feeLamports: d.feeLamports },
        },
        { upsert: true },
      );
      const id = `${p.organizationId}:${p.signer}`;
      const known = await signers(store).findOne({ _id: id });
      await signers(store).updateOne(
        { _id: id },
        { $set: { organizationId: p.organizationId, signer: p.signer, firstAcceptedAt: known?.firstAcceptedAt ?? at, lastAcceptedAt: at }, $inc: { acceptances: 1 } },
        { upsert: true },
      );
    },
  },
});
