/** Types shared by `synthesize.ts` and its signing worker (`synthesize-worker.ts`). */
import type { AcceptanceChallengeIssuedData } from '@svc/domain';

/** The published version the synthesized acceptances accept, as the service knows it, and the requesting site. */
export type SynthesisTarget = Pick<
  AcceptanceChallengeIssuedData,
  'organizationId' | 'organization' | 'documentId' | 'document' | 'documentSlug' | 'versionAddress' | 'versionNumber' | 'requestDomain'
> & {
  contentHash: string;
  fingerprint: string;
  /** CAIP-2 chain id of the service's ledger (`GET /v1/network`). */
  chainId: string;
};

/** The signed parts of one synthesized acceptance (strings and numbers only: it crosses a worker boundary). */
export interface AcceptanceMaterial {
  /** ISO 8601 time of the synthesized events. */
  occurredAt: string;
  challengeId: string;
  /** Base58 address of a fresh Ed25519 signer. */
  signer: string;
  nonce: string;
  issuedAt: string;
  expiresAt: string;
  /** The exact `svc/1` message (docs/protocol.md). */
  message: string;
  acceptanceId: string;
  /** Base58 of the signer's valid Ed25519 signature over the message. */
  signature: string;
  clientBindingHash: string;
  feePayer: string;
  transactionSignature: string;
  /** Base64 wire bytes of the signed acceptance transaction (never sent). */
  transactionWire: string;
  lastValidBlockHeight: string;
  /** Unix seconds. */
  blockTime: number;
}
