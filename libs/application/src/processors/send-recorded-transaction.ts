import { isLedgerError, LedgerErrorCode, toSignature, type Ledger } from '@svc/ledger';

/** What sending a recorded transaction came to: landed, its blockhash expired unlanded, or refused by the ledger. */
export type SendOutcome = 'landed' | 'expired' | { reason: string; logs: string[] };

/**
 * Sends the exact bytes recorded before (docs/architecture.md "Relay": sign, record, send, record the outcome), so a
 * resend after a crash can never land twice: a transaction that already landed answers `AlreadyProcessed`, or shows
 * up in the ledger's signature statuses when its blockhash is gone. `expired` means the ledger has no trace of it.
 * @param transaction the recorded transaction: base58 signature and base64 wire bytes.
 * @param steps called just before and just after the send (crash points of the durability tests).
 * @throws the ledger's error when it is unreachable or times out, or answers an error that is no verdict on the
 *   transaction (`RpcError`, e.g. -32603 internal) and the transaction has not landed (the processor retries later).
 */
export async function sendRecordedTransaction(
  ledger: Ledger,
  transaction: { transactionSignature: string; transactionWire: string },
  steps: { before?: () => void; after?: () => void } = {},
): Promise<SendOutcome> {
  steps.before?.();
  try {
    await ledger.sendTransaction(Buffer.from(transaction.transactionWire, 'base64'), { commitment: 'confirmed' });
    steps.after?.();
    return 'landed';
  } catch (err) {
    if (isLedgerError(err, LedgerErrorCode.AlreadyProcessed)) return 'landed';
    if (isLedgerError(err, LedgerErrorCode.BlockhashNotFound)) {
      const [status] = await ledger.getSignatureStatuses([toSignature(transaction.transactionSignature)]);
      return status ? 'landed' : 'expired';
    }
    if (isLedgerError(err, LedgerErrorCode.Unavailable, LedgerErrorCode.Timeout) || !isLedgerError(err)) throw err;
    if (err.code === LedgerErrorCode.RpcError) {
      // Not a verdict on the transaction (an internal or unknown error of the node): it may have landed all the same.
      // Otherwise the same bytes are sent again later, until they land, are refused or their blockhash expires.
      const [status] = await ledger.getSignatureStatuses([toSignature(transaction.transactionSignature)]);
      if (status) return 'landed';
      throw err;
    }
    return { reason: `${err.code}: ${err.message}`, logs: err.logs.slice(0, 50) };
  }
}
