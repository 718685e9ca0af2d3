/**
 * Conversion of LiteSVM's transaction errors to the JSON shape Solana's RPC uses
 * (`"BlockhashNotFound"`, `{"InstructionError":[0,{"Custom":1}]}`, …), to readable messages and
 * to the {@link LedgerErrorCode} both adapters report (libs/ledger/README.md, "Errors").
 */
import { LedgerErrorCode } from '../ledger-error';
import { TransactionFailedError } from '../ledger.port';
import { isPrecompileProgram, type WireMessage } from './wire';

/** `TransactionErrorFieldless` of litesvm (a `const enum`, so not available at runtime). */
const TRANSACTION_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
] as const;

/** `InstructionErrorFieldless` of litesvm. */
const INSTRUCTION_ERRORS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
] as const;

type Obj = Record<string, unknown> & { constructor?: { name?: string } };

function instructionErrorToJson(e: unknown): unknown {
  if (typeof e === 'number') return INSTRUCTION_ERRORS[e] ?? `InstructionError${e}`;
  const o = e as Obj;
  if (o && typeof o.code === 'number') return { Custom: o.code };
  if (o && typeof o.msg === 'string') return { BorshIoError: o.msg };
  return 'GenericError';
}

/**
 * Converts a litesvm `FailedTransactionMetadata.err()` value to Solana's RPC JSON form.
 */
export function transactionErrorToJson(e: unknown): unknown {
  if (typeof e === 'number') return TRANSACTION_ERRORS[e] ?? `TransactionError${e}`;
  const o = e as Obj;
  const kind = o?.constructor?.name ?? '';
  if (kind.includes('InstructionError') && typeof o.index === 'number' && typeof o.err === 'function') {
    return { InstructionError: [o.index, instructionErrorToJson((o.err as () => unknown).call(o))] };
  }
  if (kind.includes('DuplicateInstruction') && typeof o.index === 'number') return { DuplicateInstruction: o.index };
  if (kind.includes('InsufficientFundsForRent')) return { InsufficientFundsForRent: { account_index: o.accountIndex } };
  if (kind.includes('ProgramExecutionTemporarilyRestricted')) {
    return { ProgramExecutionTemporarilyRestricted: { account_index: o.accountIndex } };
  }
  return String(e);
}

const TRANSACTION_ERROR_TEXT: Record<string, string> = {
  AccountInUse: 'Account in use',
  AccountLoadedTwice: 'Account loaded twice',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InvalidProgramForExecution: 'This program may not be used for executing instructions',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  MissingSignatureForFee: 'Transaction did not pass signature verification',
  SignatureFailure: 'Transaction did not pass signature verification',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
  UnsupportedVersion: 'Transaction version is unsupported',
};

/** A readable message for a Solana JSON transaction error, worded like the validator's. */
export function describeTransactionError(err: unknown): string {
  if (typeof err === 'string') return TRANSACTION_ERROR_TEXT[err] ?? err;
  if (err && typeof err === 'object') {
    const o = err as Record<string, unknown>;
    if (Array.isArray(o.InstructionError)) {
      const [index, inner] = o.InstructionError as [number, unknown];
      let detail: string;
      if (inner && typeof inner === 'object' && 'Custom' in inner) {
        detail = `custom program error: 0x${Number((inner as { Custom: number }).Custom).toString(16)}`;
      } else {
        detail = typeof inner === 'string' ? inner : JSON.stringify(inner);
      }
      return `Error processing Instruction ${index}: ${detail}`;
    }
    if ('InsufficientFundsForRent' in o) {
      const i = (o.InsufficientFundsForRent as { account_index?: number }).account_index;
      return `Transaction results in an account (${i}) with insufficient funds for rent`;
    }
    return JSON.stringify(err);
  }
  return String(err);
}

/** Transaction errors that mean the bytes themselves are not an acceptable transaction. */
const MALFORMED = new Set(['SanitizeFailure', 'UnsupportedVersion', 'InvalidAccountIndex', 'AccountLoadedTwice', 'ResanitizationNeeded']);
const BY_NAME: Record<string, LedgerErrorCode> = {
  BlockhashNotFound: LedgerErrorCode.BlockhashNotFound,
  AlreadyProcessed: LedgerErrorCode.AlreadyProcessed,
  InsufficientFundsForFee: LedgerErrorCode.InsufficientFunds,
  AccountNotFound: LedgerErrorCode.AccountNotFound,
  SignatureFailure: LedgerErrorCode.SignatureVerificationFailed,
  MissingSignatureForFee: LedgerErrorCode.SignatureVerificationFailed,
};

/**
 * The ledger code of a Solana JSON transaction error, and the failing instruction's index.
 * An `InstructionError` raised by a signature-verification precompile (Ed25519, secp256k1,
 * secp256r1) of `message` is `SignatureVerificationFailed`: a validator refuses it before execution.
 * A fee payer left below rent exemption (`InsufficientFundsForRent` of account 0) is `InsufficientFunds`.
 */
export function classifyTransactionError(err: unknown, message: WireMessage | null): { code: LedgerErrorCode; instructionIndex: number | null } {
  if (typeof err === 'string') {
    if (MALFORMED.has(err)) return { code: LedgerErrorCode.InvalidTransaction, instructionIndex: null };
    return { code: BY_NAME[err] ?? LedgerErrorCode.TransactionFailed, instructionIndex: null };
  }
  if (err !== null && typeof err === 'object') {
    const o = err as Record<string, unknown>;
    if (Array.isArray(o.InstructionError) && typeof o.InstructionError[0] === 'number') {
      const index = o.InstructionError[0];
      const ix = message?.instructions[index];
      const program = ix === undefined ? undefined : message?.accountKeys[ix.programIdIndex];
      const precompile = program !== undefined && isPrecompileProgram(program);
      return { code: precompile ? LedgerErrorCode.SignatureVerificationFailed : LedgerErrorCode.InstructionError, instructionIndex: index };
    }
    const rent = o.InsufficientFundsForRent as { account_index?: unknown } | undefined;
    if (rent !== undefined && rent !== null && rent.account_index === 0) return { code: LedgerErrorCode.InsufficientFunds, instructionIndex: null };
  }
  return { code: LedgerErrorCode.TransactionFailed, instructionIndex: null };
}

/**
 * A {@link TransactionFailedError} for the Solana JSON error `err`, its code set by
 * {@link classifyTransactionError}. `prefix` starts the message (e.g. `Transaction failed: `).
 */
export function transactionFailure(
  err: unknown,
  context: { message: WireMessage | null; logs?: readonly string[]; signature: string | null; landed: boolean; prefix?: string },
): TransactionFailedError {
  const { code, instructionIndex } = classifyTransactionError(err, context.message);
  const text = describeTransactionError(err);
  const prefix = context.prefix ?? (code === LedgerErrorCode.SignatureVerificationFailed && instructionIndex !== null ? 'Transaction precompile verification failure: ' : '');
  return new TransactionFailedError(code, `${prefix}${text}`, {
    err,
    logs: context.logs,
    signature: context.signature,
    landed: context.landed,
    instructionIndex,
  });
}
