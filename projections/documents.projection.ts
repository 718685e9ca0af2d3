import type { ReadStore } from '@svc/read-store';
import { COLLECTIONS, type DocumentDoc, type DraftDoc, type VersionDoc, type VersionView } from './read-models';
import { defineProjection } from './define-projection';
import { isoFromUnix } from './time';

const documents = (store: ReadStore) => store.collection<DocumentDoc>(COLLECTIONS.documents);
const versions = (store: ReadStore) => store.collection<VersionDoc>(COLLECTIONS.versions);
const drafts = (store: ReadStore) => store.collection<DraftDoc>(COLLECTIONS.drafts);

/** Documents, their published versions and drafts. */
export const documentsProjection = defineProjection({
  name: 'documents',
  version: 1,
  indexes: {
    [COLLECTIONS.documents]: [
      { fields: { address: 1 }, unique: true },
      { fields: { organizationId: 1 } },
      { fields: { organization: 1, slug: 1 } },
    ],
    [COLLECTIONS.versions]: [{ fields: { documentId: 1 } }, { fields: { document: 1 } }, { fields: { transactionSignature: 1 } }],
    // By document (its drafts; the prepared ones a publication or a challenge looks for) and by organization and
    // status (the open-draft quota), so none of these reads scans the drafts of every organization.
    [COLLECTIONS.drafts]: [{ fields: { documentId: 1 } }, { fields: { documentId: 1, status: 1 } }, { fields: { organizationId: 1, status: 1 } }],
  },
  handlers: {
    DocumentSynced: async ({ data: d }, store) => {
      const existing = await documents(store).findOne({ _id: d.documentId });
      await documents(store).replaceOne({
        _id: d.documentId,
        documentId: d.documentId,
        address: d.address,
        organizationId: d.organizationId,
        organization: d.organization,
        slug: d.slug,
        title: d.title,
        creationSignature: d.creationSignature,
        createdAt: isoFromUnix(d.blockTime),
        currentVersion: existing?.currentVersion ?? null,
      });
    },
    VersionPublished: async ({ data: d, metadata }, store) => {
      const view: VersionView = {
        address: d.versionAddress,
        number: d.number,
        label: d.label,
        title: d.title,
        fingerprint: d.fingerprint,
        contentHash: d.contentHash,
        effectiveAt: d.effectiveAt,
        transactionSignature: d.transactionSignature,
        slot: d.slot,
        publishedAt: isoFromUnix(d.blockTime) ?? metadata.occurredAt,
        publisher: d.publisher,
      };
      await versions(store).replaceOne({
        _id: d.versionAddress,
        ...view,
        documentId: d.documentId,
        document: d.document,
        organizationId: d.organizationId,
        organization: d.organization,
        draftId: d.draftId,
      });
      // Versions are appended in number order on the document's stream, so the last one is current.
      await documents(store).updateOne({ _id: d.documentId }, { $set: { currentVersion: view } });
    },
    DraftCreated: async ({ data: d, metadata }, store) => {
      await drafts(store).replaceOne({
        _id: d.draftId,
        draftId: d.draftId,
        documentId: d.documentId,
        organizationId: d.organizationId,
        status: 'open',
        title: d.title,
        versionLabel: d.versionLabel,
        effectiveAt: d.effectiveAt,
        contentHash: d.contentHash,
        changeSummary: d.changeSummary,
        prepared: null,
        publishedVersion: null,
        publicationSignature: null,
        createdBy: d.createdBy,
        createdAt: metadata.occurredAt,
        updatedAt: metadata.occurredAt,
      });
    },
    DraftUpdated: async ({ data, metadata }, store) => {
      const { draftId, ...changes } = data;
      await drafts(store).updateOne({ _id: draftId }, { $set: { ...changes, status: 'open', prepared: null, updatedAt: metadata.occurredAt } });
    },
    DraftPrepared: async ({ data: d, metadata }, store) => {
      await drafts(store).updateOne(
        { _id: d.draftId },
        { $set: { status: 'prepared', prepared: { number: d.number, contentHash: d.contentHash, fingerprint: d.fingerprint }, updatedAt: metadata.occurredAt } },
      );
    },
    DraftAbandoned: async ({ data: d, metadata }, store) => {
      await drafts(store).updateOne({ _id: d.draftId }, { $set: { status: 'abandoned', updatedAt: metadata.occurredAt } });
    },
    DraftPublished: async ({ data: d, metadata }, store) => {
      await drafts(store).updateOne(
        { _id: d.draftId },
        { $set: { status: 'published', publishedVersion: d.versionAddress, publicationSignature: d.transactionSignature, updatedAt: metadata.occurredAt } },
      );
    },
  },
});
