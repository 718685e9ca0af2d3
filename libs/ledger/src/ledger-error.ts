/**
 * Errors of the ledger adapters carry a stable {@link LedgerErrorCode} that callers branch on;
 * the message is for people and may change. Both adapters (embedded LiteSVM and Solana JSON-RPC)
 * set the same code for the same failure, and the JSON-RPC endpoint turns each code back into
 * the error shape a Solana cluster answers with (libs/ledger/README.md, "Errors").
 */

/** What went wrong, as a value to branch on. */
export const LedgerErrorCode = {
  /** The transaction's recent blockhash is unknown or expired: sign again with a fresh one. */
  BlockhashNotFound: 'BlockhashNotFound',
  /** The fee payer cannot pay the fee (or would be left below rent exemption by it). */
  InsufficientFunds: 'InsufficientFunds',
  /** A transaction signature, or a signature checked by a precompile instruction, does not verify. */
  SignatureVerificationFailed: 'SignatureVerificationFailed',
  /** The very same transaction (same signature) is already on the ledger. */
  AlreadyProcessed: 'AlreadyProcessed',
  /** An instruction failed during execution; `instructionIndex` says which. */
  InstructionError: 'InstructionError',
  /** The bytes are not a well-formed transaction (undecodable, too large, fails sanitization). */
  InvalidTransaction: 'InvalidTransaction',
  /** An account the transaction needs (the fee payer when never funded) does not exist. */
  AccountNotFound: 'AccountNotFound',
  /** Any other transaction error of the runtime (see `err` for Solana's JSON form). */
  TransactionFailed: 'TransactionFailed',
  /** The ledger cannot be reached (transport failure, unhealthy node, closed adapter). */
  Unavailable: 'Unavailable',
  /** A confirmation was not observed in time; the transaction may still land. */
  Timeout: 'Timeout',
  /** Another JSON-RPC error; `rpcCode` holds its numeric code. */
  RpcError: 'RpcError',
  /** An argument given to a ledger method is malformed (address, signature, message). */
  InvalidInput: 'InvalidInput',
} as const;

export type LedgerErrorCode = (typeof LedgerErrorCode)[keyof typeof LedgerErrorCode];

export interface LedgerErrorDetails {
  /** Program logs of the transaction, when the ledger returned them. */
  logs?: readonly string[];
  /** The runtime's transaction error in Solana's RPC JSON form (`"BlockhashNotFound"`, `{"InstructionError":[0,{"Custom":2}]}`), or null. */
  err?: unknown;
  /** Base58 signature of the transaction concerned, when known. */
  signature?: string | null;
  /** True when the transaction is on the ledger with its error (its fee was charged). */
  landed?: boolean;
  /** Index of the failing instruction, for `InstructionError` and precompile signature failures. */
  instructionIndex?: number | null;
  /** JSON-RPC error code answered by the endpoint, when the error came from one. */
  rpcCode?: number | null;
  cause?: unknown;
}

/** Error thrown by the ledger adapters; branch on {@link LedgerError.code}. */
export class LedgerError extends Error {
  override readonly name: string = 'LedgerError';
  readonly logs: string[];
  readonly err: unknown;
  readonly signature: string | null;
  readonly landed: boolean;
  readonly instructionIndex: number | null;
  readonly rpcCode: number | null;

  constructor(
    readonly code: LedgerErrorCode,
    message: string,
    details: LedgerErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.logs = [...(details.logs ?? [])];
    this.err = details.err ?? null;
    this.signature = details.signature ?? null;
    this.landed = details.landed ?? false;
    this.instructionIndex = details.instructionIndex ?? null;
    this.rpcCode = details.rpcCode ?? null;
  }
}

/** Whether `e` is a {@link LedgerError}, optionally with one of `codes`. */
export function isLedgerError(e: unknown, ...codes: LedgerErrorCode[]): e is LedgerError {
  return e instanceof LedgerError && (codes.length === 0 || codes.includes(e.code));
}
