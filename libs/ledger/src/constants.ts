/**
 * Solana constants shared by the ledger adapters. Addresses are base58 strings.
 */

/** SPL Memo program (v2). Its instruction data is UTF-8 text; accounts passed to it must sign. */
export const MEMO_PROGRAM_ADDRESS = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
/** Legacy SPL Memo program (v1), still recognised when extracting memos. */
export const MEMO_V1_PROGRAM_ADDRESS = 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo';
/** Ed25519 signature-verification precompile. */
export const ED25519_PROGRAM_ADDRESS = 'Ed25519SigVerify111111111111111111111111111';
/** Secp256k1 (Ethereum-style) signature-recovery precompile. */
export const SECP256K1_PROGRAM_ADDRESS = 'KeccakSecp256k11111111111111111111111111111';
/** Secp256r1 (P-256) signature-verification precompile. */
export const SECP256R1_PROGRAM_ADDRESS = 'Secp256r1SigVerify1111111111111111111111111';
export const SYSTEM_PROGRAM_ADDRESS = '11111111111111111111111111111111';
export const COMPUTE_BUDGET_PROGRAM_ADDRESS = 'ComputeBudget111111111111111111111111111111';

/** Base fee per signature (transaction signatures and precompile signatures), in lamports. */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
/** Number of blocks a blockhash stays usable after the block that produced it (Solana's MAX_PROCESSING_AGE). */
export const MAX_PROCESSING_AGE = 150;
/**
 * Slots a node's status cache remembers a transaction for (Agave's MAX_RECENT_BLOCKHASHES): `getSignatureStatuses`
 * without `searchTransactionHistory` finds only transactions this recent.
 */
export const STATUS_CACHE_SLOTS = 300;
/** Slots on top of a transaction's slot after which the embedded ledger reports it `finalized`. */
export const FINALITY_DEPTH = 32;
/** Largest serialized transaction a Solana cluster accepts, in bytes. */
export const PACKET_DATA_SIZE = 1232;

/**
 * Minimal logger accepted by the adapters: Nest's `Logger`, pino and `console` all fit.
 * Library code never logs to the console on its own.
 */
export interface LedgerLogger {
  warn(message: string): void;
  error(message: string): void;
  log?(message: string): void;
  info?(message: string): void;
  debug?(message: string): void;
}
