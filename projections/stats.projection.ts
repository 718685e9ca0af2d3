import { acceptanceStreamParts } from '@svc/domain';
import type { ReadStore } from '@svc/read-store';
import { defineProjection } from './define-projection';
import {
  COLLECTIONS,
  type AcceptanceStatDoc,
  type SignerStatDoc,
  type StatsDocumentDoc,
  type StatsVersionDoc,
} from './read-models';

const documents = (store: ReadStore) => store.collection<StatsDocumentDoc>(COLLECTIONS.statsDocuments);
const versions = (store: ReadStore) => store.collection<StatsVersionDoc>(COLLECTIONS.statsVersions);
const perDay = (store: ReadStore) => store.collection<AcceptanceStatDoc>(COLLECTIONS.acceptanceStats);
const signers = (store: ReadStore) => store.collection<SignerStatDoc>(COLLECTIONS.signerStats);

/** Whether the outcome at `position` is already in `doc`: outcomes are applied in log order, so one at or below the last counted is. */
function countedIn(doc: { position: string } | null, position: bigint): boolean {
  return doc !== null && BigInt(doc.position) >= position;
}

/**
 * Counters behind `GET /v1/organizations/{orgId}/stats` (docs/api.md "Stats"): acceptances confirmed on the ledger
 * per document version and UTC day with their fees, and one document per signer.
 *
 * Only the relay outcome is read per acceptance: its stream names the version and the signer
 * (`acceptance-<version>-<signer>`), and the version's document and organization come from the few versions and
 * documents this projection keeps. Each outcome counts once: every counter document records the log position of
 * the last outcome counted into it, so an outcome delivered again after a crash (on a store without transactions)
 * changes none of the documents it already reached, and still reaches those it had not.
 */
export const statsProjection = defineProjection({
  name: 'stats',
  version: 2,
  retiredCollections: ['acceptance_stats_v1', 'signer_stats_v1', 'stats_pending_v1'],
  indexes: {
    [COLLECTIONS.statsDocuments]: [],
    [COLLECTIONS.statsVersions]: [],
    [COLLECTIONS.acceptanceStats]: [{ fields: { organizationId: 1, day: 1 } }],
    [COLLECTIONS.signerStats]: [{ fields: { organizationId: 1 } }],
  },
  handlers: {
    DocumentSynced: async ({ data: d }, store) => {
      await documents(store).replaceOne({ _id: d.documentId, slug: d.slug });
    },
    VersionPublished: async ({ data: d }, store) => {
      const document = await documents(store).findOne({ _id: d.documentId });
      if (!document) return; // a document is synced before any version of it is published
      await versions(store).replaceOne({ _id: d.versionAddress, organizationId: d.organizationId, documentId: d.documentId, documentSlug: document.slug, versionNumber: d.number });
    },
    AcceptanceRelayed: async ({ data: d, metadata, streamId, position }, store) => {
      const parts = acceptanceStreamParts(streamId);
      const version = parts && (await versions(store).findOne({ _id: parts.versionAddress }));
      if (!parts || !version) return;
      const at = d.blockTime === null ? metadata.occurredAt : new Date(d.blockTime * 1000).toISOString();
      const day = at.slice(0, 10);
      const { organizationId, documentId, documentSlug, versionNumber } = version;
      const counted = position.toString();
      const dayId = `${organizationId}:${parts.versionAddress}:${day}`;
      const dayDoc = await perDay(store).findOne({ _id: dayId });
      if (!countedIn(dayDoc, position)) {
        await perDay(store).replaceOne({
          _id: dayId,
          organizationId,
          documentId,
          documentSlug,
          versionAddress: parts.versionAddress,
          versionNumber,
          day,
          acceptances: (dayDoc?.acceptances ?? 0) + 1,
          feeLamports: (dayDoc?.feeLamports ?? 0) + d.feeLamports,
          position: counted,
        });
      }
      const signerId = `${organizationId}:${parts.signer}`;
      const signerDoc = await signers(store).findOne({ _id: signerId });
      if (!countedIn(signerDoc, position)) {
        await signers(store).replaceOne({
          _id: signerId,
          organizationId,
          signer: parts.signer,
          acceptances: (signerDoc?.acceptances ?? 0) + 1,
          firstAcceptedAt: signerDoc?.firstAcceptedAt ?? at,
          lastAcceptedAt: at,
          position: counted,
        });
      }
    },
  },
});
