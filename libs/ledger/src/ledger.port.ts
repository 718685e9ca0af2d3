/**
 * The ledger port: the Solana-compatible network on which evidence is recorded.
 *
 * Adapters: the embedded LiteSVM ledger (default; journaled under `DATA_DIR/ledger/`)
 * and a Solana JSON-RPC cluster through `@solana/kit` (`LEDGER_RPC_URL`).
 * Addresses and transaction signatures cross this boundary as @solana/kit's branded `Address` and `Signature`
 * (base58 strings validated once, where they enter: `address(text)`, `signature(text)`); amounts are lamports
 * (bigint).
 */
import type { Address, Signature } from '@solana/kit';
import { LedgerError, type LedgerErrorCode } from './ledger-error';

export type { Address, Signature };

export type Commitment = 'processed' | 'confirmed' | 'finalized';

export interface LatestBlockhash {
  /** Base58 blockhash to put in a transaction message. */
  blockhash: string;
  /** Last block height at which a transaction using this blockhash can land. */
  lastValidBlockHeight: bigint;
}

export interface SignatureStatus {
  slot: bigint;
  /** Blocks on top of the transaction's block; null once finalized. */
  confirmations: number | null;
  /** Null when the transaction succeeded; otherwise the runtime's error (JSON). */
  err: unknown;
  confirmationStatus: Commitment;
}

/** A landed transaction as read from the ledger. */
export interface LedgerTransaction {
  signature: Signature;
  slot: bigint;
  /** Unix seconds, or null when the ledger does not know it. */
  blockTime: number | null;
  /** The transaction's wire bytes (signatures + message), exactly as it was sent. */
  wire: Uint8Array;
  /** Null on success; otherwise the runtime's error (JSON). */
  err: unknown;
  /** Fee charged to the fee payer, in lamports. */
  fee: bigint;
  logMessages: string[];
  confirmationStatus: Commitment;
}

export interface AddressSignature {
  signature: Signature;
  slot: bigint;
  blockTime: number | null;
  err: unknown;
  confirmationStatus: Commitment;
  /** The transaction's memos as Solana's `getSignaturesForAddress` reports them (`[len] text`, `; `-joined), or null. */
  memo?: string | null;
}

export interface SignaturesForAddressOptions {
  limit?: number;
  before?: Signature;
  until?: Signature;
  commitment?: 'confirmed' | 'finalized';
}

export interface SendOptions {
  /** Skip the preflight simulation (the embedded ledger always executes for real). */
  skipPreflight?: boolean;
  /** Wait until the transaction reaches this commitment before resolving; default `confirmed`. */
  commitment?: Commitment;
}

export interface Ledger {
  /** Base58 genesis hash; `solana:<first 32 chars>` is the CAIP-2 chain id. */
  getGenesisHash(): Promise<string>;
  /** The newest blockhash at `commitment` (default: the adapter's own, the latest block for the embedded ledger). */
  getLatestBlockhash(commitment?: Commitment): Promise<LatestBlockhash>;
  getSlot(commitment?: Commitment): Promise<bigint>;
  getBlockHeight(commitment?: Commitment): Promise<bigint>;
  /**
   * Sends a signed transaction (wire bytes) and waits for `options.commitment`.
   * @returns the transaction signature (base58 of the first signature).
   * @throws TransactionFailedError when the runtime rejects it (with its code, Solana JSON error and logs).
   * @throws LedgerError `Unavailable` / `Timeout` when the ledger cannot be reached or does not confirm in time.
   */
  sendTransaction(wire: Uint8Array, options?: SendOptions): Promise<Signature>;
  /** Null when the ledger has no record of the signature. */
  getTransaction(signature: Signature): Promise<LedgerTransaction | null>;
  getSignatureStatuses(signatures: readonly Signature[]): Promise<(SignatureStatus | null)[]>;
  /**
   * Newest first, like the RPC method of the same name: at most `limit` (1..1000, default 1000)
   * older than `before`, stopping at `until` (both excluded), landed at `commitment` (`confirmed`
   * or `finalized`; default the adapter's).
   */
  getSignaturesForAddress(address: Address, options?: SignaturesForAddressOptions): Promise<AddressSignature[]>;
  /** Lamports at `commitment` (default: the adapter's, the latest state for the embedded ledger). */
  getBalance(address: Address, commitment?: Commitment): Promise<bigint>;
  /** Test networks only. Resolves once the lamports are credited. */
  requestAirdrop(address: Address, lamports: bigint): Promise<Signature>;
  /**
   * Fee in lamports for a compiled message (base64 of message bytes); null when its blockhash is unknown at
   * `commitment` (default: the adapter's own) or expired.
   */
  getFeeForMessage(messageBase64: string, commitment?: Commitment): Promise<bigint | null>;
  getMinimumBalanceForRentExemption(bytes: number): Promise<bigint>;
  /**
   * Whether the ledger answers and is healthy (readiness): `{up: true}`, or `{up: false}` with the
   * {@link LedgerErrorCode} of the failure (`Unavailable` for an unreachable endpoint, an HTTP refusal or a node
   * that says it is unhealthy) and a message for people that never holds the endpoint's URL. Never rejects.
   */
  health(): Promise<LedgerHealth>;
  close(): Promise<void>;
}

/** What {@link Ledger.health} finds: up, or down with the failure's code and a message (no endpoint URL in it). */
export type LedgerHealth = { up: true } | { up: false; code: LedgerErrorCode; message: string };

/** Injection token of the ledger port. */
export const LEDGER = Symbol('LEDGER');

/**
 * A transaction the ledger refused or that landed with an error. `code` says which (see
 * {@link LedgerErrorCode}); `err` is the runtime's error in Solana's JSON form, `logs` its program
 * logs, `landed` whether it is on the ledger with its fee charged.
 */
export class TransactionFailedError extends LedgerError {
  override readonly name: string = 'TransactionFailedError';
}
