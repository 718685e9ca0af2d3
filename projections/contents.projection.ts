import type { DomainEvent } from '@svc/domain';
import type { StoredEvent } from '@svc/event-store';
import type { Projection, ReadStore } from '@svc/read-store';
import { COLLECTIONS, type ContentDoc } from './read-models';

/** Canonical document texts by content hash (content-addressed, written once). */
export const contentsProjection: Projection = {
  name: 'contents',
  version: 1,
  eventTypes: ['ContentStored'],
  indexes: { [COLLECTIONS.contents]: [] },
  async handle(stored: StoredEvent, store: ReadStore): Promise<void> {
    const event = stored as unknown as DomainEvent;
    if (event.type !== 'ContentStored') return;
    const d = event.data;
    await store.collection<ContentDoc>(COLLECTIONS.contents).replaceOne({
      _id: d.contentHash,
      contentHash: d.contentHash,
      text: d.text,
      byteLength: d.byteLength,
      mediaType: d.mediaType,
    });
  },
};
