/**
 * Realistic values for decider tests: base58 addresses of 32-byte keys, base58 transaction signatures of
 * 64 bytes, 64-hex hashes and UUIDs, and builders of the events that several streams share (one organization
 * with one document and its versions, an acceptance challenge and its submission). Shapes as in `events.ts`.
 */
import type {
  AcceptanceChallengeIssuedData,
  AcceptanceSubmittedData,
  EventOf,
  VersionPublishedData,
} from '../events';
import type { LedgerTransactionFacts, OrganizationFacts, ProtocolRecord } from '../deciders/ledger-facts';

/** Wallets, objects on the ledger and ids. */
export const A = {
  org: '4pBRVjzWPo7UkGdVLeHfN8mggVdcvLKJr8W6jXkWyzrQ',
  otherOrg: '3vQdXpgg6Mriy8TvguTHsKRLP4Svi4RAQoGFVXJNzyMv',
  authority: 'Bb2G2bg9bZJnThiMnJtaYFFwrLS6McrinDnRwn91NDRo',
  stranger: 'H8MQ9Fi8KA7vjyXCmkKHH2ndFgTdPsEz4AhdzJR1zW4i',
  doc: '4zLzLDH8mke39xHACheZ4GMohY8YPy1PAALTSEoua8nJ',
  otherDoc: 'Gyz6DJBYLA2hacSxCvW7uDhHmgp9fNcAPvRCakiaMG7r',
  v1: 'CaZcMN33CtkoWP8jheoUhgax6Efd9Mdi17Vpvfbkw6t7',
  v2: 'fYibxskthseDmFfSA1qYbzDZhGXJYvDeXzySEPLxoh2',
  v3: '6bGQPXidAp4RPRkZSWxRZoHVbonQ5jZvkZYc4nDiXJfo',
  signer: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV',
  otherSigner: 'CNSUvHHNApT6RtUQybNRLQZBfPgbbjti4jyKKkkdGRBS',
  relayer: 'AqyK4FZgYamktqCdcM1HvrnNAtCBVaqKxGkjPtPxHE8x',
  orgId: '8fc47f29-9ca7-409c-8480-64f3da4cd423',
  otherOrgId: '50f96a38-e81b-432a-8320-1e71ea2e926d',
  docId: 'e8130f50-a43d-41d7-a0b5-c420ed2b9430',
  draftId: 'a7bd99f0-9886-4312-b1bf-68d5f2ec3c2b',
  challengeId: '462d08b9-7845-43be-87de-83b7663b43c3',
  otherChallengeId: '3424e5d2-4870-4e30-b14f-b0b00a843e92',
  sessionId: 'dbe3a19f-8a8b-4369-ad02-ab64d671989a',
} as const;

/** Transaction signatures (base58 of 64 bytes). */
export const SIG = {
  org: '2QUpbZnJpXpMEoPQoKJJUzrL8BNaYjxvk8E29ZbCgKyhjE7BtdvG2Cb8t85QgMNEj1r8cUC7ja65vJ4yisbUmFZf',
  doc: '4SM6ZDXvwstegWh6nEaXqAcyDf8ABq73CtfLDXDBrM2mgnFwoDYYtoFZkmcZm3KpKUtz8jeJAzQ6RtYcXjzLxWm2',
  v1: '66FtxJFKjQXSfvoFHbjY2eMYPctijyNvqmKjNPu8LKgGt74MCVioSN5d41zS8ZVhNNwLjzN97aoQazrV9qYvCeuW',
  v2: '3A4ZCHeCjDrpkk6JaRN3NY3ULk4qmwYUutgTEykzLzERyf5Fnt9KuKQPHS8sR4PT1uiKsafmr4pA8bMZheTFHzE',
  v3: '5sEsknaAoSH8JSccN7P57svFcLSg2JN7bnuiCw5fcBn3eZJC5v2xwXPqJVF16ouijAuvXeXniNmLUt5kJuA5gsk8',
  acc1: '64rA229PupjmPMspG9qNSeWZujcw86DrNRWDiUz2rnZHHdDLE86w2pemveZeaUFs1P8Dx9psAAPMnfrrHwe4WRhE',
  acc2: 'JpuZ6YQ5SrGvh4uaU7zYTazDYwtta8WYNTYLnPabESfwzDcLiwDJPijq4srXGUcdT8f1SHVzA3ZBCYvxtoMV12b',
  acc3: '5CME7CpVrF3QbbBvQMoyh8G9EZf5uzL8tNp1Xu7ZybrzpLH8ZZ8GzrNdsAW7oLwSFgHgndKxqfuTXuomqdE4HX4',
} as const;

/** 64-hex values: content hashes, fingerprints, acceptance ids. */
export const HEX = {
  content1: '4e908b18f2de9b9b829972678c94408c52244e1ba59f5fc0554ba901add028b2',
  content2: '9b5dd760f3dcd3d167936a8d93cc8992b7589839ecc9d66a5638b8b4aca6a2ef',
  fingerprint1: '5fb3eabbe1cac89974254780f6cba74e6be27b232f4daa28e1543dc11772d9cf',
  fingerprint2: '9a3de0215aae5607c162088ce9fbc11cc580334990a63d359fa8b8b800bdad8d',
  acceptance1: '5a0fb23771f2465329a00f31b66fb4ac59b42e6b1557a1e01c5bf3166c342b7c',
  acceptance2: 'c1c815a7aa526989e53dfcb93be6b55eec9ac0775b04141d78e92ae5c64a1484',
} as const;

/** The organization as other streams' decisions see it: its authority holds every role. */
export const ORG_FACTS: OrganizationFacts = {
  organizationId: A.orgId,
  address: A.org,
  members: [{ address: A.authority, roles: ['owner', 'admin', 'publisher'] }],
};

/** A successful memo transaction of the protocol that `objectSigner` co-signed, sent by `actor`. */
export function ledgerTx(record: ProtocolRecord | null, objectSigner: string | null, signature: string, actor: string = A.authority): LedgerTransactionFacts {
  return { signature, slot: 3_120_455, blockTime: 1_741_944_413, succeeded: true, record, objectSigner, actor };
}

export const documentSynced = (): EventOf<'DocumentSynced'> => ({
  type: 'DocumentSynced',
  data: {
    documentId: A.docId,
    address: A.doc,
    organizationId: A.orgId,
    organization: A.org,
    slug: 'terms-of-service',
    title: 'Terms of Service',
    creationSignature: SIG.doc,
    slot: 3_120_101,
    blockTime: 1_741_944_000,
  },
});

const VERSIONS = [
  { versionAddress: A.v1, transactionSignature: SIG.v1, contentHash: HEX.content1, fingerprint: HEX.fingerprint1, label: '2024-01' },
  { versionAddress: A.v2, transactionSignature: SIG.v2, contentHash: HEX.content2, fingerprint: HEX.fingerprint2, label: '2025-03' },
] as const;

/** Version `number` (1 or 2) of the document, published from a draft by the authority. */
export function versionPublished(number: 1 | 2): EventOf<'VersionPublished'> {
  const v = VERSIONS[number - 1]!;
  const data: VersionPublishedData = {
    documentId: A.docId,
    document: A.doc,
    organizationId: A.orgId,
    organization: A.org,
    versionAddress: v.versionAddress,
    number,
    label: v.label,
    title: 'Terms of Service',
    contentHash: v.contentHash,
    fingerprint: v.fingerprint,
    effectiveAt: null,
    transactionSignature: v.transactionSignature,
    slot: 3_120_200 + number,
    blockTime: 1_741_944_100 + number,
    publisher: A.authority,
    draftId: A.draftId,
  };
  return { type: 'VersionPublished', data };
}

/** The message a signer is asked to sign for version 1 (its layout is irrelevant to the deciders). */
export const ACCEPTANCE_MESSAGE = `svc/1 acceptance\nsite: shop.example.com\norganization: ${A.org}\ndocument: ${A.doc}\nversion: ${A.v1}\nsigner: ${A.signer}`;

/** A challenge for `A.signer` to accept version 1, issued at 09:26:53 and open for five minutes. */
export function challengeIssued(challengeId: string = A.challengeId): AcceptanceChallengeIssuedData {
  return {
    challengeId,
    organizationId: A.orgId,
    organization: A.org,
    documentId: A.docId,
    document: A.doc,
    documentSlug: 'terms-of-service',
    versionAddress: A.v1,
    versionNumber: 1,
    signer: A.signer,
    signerType: 'wallet',
    protocol: 'svc/1',
    message: ACCEPTANCE_MESSAGE,
    nonce: 'd8787e707fb26860671049c586323614',
    clientBindingHash: '0f6c1b1a0d8e2f3a4b5c6d7e8f90112233445566778899aabbccddeeff001122',
    requestDomain: 'shop.example.com',
    issuedAt: '2025-03-14T09:26:53.000Z',
    expiresAt: '2025-03-14T09:31:53.000Z',
    acceptanceSessionId: null,
    externalUserRef: null,
    evidenceMode: 'DIRECT_ONCHAIN',
  };
}

/** Unix milliseconds within the challenge's window, and its end. */
export const CHALLENGE_OPEN_AT = Date.parse('2025-03-14T09:27:10.000Z');
export const CHALLENGE_EXPIRES_AT = Date.parse('2025-03-14T09:31:53.000Z');

/** The submission of `challengeId` as acceptance `acceptanceId`, relayed by `transactionSignature`. */
export function acceptanceSubmitted(acceptanceId: string, challengeId: string, transactionSignature: string): AcceptanceSubmittedData {
  const c = challengeIssued(challengeId);
  return {
    acceptanceId,
    challengeId,
    organizationId: c.organizationId,
    organization: c.organization,
    documentId: c.documentId,
    document: c.document,
    documentSlug: c.documentSlug,
    versionAddress: c.versionAddress,
    versionNumber: c.versionNumber,
    signer: c.signer,
    signerType: 'wallet',
    protocol: 'svc/1',
    message: c.message,
    signature: '3CPV3RQDD23e3tHN8FKtE9JSgvfM1RiwXvyoXF46NWtoGGxNFcMn9f7A6o5Z9JS7y3bSkGyzNCgMyZDKZcm5kHfB',
    requestDomain: c.requestDomain,
    externalUserRef: null,
    evidenceMode: 'DIRECT_ONCHAIN',
    feePayer: A.relayer,
    feeSponsor: 'svc',
    transactionSignature,
    transactionWire: 'nCYLrL7rJ2EU8kF1v8yCCqYo05GlKCVkKL8uXs16Ejv+iJyUVb+QGw==',
    lastValidBlockHeight: '3120605',
  };
}

/** The batched submission of `challengeId` as acceptance `acceptanceId`: no transaction of its own. */
export function batchedSubmission(acceptanceId: string, challengeId: string): AcceptanceSubmittedData {
  return { ...acceptanceSubmitted(acceptanceId, challengeId, ''), evidenceMode: 'MERKLE_BATCHED', transactionSignature: null, transactionWire: null, lastValidBlockHeight: null };
}
