import type { ReadStore } from '@svc/read-store';
import { COLLECTIONS, type AuditAnchorDoc, type AuditEntryDoc, type AuditHeadDoc } from './read-models';
import { defineProjection } from './define-projection';
import { isoFromUnix } from './time';

const entries = (store: ReadStore) => store.collection<AuditEntryDoc>(COLLECTIONS.auditEntries);
const heads = (store: ReadStore) => store.collection<AuditHeadDoc>(COLLECTIONS.auditHeads);
const anchors = (store: ReadStore) => store.collection<AuditAnchorDoc>(COLLECTIONS.auditAnchors);

/**
 * Organizations' audit logs (docs/api.md "Audit log"): the entries as chained (paged newest first, verified oldest
 * first), each log's head with the sequence its latest anchor covers, and the anchors the ledger recorded.
 */
export const auditLogProjection = defineProjection({
  name: 'audit-log',
  version: 1,
  indexes: {
    [COLLECTIONS.auditEntries]: [{ fields: { organizationId: 1, sequence: -1 }, unique: true }],
    [COLLECTIONS.auditHeads]: [{ fields: { organizationId: 1 } }],
    [COLLECTIONS.auditAnchors]: [{ fields: { organizationId: 1, sequence: -1 } }],
  },
  handlers: {
    AuditEntryAppended: async ({ data: d }, store) => {
      await entries(store).replaceOne({ _id: `${d.organizationId}:${d.sequence}`, ...d });
      await heads(store).updateOne({ _id: d.organizationId }, { $set: { organizationId: d.organizationId, sequence: d.sequence, head: d.hash } }, { upsert: true });
    },
    AuditHeadAnchored: async ({ data: d }, store) => {
      await anchors(store).replaceOne({
        _id: d.transactionSignature,
        organizationId: d.organizationId,
        sequence: d.sequence,
        head: d.head,
        transactionSignature: d.transactionSignature,
        slot: d.slot,
        anchoredAt: isoFromUnix(d.blockTime),
      });
      await heads(store).updateOne({ _id: d.organizationId }, { $set: { anchoredSequence: d.sequence } });
    },
  },
});
