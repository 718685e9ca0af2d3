/**
 * Conversion of LiteSVM's transaction errors to the JSON shape Solana's RPC uses
 * (`"BlockhashNotFound"`, `{"InstructionError":[0,{"Custom":1}]}`, …) and to readable messages.
 */

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
