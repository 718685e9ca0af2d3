import type { AcceptanceDoc } from '@svc/projections';

/** The acceptance record of spec §2.3. */
export type AcceptanceRecord = ReturnType<typeof acceptanceRecord>;

/**
 * The acceptance record of spec §2.3, as the public endpoints show it: without `externalUserRef`, the
 * organization's private link to its user (null there; the organization's own endpoints carry it).
 */
export function publicAcceptanceRecord(a: AcceptanceDoc): AcceptanceRecord {
  return { ...acceptanceRecord(a), externalUserRef: null };
}

/**
 * The acceptance record of spec §2.3, for the organization it belongs to. A batched acceptance waiting for its
 * batch has `transactionSignature` null (spec §2.3), `slot` 0, `feeLamports` 0, `blockTime` the time the service
 * recorded it and `commitment` `confirmed` (the record is durable; spec §2.3 types every other field as always
 * present); its anchoring fills in the transaction, slot, fee share and the block's time (docs/api.md).
 * `blockTime` is always an ISO 8601 time (spec §2.3): the block's, or, where the ledger gives none (a cluster that
 * does not know the block's time), the submission's, in whole seconds as a block's.
 */
export function acceptanceRecord(a: AcceptanceDoc) {
  return {
    acceptanceId: a.acceptanceId,
    transactionSignature: a.transactionSignature,
    slot: a.slot ?? 0,
    blockTime: new Date((a.blockTime ?? Math.floor(Date.parse(a.submittedAt) / 1000)) * 1000).toISOString(),
    signer: a.signer,
    signerType: a.signerType,
    versionAddress: a.versionAddress,
    versionNumber: a.versionNumber,
    requestDomain: a.requestDomain,
    externalUserRef: a.externalUserRef as string | null,
    commitment: a.commitment ?? 'confirmed',
    evidenceMode: a.evidenceMode,
    documentSlug: a.documentSlug,
    document: a.document,
    organization: a.organization,
    feePayer: a.feePayer,
    feeLamports: a.feeLamports ?? 0,
    reimbursedLamports: null as number | null,
  };
}
