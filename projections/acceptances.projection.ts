import { COLLECTIONS, type AcceptanceDoc } from './read-models';
import { defineProjection } from './define-projection';
import type { ReadStore } from '@svc/read-store';

const acceptances = (store: ReadStore) => store.collection<AcceptanceDoc>(COLLECTIONS.acceptances);

/**
 * Acceptance records (spec §2.3) with their relay outcome. Indexed for the queries the service makes, and only
 * those (every index is rewritten by each acceptance's writes): by id, by (version, signer), by transaction
 * signature, by signer and status newest first, and acceptance search (spec §4.5: an organization's recorded
 * acceptances newest first, narrowed by document, version, signer or externalUserRef). Version 4 dropped the
 * indexes of scans the processors replaced (by status, by organization and submission time).
 *
 * `confirmedSeq`, the search order, is the log position at which the acceptance became recorded for its
 * organization, set once: a direct acceptance's relay outcome, a batched acceptance's submission (it is answered
 * `pending_batch` then and must be findable at once; its anchoring later fills in the transaction without moving
 * it). A batched acceptance's `blockTime` is the submission's time (Unix seconds) until the anchoring block's time
 * replaces it. Version 5 added both for batched acceptances.
 */
export const acceptancesProjection = defineProjection({
  name: 'acceptances',
  version: 5,
  retiredCollections: ['acceptances_v1', 'acceptances_v2', 'acceptances_v3', 'acceptances_v4'],
  indexes: {
    [COLLECTIONS.acceptances]: [
      { fields: { versionAddress: 1, signer: 1 } },
      { fields: { transactionSignature: 1 } },
      { fields: { signer: 1, status: 1, submittedAt: -1 } },
      { fields: { organizationId: 1, confirmedSeq: -1 } },
      { fields: { organizationId: 1, document: 1, confirmedSeq: -1 } },
      { fields: { organizationId: 1, versionAddress: 1, confirmedSeq: -1 } },
      { fields: { organizationId: 1, signer: 1, confirmedSeq: -1 } },
      { fields: { organizationId: 1, externalUserRef: 1, confirmedSeq: -1 } },
    ],
  },
  handlers: {
    // A resubmission after a failed relay reuses the stream; the record is rebuilt from this event.
    AcceptanceSubmitted: async ({ data: d, metadata, position }, store) => {
      const batched = d.evidenceMode === 'MERKLE_BATCHED';
      await acceptances(store).replaceOne({
        _id: d.acceptanceId,
        acceptanceId: d.acceptanceId,
        status: 'submitted',
        challengeId: d.challengeId,
        organizationId: d.organizationId,
        organization: d.organization,
        documentId: d.documentId,
        document: d.document,
        documentSlug: d.documentSlug,
        versionAddress: d.versionAddress,
        versionNumber: d.versionNumber,
        signer: d.signer,
        signerType: d.signerType,
        protocol: d.protocol,
        message: d.message,
        signature: d.signature,
        requestDomain: d.requestDomain,
        externalUserRef: d.externalUserRef,
        evidenceMode: d.evidenceMode,
        feePayer: d.feePayer,
        feeSponsor: d.feeSponsor,
        feeLamports: null,
        transactionSignature: d.transactionSignature,
        batch: null,
        slot: null,
        blockTime: batched ? Math.floor(Date.parse(metadata.occurredAt) / 1000) : null,
        commitment: null,
        submittedAt: metadata.occurredAt,
        failureReason: null,
        confirmedSeq: batched ? Number(position) : null,
      });
    },
    AcceptanceResigned: async ({ data: d }, store) => {
      await acceptances(store).updateOne({ _id: d.acceptanceId }, { $set: { transactionSignature: d.transactionSignature } });
    },
    AcceptanceRelayed: async ({ data: d, position }, store) => {
      const outcome = {
        status: 'confirmed' as const,
        transactionSignature: d.transactionSignature,
        slot: d.slot,
        blockTime: d.blockTime,
        feeLamports: d.feeLamports,
        commitment: d.commitment,
        batch: d.batch,
      };
      // A batched acceptance keeps the search position of its submission.
      await acceptances(store).updateOne({ _id: d.acceptanceId }, { $set: d.batch === null ? { ...outcome, confirmedSeq: Number(position) } : outcome });
    },
    // A batched acceptance that failed (its anchor landed outside the message's validity window) leaves the search:
    // it was listed from its submission on. A direct one was never listed before its landing.
    AcceptanceRelayFailed: async ({ data: d }, store) => {
      await acceptances(store).updateOne({ _id: d.acceptanceId }, { $set: { status: 'failed', failureReason: d.reason, confirmedSeq: null } });
    },
    AcceptanceFinalized: async ({ data: d }, store) => {
      await acceptances(store).updateOne({ _id: d.acceptanceId }, { $set: { commitment: 'finalized' } });
    },
  },
});
