import type { DomainEvent } from '@svc/domain';
import type { StoredEvent } from '@svc/event-store';
import type { Projection, ReadStore } from '@svc/read-store';
import { COLLECTIONS, type DocumentDoc, type DraftDoc, type VersionDoc, type VersionView } from './read-models';
import { isoFromUnix } from './time';

/** Documents, their published versions and drafts. */
export const documentsProjection: Projection = {
  name: 'documents',
  version: 1,
  eventTypes: ['DocumentSynced', 'VersionPublished', 'DraftCreated', 'DraftUpdated', 'DraftPrepared', 'DraftAbandoned', 'DraftPublished'],
  indexes: {
    [COLLECTIONS.documents]: [
      { fields: { address: 1 }, unique: true },
      { fields: { organizationId: 1 } },
      { fields: { organization: 1, slug: 1 } },
    ],
    [COLLECTIONS.versions]: [{ fields: { documentId: 1 } }, { fields: { document: 1 } }, { fields: { transactionSignature: 1 } }],
    [COLLECTIONS.drafts]: [{ fields: { documentId: 1 } }],
  },
  async handle(stored: StoredEvent, store: ReadStore): Promise<void> {
    const event = stored as unknown as DomainEvent;
    const at = stored.metadata.occurredAt;
    const documents = store.collection<DocumentDoc>(COLLECTIONS.documents);
    const versions = store.collection<VersionDoc>(COLLECTIONS.versions);
    const drafts = store.collection<DraftDoc>(COLLECTIONS.drafts);
    switch (event.type) {
      case 'DocumentSynced': {
        const d = event.data;
        const existing = await documents.findOne({ _id: d.documentId });
        await documents.replaceOne({
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
        return;
      }
      case 'VersionPublished': {
        const d = event.data;
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
          publishedAt: isoFromUnix(d.blockTime) ?? at,
          publisher: d.publisher,
        };
        await versions.replaceOne({
          _id: d.versionAddress,
          ...view,
          documentId: d.documentId,
          document: d.document,
          organizationId: d.organizationId,
          organization: d.organization,
          draftId: d.draftId,
        });
        // Versions are appended in number order on the document's stream, so the last one is current.
        await documents.updateOne({ _id: d.documentId }, { $set: { currentVersion: view } });
        return;
      }
      case 'DraftCreated': {
        const d = event.data;
        await drafts.replaceOne({
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
          createdAt: at,
          updatedAt: at,
        });
        return;
      }
      case 'DraftUpdated': {
        const { draftId, ...changes } = event.data;
        await drafts.updateOne({ _id: draftId }, { $set: { ...changes, status: 'open', prepared: null, updatedAt: at } });
        return;
      }
      case 'DraftPrepared': {
        const d = event.data;
        await drafts.updateOne(
          { _id: d.draftId },
          { $set: { status: 'prepared', prepared: { number: d.number, contentHash: d.contentHash, fingerprint: d.fingerprint }, updatedAt: at } },
        );
        return;
      }
      case 'DraftAbandoned':
        await drafts.updateOne({ _id: event.data.draftId }, { $set: { status: 'abandoned', updatedAt: at } });
        return;
      case 'DraftPublished':
        await drafts.updateOne(
          { _id: event.data.draftId },
          { $set: { status: 'published', publishedVersion: event.data.versionAddress, publicationSignature: event.data.transactionSignature, updatedAt: at } },
        );
        return;
      default:
        return;
    }
  },
};
