/**
 * Optional capabilities beyond the {@link Ledger} port. The JSON-RPC endpoint uses them (when
 * present) for `getAccountInfo` (and `getMultipleAccounts`, the token-account queries),
 * `getBlockTime`, `simulateTransaction`, `isBlockhashValid`, `getBlock`, `getEpochInfo`,
 * `getEpochSchedule`, the node identity (`getIdentity`, `getSlotLeader(s)`, `getClusterNodes`),
 * `getRecentPrioritizationFees`, `getRecentPerformanceSamples` and the PubSub subscriptions, and
 * answers -32601 "Method not found" otherwise. The embedded ledger implements all of them;
 * RpcLedger the first four.
 */
import type { AddressSignature, Commitment, Ledger, LedgerTransaction } from './ledger.port';

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
  /**
   * The state whose blockhashes judge the transaction's own (default `processed`): a blockhash newer than the
   * `finalized` slot is `BlockhashNotFound` at `finalized`, as in a cluster's preflight. Accounts are read at the
   * newest state whatever this says.
   */
  commitment?: Commitment;
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
  /**
   * The accounts the execution loaded, base58 address → state after it (lamports 0: it no longer
   * exists); empty when the simulation failed. Accounts not listed are unchanged. Absent when the
   * ledger cannot tell (RpcLedger).
   */
  postAccounts?: ReadonlyMap<string, LedgerAccountInfo>;
}

/** Solana's `getEpochSchedule` value (slots). */
export interface LedgerEpochSchedule {
  slotsPerEpoch: bigint;
  leaderScheduleSlotOffset: bigint;
  warmup: boolean;
  firstNormalEpoch: bigint;
  firstNormalSlot: bigint;
}

/** One entry of Solana's `getRecentPrioritizationFees`: the fee in micro-lamports per compute unit. */
export interface LedgerPrioritizationFee {
  slot: bigint;
  prioritizationFee: bigint;
}

/** One entry of Solana's `getRecentPerformanceSamples`. */
export interface LedgerPerformanceSample {
  /** Last slot of the sample period. */
  slot: bigint;
  numTransactions: bigint;
  numNonVoteTransactions: bigint;
  numSlots: bigint;
  samplePeriodSecs: number;
}

/** A block: one slot of the ledger with the transactions that landed in it, in landing order. */
export interface LedgerBlock {
  slot: bigint;
  parentSlot: bigint;
  blockHeight: bigint;
  /** Unix seconds. */
  blockTime: number | null;
  /** Base58. */
  blockhash: string;
  /** Base58 blockhash of the parent slot. */
  previousBlockhash: string;
  transactions: DetailedLedgerTransaction[];
}

/** Solana's `getEpochInfo` value. */
export interface LedgerEpochInfo {
  absoluteSlot: bigint;
  blockHeight: bigint;
  epoch: bigint;
  slotIndex: bigint;
  slotsInEpoch: bigint;
  /** Transactions landed up to `absoluteSlot` (failed ones included). */
  transactionCount: bigint;
}

/** A transaction that landed (and is journaled), as subscriptions hear it. */
export interface LandedTransactionEvent {
  signature: string;
  slot: bigint;
  /** Null on success; otherwise the runtime's error (Solana JSON). */
  err: unknown;
  logs: readonly string[];
  /**
   * Every account key (static, then loaded), base58, with whether the transaction wrote it: the
   * writable keys of a successful transaction; of a failed one only the fee payer (charged) and the
   * nonce account of a durable-nonce transaction (advanced), as the runtime stores them.
   */
  accounts: readonly { address: string; written: boolean }[];
}

/** What a ledger tells its subscribers; handlers run synchronously and must not throw. */
export interface LedgerListener {
  /** A new slot (each one, in order); `root` is the newest finalized slot. */
  slot?(slot: bigint, parent: bigint, root: bigint): void;
  /** A transaction landed (reported once it is durable). */
  transaction?(event: LandedTransactionEvent): void;
}

/** Read-side and tooling extras implemented by EmbeddedLedger and RpcLedger. */
export interface LedgerInspector {
  /** Null when the account does not exist (at `commitment`, default the latest state). */
  getAccountInfo?(address: string, commitment?: Commitment): Promise<LedgerAccountInfo | null>;
  /** Estimated production time of a slot's block in unix seconds; null when the ledger has no such block. */
  getBlockTime?(slot: bigint): Promise<number | null>;
  /** Executes the transaction without committing anything. */
  simulateTransaction?(wire: Uint8Array, options?: SimulateOptions): Promise<SimulationResult>;
  /** Whether a transaction using this blockhash can still land, judged at `commitment` (default `processed`). */
  isBlockhashValid?(blockhash: string, commitment?: Commitment): Promise<boolean>;
  /** The block of `slot`, or null when that slot is not (yet) a block at `commitment`. */
  getBlock?(slot: bigint, commitment: Commitment): Promise<LedgerBlock | null>;
  getEpochInfo?(commitment: Commitment): Promise<LedgerEpochInfo>;
  getEpochSchedule?(): Promise<LedgerEpochSchedule>;
  /** Base58 public key of the node (the leader of every slot of a one-node ledger). */
  getIdentity?(): Promise<string>;
  /**
   * Leaders of `limit` slots from `startSlot` (base58).
   * @throws LedgerInputError `Invalid slot range: leader schedule for epoch <n> is unavailable`
   *   past the epochs whose schedule is known (the current one and the next).
   */
  getSlotLeaders?(startSlot: bigint, limit: number): Promise<string[]>;
  /**
   * Per recent slot (oldest first, at most 150): the lowest compute-unit price (micro-lamports per
   * CU) paid in it, raised to the lowest price paid by the transactions writing any of `addresses`.
   */
  getRecentPrioritizationFees?(addresses: readonly string[]): Promise<LedgerPrioritizationFee[]>;
  /** Completed 60-second sample periods, newest first, at most `limit`. */
  getRecentPerformanceSamples?(limit: number): Promise<LedgerPerformanceSample[]>;
  /** Starts telling `listener` about new slots and landed transactions; returns the function that stops it. */
  subscribe?(listener: LedgerListener): () => void;
}

export type InspectableLedger = Ledger & LedgerInspector;

/** Optional details adapters attach to {@link LedgerTransaction} (used for RPC `meta`). */
export interface LedgerTransactionDetails {
  computeUnitsConsumed?: bigint;
  /** Addresses loaded from lookup tables (v0 transactions), base58. */
  loadedAddresses?: { writable: string[]; readonly: string[] } | null;
  /** Lamports of every account key (static, then loaded) before and after execution; absent when unknown. */
  preBalances?: bigint[];
  postBalances?: bigint[];
}

export type DetailedLedgerTransaction = LedgerTransaction & LedgerTransactionDetails;

/** {@link AddressSignature} plus the memo text Solana's RPC reports (`[len] text; …`). */
export type AddressSignatureWithMemo = AddressSignature & { memo?: string | null };
