/**
 * From what `@solana/kit` throws to {@link LedgerError}s with a {@link LedgerErrorCode}
 * (libs/ledger/README.md, "Errors"). Kit raises a `SolanaError` whose code is the JSON-RPC
 * error code for errors answered by the endpoint (-32002 preflight failure with the
 * TransactionError, -32003 signature verification, …), its own positive codes otherwise
 * (8100002: HTTP status other than 2xx), and plain errors when `fetch` itself fails.
 */
import { isSolanaError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR } from '@solana/kit';
import { TransactionFailedError } from '../ledger.port';
import { LedgerError, LedgerErrorCode } from '../ledger-error';
import { transactionFailure } from '../internal/tx-error';
import type { WireMessage } from '../internal/wire';
import { bigintsToNumbers } from './json';

/** Key under which the transport keeps the raw `data.err` of a failed preflight (kit nests it as a SolanaError). */
export const RAW_TRANSACTION_ERROR = 'ledgerRawTransactionError';

/** The transaction being sent, when the failing call is `sendTransaction`. */
export interface SendingContext {
  signature: string;
  message: WireMessage;
}

/**
 * JSON-RPC codes as kit reports them: the standard and Solana server codes are negative; other
 * codes servers use (e.g. 429 for a refused airdrop) fall between 100 and 999. Kit's own codes are
 * 1 to 10 and from 1,000 up.
 */
function isJsonRpcCode(code: number): boolean {
  return code < 0 || (code >= 100 && code < 1000);
}

/**
 * The {@link LedgerError} for an error thrown by a kit RPC call. Already-converted errors pass through.
 * - transport failures, HTTP errors and `-32005` (node unhealthy): `Unavailable` (HTTP 429, a rate or
 *   airdrop limit, also sets `rpcCode` 429);
 * - `-32002` (preflight failure): the code of its TransactionError (`BlockhashNotFound`,
 *   `AlreadyProcessed`, `InsufficientFunds`, `InstructionError`, precompile → `SignatureVerificationFailed`…);
 * - `-32003` / `-32006`: `SignatureVerificationFailed`;
 * - `-32602`: `InvalidTransaction` while sending, `InvalidInput` otherwise;
 * - any other JSON-RPC error: `RpcError` with `rpcCode`.
 */
export function ledgerErrorFromRpc(e: unknown, sending?: SendingContext): LedgerError {
  if (e instanceof LedgerError) return e;
  if (!isSolanaError(e)) {
    // fetch rejects with a DOMException, which is not `instanceof Error` in every realm (a vm context, a test runner).
    const aborted = typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'AbortError';
    const message = aborted ? 'RpcLedger closed' : `ledger RPC unreachable: ${(e as Error)?.message ?? String(e)}`;
    return new LedgerError(LedgerErrorCode.Unavailable, message, { cause: e });
  }
  if (isSolanaError(e, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) {
    const status = e.context.statusCode;
    const text = `ledger RPC answered HTTP ${status} ${e.context.message}`;
    // 429: the endpoint refuses this caller for now (rate or airdrop limit): retry later, like any unavailability.
    return new LedgerError(LedgerErrorCode.Unavailable, text, { rpcCode: status === 429 ? 429 : null, cause: e });
  }
  const ctx = e.context as Record<string, unknown>;
  const code = Number(ctx.__code);
  if (!isJsonRpcCode(code)) return new LedgerError(LedgerErrorCode.RpcError, e.message, { cause: e });
  const message = typeof ctx.__serverMessage === 'string' ? ctx.__serverMessage : e.message;
  const signature = sending?.signature ?? null;
  const base = { rpcCode: code, signature, cause: e };
  switch (code) {
    case -32002: {
      // kit upcasts numbers in error data to bigint; the port's err is plain Solana JSON.
      const err = bigintsToNumbers(ctx[RAW_TRANSACTION_ERROR] ?? null);
      if (err === null) return new LedgerError(LedgerErrorCode.RpcError, message, base);
      const logs = Array.isArray(ctx.logs) ? ctx.logs.map(String) : [];
      return transactionFailure(err, { message: sending?.message ?? null, logs, signature, landed: false, prefix: 'Transaction simulation failed: ' });
    }
    case -32003:
      return new TransactionFailedError(LedgerErrorCode.SignatureVerificationFailed, 'Transaction signature verification failure', { ...base, err: 'SignatureFailure' });
    case -32006:
      return new TransactionFailedError(LedgerErrorCode.SignatureVerificationFailed, message, base);
    case -32005:
      return new LedgerError(LedgerErrorCode.Unavailable, message, base);
    case -32602:
      return sending !== undefined
        ? new TransactionFailedError(LedgerErrorCode.InvalidTransaction, message, { ...base, err: 'SanitizeFailure' })
        : new LedgerError(LedgerErrorCode.InvalidInput, message, base);
    default:
      return new LedgerError(LedgerErrorCode.RpcError, message, base);
  }
}
