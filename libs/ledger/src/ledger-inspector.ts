/**
 * Optional capabilities beyond the {@link Ledger} port. Both adapters implement them; the
 * JSON-RPC endpoint uses them (when present) for `getAccountInfo`, `getBlockTime`,
 * `simulateTransaction` and `isBlockhashValid`, and answers "method not supported" otherwise.
 */
import type { AddressSignature, Ledger, LedgerTransaction } from './ledger.port';

export interface LedgerAccountInfo {
  /** Balance in lamports. */
  lamports: bigint;
  /** Base58 address of the owning program. */
  owner: string;
  data: Uint8Array;
  executable: boolean;
  rentEpoch: bigint;
}

export interface SimulateOptions {
  /** Verify the transaction signatures (default false, like Solana's RPC). */
  sigVerify?: boolean;
  /** Run against the latest blockhash instead of the transaction's own (default false). */
  replaceRecentBlockhash?: boolean;
}

export interface SimulationResult {
  /** Null on success; otherwise the runtime's error (Solana JSON). */
  err: unknown;
  logs: string[];
  /** Compute units consumed. */
  unitsConsumed: bigint;
  /** Fee the transaction would be charged, in lamports (null when unknown). */
  fee: bigint | null;
  /** Set when `replaceRecentBlockhash` was requested. */
  replacementBlockhash: { blockhash: string; lastValidBlockHeight: bigint } | null;
}

/** Read-side and tooling extras implemented by EmbeddedLedger and RpcLedger. */
export interface LedgerInspector {
  /** Null when the account does not exist. */
  getAccountInfo?(address: string): Promise<LedgerAccountInfo | null>;
  /** Estimated production time of a slot's block in unix seconds; null when the ledger has no such block. */
  getBlockTime?(slot: bigint): Promise<number | null>;
  /** Executes the transaction without committing anything. */
  simulateTransaction?(wire: Uint8Array, options?: SimulateOptions): Promise<SimulationResult>;
  /** Whether a transaction using this blockhash can still land. */
  isBlockhashValid?(blockhash: string): Promise<boolean>;
}

export type InspectableLedger = Ledger & LedgerInspector;

/** Optional details adapters attach to {@link LedgerTransaction} (used for RPC `meta`). */
export interface LedgerTransactionDetails {
  computeUnitsConsumed?: bigint;
  /** Addresses loaded from lookup tables (v0 transactions), base58. */
  loadedAddresses?: { writable: string[]; readonly: string[] } | null;
}

export type DetailedLedgerTransaction = LedgerTransaction & LedgerTransactionDetails;

/** {@link AddressSignature} plus the memo text Solana's RPC reports (`[len] text; …`). */
export type AddressSignatureWithMemo = AddressSignature & { memo?: string | null };
