import { COLLECTIONS, type ContentDoc } from './read-models';
import { defineProjection } from './define-projection';

/** Canonical document texts by content hash (content-addressed, written once). */
export const contentsProjection = defineProjection({
  name: 'contents',
  version: 1,
  indexes: { [COLLECTIONS.contents]: [] },
  handlers: {
    ContentStored: async ({ data: d }, store) => {
      await store.collection<ContentDoc>(COLLECTIONS.contents).replaceOne({
        _id: d.contentHash,
        contentHash: d.contentHash,
        text: d.text,
        byteLength: d.byteLength,
        mediaType: d.mediaType,
      });
    },
  },
});
