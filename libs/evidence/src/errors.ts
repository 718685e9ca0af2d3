/**
 * Errors of the evidence library. Every error is an `Error` subclass with a stable `code`, so
 * callers (HTTP layer, CLI, workers) can map it without parsing the text. No string throws.
 */

/** Stable codes of evidence errors. */
export type EvidenceErrorCode =
  | 'invalid_content'
  | 'invalid_field'
  | 'invalid_message'
  | 'invalid_memo'
  | 'invalid_instruction'
  | 'invalid_transaction'
  | 'transaction_too_large'
  | 'invalid_sign_in_message'
  | 'invalid_receipt';

/** Base class of every error thrown by `@svc/evidence`. */
export class EvidenceError extends Error {
  override readonly name: string = 'EvidenceError';
  constructor(
    readonly code: EvidenceErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A value given to a builder does not satisfy the protocol's field rules. */
export class FieldError extends EvidenceError {
  override readonly name = 'FieldError';
  constructor(message: string) {
    super('invalid_field', message);
  }
}

/** Document text that cannot be turned into canonical bytes (e.g. unpaired UTF-16 surrogates). */
export class ContentError extends EvidenceError {
  override readonly name = 'ContentError';
  constructor(message: string) {
    super('invalid_content', message);
  }
}

/** An acceptance message that is not byte-exact `svc/1`, or of an unsupported protocol version. */
export class MessageFormatError extends EvidenceError {
  override readonly name = 'MessageFormatError';
  constructor(message: string) {
    super('invalid_message', message);
  }
}

/** A memo that starts with this protocol's prefix but is not a well-formed record. */
export class MemoFormatError extends EvidenceError {
  override readonly name = 'MemoFormatError';
  constructor(message: string) {
    super('invalid_memo', message);
  }
}

/** Ed25519 precompile instruction data that cannot be built or parsed. */
export class Ed25519InstructionError extends EvidenceError {
  override readonly name = 'Ed25519InstructionError';
  constructor(message: string) {
    super('invalid_instruction', message);
  }
}

/** Transaction wire bytes that cannot be decoded as an evidence transaction. */
export class TransactionFormatError extends EvidenceError {
  override readonly name = 'TransactionFormatError';
  constructor(message: string) {
    super('invalid_transaction', message);
  }
}

/** A built transaction exceeds Solana's 1232-byte packet limit. */
export class TransactionTooLargeError extends EvidenceError {
  override readonly name = 'TransactionTooLargeError';
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super('transaction_too_large', `transaction is ${size} bytes; the limit is ${limit}`);
  }
}

/** A sign-in message that is not byte-exact. */
export class SignInMessageFormatError extends EvidenceError {
  override readonly name = 'SignInMessageFormatError';
  constructor(message: string) {
    super('invalid_sign_in_message', message);
  }
}

/** A receipt that does not have the `svc-receipt-v1` shape. `problems` lists every violation. */
export class ReceiptFormatError extends EvidenceError {
  override readonly name = 'ReceiptFormatError';
  constructor(readonly problems: string[]) {
    super('invalid_receipt', `invalid receipt: ${problems.join('; ')}`);
  }
}
