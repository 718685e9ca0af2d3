import type { ReadStore } from '@svc/read-store';
import { COLLECTIONS, type BatchDoc } from './read-models';
import { defineProjection } from './define-projection';

const batches = (store: ReadStore) => store.collection<BatchDoc>(COLLECTIONS.batches);

/**
 * Merkle batches by root (docs/protocol.md §7.7): the manifest `GET /v1/public/batches/{root}` serves, and the leaves
 * a batched receipt's inclusion proof is computed from. The anchoring transaction follows re-signings.
 */
export const batchesProjection = defineProjection({
  name: 'batches',
  version: 1,
  indexes: { [COLLECTIONS.batches]: [{ fields: { stream: 1 } }] },
  handlers: {
    BatchClosed: async ({ data: d, streamId }, store) => {
      await batches(store).replaceOne({
        _id: d.root,
        stream: streamId,
        lane: d.lane,
        sequence: d.sequence,
        root: d.root,
        size: d.leaves.length,
        leaves: d.leaves.map(({ acceptanceId, message, signature, signer, versionAddress }) => ({ acceptanceId, message, signature, signer, versionAddress })),
        status: 'closed',
        feePayer: d.feePayer,
        transactionSignature: d.transactionSignature,
        slot: null,
        blockTime: null,
        feeLamports: null,
        closedAt: d.closedAt,
      });
    },
    BatchResigned: async ({ data: d, streamId }, store) => {
      await batches(store).updateOne({ stream: streamId }, { $set: { transactionSignature: d.transactionSignature } });
    },
    BatchAnchored: async ({ data: d, streamId }, store) => {
      await batches(store).updateOne(
        { stream: streamId },
        { $set: { status: 'anchored', transactionSignature: d.transactionSignature, slot: d.slot, blockTime: d.blockTime, feeLamports: d.feeLamports } },
      );
    },
  },
});
