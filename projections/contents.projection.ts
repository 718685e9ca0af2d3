import { COLLECTIONS, type ContentDoc } from './read-models';
import { defineProjection } from './define-projection';

/**
 * Canonical document texts by content hash (content-addressed, written once), and whether a published version
 * has that content: only those are public (`GET /v1/public/content/{hash}`); a draft's text is served to its
 * organization only. A version's content is always stored (by its draft) before the version is published.
 */
export const contentsProjection = defineProjection({
  name: 'contents',
  version: 2,
  retiredCollections: ['contents_v1'],
  indexes: { [COLLECTIONS.contents]: [] },
  handlers: {
    ContentStored: async ({ data: d }, store) => {
      const contents = store.collection<ContentDoc>(COLLECTIONS.contents);
      const existing = await contents.findOne({ _id: d.contentHash });
      await contents.replaceOne({
        _id: d.contentHash,
        contentHash: d.contentHash,
        text: d.text,
        byteLength: d.byteLength,
        mediaType: d.mediaType,
        published: existing?.published ?? false,
      });
    },
    VersionPublished: async ({ data: d }, store) => {
      await store.collection<ContentDoc>(COLLECTIONS.contents).updateOne({ _id: d.contentHash }, { $set: { published: true } });
    },
  },
});
