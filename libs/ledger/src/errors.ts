import { TransactionFailedError } from './ledger.port';

/**
 * A {@link TransactionFailedError} that also says whether the failed transaction landed
 * (was recorded with its error and charged its fee) and under which signature.
 * Transactions rejected before execution (bad signature, unknown/expired blockhash, duplicate,
 * precompile verification failure, malformed bytes) have `landed === false`.
 */
export class LedgerTransactionFailedError extends TransactionFailedError {
  constructor(
    message: string,
    logs: string[],
    err: unknown,
    /** Base58 signature of the transaction, when it could be read. */
    readonly signature: string | null,
    /** True when the transaction is on the ledger with `err` (its fee was charged). */
    readonly landed: boolean,
  ) {
    super(message, logs, err);
  }
}

/** Invalid argument given to a ledger method (malformed address, signature or message). */
export class LedgerInputError extends Error {
  override readonly name = 'LedgerInputError';
}
