import { LedgerError, LedgerErrorCode } from './ledger-error';

/** Invalid argument given to a ledger method (malformed address, signature or message); code `InvalidInput`. */
export class LedgerInputError extends LedgerError {
  override readonly name: string = 'LedgerInputError';
  constructor(message: string) {
    super(LedgerErrorCode.InvalidInput, message);
  }
}
