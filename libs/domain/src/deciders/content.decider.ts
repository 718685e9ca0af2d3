/** Stream `content-<hash>`: the canonical bytes of a document text, stored once per hash. */
import type { Decider } from '../decider';
import type { ContentStoredData, EventOf } from '../events';

export type ContentEvent = EventOf<'ContentStored'>;
export interface ContentState {
  stored: boolean;
}
export interface StoreContent {
  kind: 'StoreContent';
  content: ContentStoredData;
}

export const contentDecider: Decider<StoreContent, ContentEvent, ContentState> = {
  eventTypes: ['ContentStored'],
  initialState: { stored: false },
  evolve: () => ({ stored: true }),
  /** Storing known content is a no-op: the stream name is the hash of the bytes. Never refuses. */
  decide(command, state) {
    return state.stored ? [] : [{ type: 'ContentStored', data: command.content }];
  },
};
