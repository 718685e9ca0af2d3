import type { Address, Hex64 } from './events';

/**
 * The fields that define a published version, committed by its fingerprint on the ledger
 * (docs/protocol.md, "Version record"). The one shared shape of these fields across the service.
 */
export interface VersionFields {
  /** Document address. */
  document: Address;
  /** 1, 2, 3… in publication order. */
  number: number;
  label: string;
  title: string;
  /** SHA-256 of the canonical content bytes, lowercase hex. */
  contentHash: Hex64;
  /** Unix seconds from which the version applies, or null. */
  effectiveAt: number | null;
}
