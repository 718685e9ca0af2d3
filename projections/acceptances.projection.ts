import type { DomainEvent } from '@svc/domain';
import type { StoredEvent } from '@svc/event-store';
import type { Projection, ReadStore } from '@svc/read-store';
import { COLLECTIONS, type AcceptanceDoc } from './read-models';

/** Acceptance records (spec §2.3) with their relay outcome. */
export const acceptancesProjection: Projection = {
  name: 'acceptances',
  version: 1,
  eventTypes: ['AcceptanceSubmitted', 'AcceptanceResigned', 'AcceptanceRelayed', 'AcceptanceRelayFailed', 'AcceptanceFinalized'],
  indexes: {
    [COLLECTIONS.acceptances]: [
      { fields: { versionAddress: 1, signer: 1 } },
      { fields: { transactionSignature: 1 } },
      { fields: { signer: 1 } },
      { fields: { organizationId: 1, submittedAt: -1 } },
    ],
  },
  async handle(stored: StoredEvent, store: ReadStore): Promise<void> {
    const event = stored as unknown as DomainEvent;
    const acceptances = store.collection<AcceptanceDoc>(COLLECTIONS.acceptances);
    switch (event.type) {
      case 'AcceptanceSubmitted': {
        const d = event.data;
        // A resubmission after a failed relay reuses the stream; the record is rebuilt from this event.
        await acceptances.replaceOne({
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
          slot: null,
          blockTime: null,
          commitment: null,
          submittedAt: stored.metadata.occurredAt,
          failureReason: null,
        });
        return;
      }
      case 'AcceptanceResigned':
        await acceptances.updateOne({ _id: event.data.acceptanceId }, { $set: { transactionSignature: event.data.transactionSignature } });
        return;
      case 'AcceptanceRelayed': {
        const d = event.data;
        await acceptances.updateOne(
          { _id: d.acceptanceId },
          {
            $set: {
              status: 'confirmed',
              transactionSignature: d.transactionSignature,
              slot: d.slot,
              blockTime: d.blockTime,
              feeLamports: d.feeLamports,
              commitment: d.commitment,
            },
          },
        );
        return;
      }
      case 'AcceptanceRelayFailed':
        await acceptances.updateOne({ _id: event.data.acceptanceId }, { $set: { status: 'failed', failureReason: event.data.reason } });
        return;
      case 'AcceptanceFinalized':
        await acceptances.updateOne({ _id: event.data.acceptanceId }, { $set: { commitment: 'finalized' } });
        return;
      default:
        return;
    }
  },
};
