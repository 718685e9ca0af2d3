import { DomainError } from '@svc/domain';
import type { Collection } from '@svc/read-store';
import type { AcceptanceDoc } from '@svc/projections';
import { publicAcceptanceRecord } from './views';

/** How many of a signer's acceptances its public evidence lists (the newest). */
export const SIGNER_ACCEPTANCES_LISTED = 200;

/**
 * Public evidence about a signer (spec §4.3 `GET /v1/public/signers/{publicKey}`, docs/api.md "Public verification
 * reads"): `{signer: {publicKey, signerType, acceptanceCount, firstAcceptedAt, lastAcceptedAt}, acceptances:
 * [{acceptanceId, versionAddress, versionNumber, documentSlug, transactionSignature, blockTime, commitment}],
 * keyStatements: [], passkeys: [], rotations: []}`. `acceptances` holds the newest {@link SIGNER_ACCEPTANCES_LISTED}
 * by submission, newest first; `acceptanceCount` and `firstAcceptedAt` speak of all of them. The acceptances shown are
 * those public by their own record: relayed, or batched from their `pending_batch` answer on (`transactionSignature`
 * null until the batch is anchored).
 * @throws DomainError not_found (404) when the signer has no public acceptance.
 */
export async function signerEvidence(acceptances: Collection<AcceptanceDoc>, publicKey: string) {
  const filter = { signer: publicKey, $or: [{ status: 'confirmed' }, { status: 'submitted', evidenceMode: 'MERKLE_BATCHED' }] };
  const rows = await acceptances.find(filter, { sort: { submittedAt: -1 }, limit: SIGNER_ACCEPTANCES_LISTED });
  if (rows.length === 0) throw new DomainError('not_found', 'no evidence for this signer');
  const records = rows.map(publicAcceptanceRecord);
  let count = records.length;
  let oldest = records[records.length - 1]!;
  if (rows.length === SIGNER_ACCEPTANCES_LISTED) {
    // One acceptance per signer and version, so a signer seldom fills the list; past it, count every acceptance and
    // read the oldest (the (signer, status, submittedAt) index serves both).
    const [total, first] = await Promise.all([acceptances.count(filter), acceptances.find(filter, { sort: { submittedAt: 1 }, limit: 1 })]);
    count = Math.max(total, records.length);
    if (first[0] !== undefined) oldest = publicAcceptanceRecord(first[0]);
  }
  return {
    signer: {
      publicKey,
      signerType: 'wallet',
      acceptanceCount: count,
      firstAcceptedAt: oldest.blockTime,
      lastAcceptedAt: records[0]!.blockTime,
    },
    acceptances: records.map((r) => ({
      acceptanceId: r.acceptanceId,
      versionAddress: r.versionAddress,
      versionNumber: r.versionNumber,
      documentSlug: r.documentSlug,
      transactionSignature: r.transactionSignature,
      blockTime: r.blockTime,
      commitment: r.commitment,
    })),
    keyStatements: [],
    passkeys: [],
    rotations: [],
  };
}
