/**
 * The `jsonParsed` encoding of transactions, shaped as Solana's RPC (Agave's transaction-status
 * crate) writes it:
 * - `message.accountKeys` as `{pubkey, writable, signer, source}` (`source` `transaction` for
 *   static keys, `lookupTable` for loaded ones);
 * - System program instructions as `{program: "system", programId, parsed: {type, info}, stackHeight}`
 *   with Agave's type names and info fields (`transfer` → `source`, `destination`, `lamports`…);
 * - SPL Memo (v1 and v2/v3) as `{program: "spl-memo", programId, parsed: "<UTF-8 text>", stackHeight}`;
 * - every other instruction, the Ed25519, secp256k1 and secp256r1 precompiles and ComputeBudget
 *   included (the real RPC has no parser for them), and any instruction a parser refuses (too
 *   few accounts, undecodable data, memo that is not UTF-8) "partially decoded":
 *   `{programId, accounts: [base58…], data: base58, stackHeight}`.
 * Instruction data of the System program is decoded with `@solana-program/system`'s codecs.
 */
import {
  getAdvanceNonceAccountInstructionDataDecoder,
  getAllocateInstructionDataDecoder,
  getAllocateWithSeedInstructionDataDecoder,
  getAssignInstructionDataDecoder,
  getAssignWithSeedInstructionDataDecoder,
  getAuthorizeNonceAccountInstructionDataDecoder,
  getCreateAccountInstructionDataDecoder,
  getCreateAccountWithSeedInstructionDataDecoder,
  getInitializeNonceAccountInstructionDataDecoder,
  getTransferSolInstructionDataDecoder,
  getTransferSolWithSeedInstructionDataDecoder,
  getUpgradeNonceAccountInstructionDataDecoder,
  getWithdrawNonceAccountInstructionDataDecoder,
  identifySystemInstruction,
  SystemInstruction,
} from '@solana-program/system';
import { MEMO_PROGRAM_ADDRESS, MEMO_V1_PROGRAM_ADDRESS, SYSTEM_PROGRAM_ADDRESS } from '../constants';
import { encodeBase58 } from '../internal/base58';
import { staticKeyFlags, type WireInstruction, type WireMessage } from '../internal/wire';
import { addressTableLookupsJson } from './json-rpc-params';

/** Account keys of a message as base58 (static, then loaded writable, then loaded readonly) with their flags. */
export interface ParsedAccountKey {
  pubkey: string;
  writable: boolean;
  signer: boolean;
  source: 'transaction' | 'lookupTable';
}

/** Every account key of the message with Solana's signer/writable flags ({@link staticKeyFlags}). */
export function accountKeysOf(message: WireMessage, loaded: { writable: string[]; readonly: string[] } | null): ParsedAccountKey[] {
  const flags = staticKeyFlags(message);
  const out: ParsedAccountKey[] = message.accountKeys.map((key, i) => ({
    pubkey: encodeBase58(key),
    writable: flags[i]!.writable,
    signer: flags[i]!.signer,
    source: 'transaction',
  }));
  for (const pubkey of loaded?.writable ?? []) out.push({ pubkey, writable: true, signer: false, source: 'lookupTable' });
  for (const pubkey of loaded?.readonly ?? []) out.push({ pubkey, writable: false, signer: false, source: 'lookupTable' });
  return out;
}

type Info = Record<string, unknown>;

/** Agave's `type` name, the accounts it needs, and the `info` object, per System instruction. */
const SYSTEM_PARSERS: Partial<Record<SystemInstruction, { type: string; accounts: number; info: (data: Uint8Array, a: string[]) => Info }>> = {
  [SystemInstruction.CreateAccount]: {
    type: 'createAccount',
    accounts: 2,
    info: (d, a) => {
      const x = getCreateAccountInstructionDataDecoder().decode(d);
      return { source: a[0], newAccount: a[1], lamports: x.lamports, space: x.space, owner: x.programAddress };
    },
  },
  [SystemInstruction.Assign]: {
    type: 'assign',
    accounts: 1,
    info: (d, a) => ({ account: a[0], owner: getAssignInstructionDataDecoder().decode(d).programAddress }),
  },
  [SystemInstruction.TransferSol]: {
    type: 'transfer',
    accounts: 2,
    info: (d, a) => ({ source: a[0], destination: a[1], lamports: getTransferSolInstructionDataDecoder().decode(d).amount }),
  },
  [SystemInstruction.CreateAccountWithSeed]: {
    type: 'createAccountWithSeed',
    accounts: 2,
    info: (d, a) => {
      const x = getCreateAccountWithSeedInstructionDataDecoder().decode(d);
      return { source: a[0], newAccount: a[1], base: x.base, seed: x.seed, lamports: x.amount, space: x.space, owner: x.programAddress };
    },
  },
  [SystemInstruction.AdvanceNonceAccount]: {
    type: 'advanceNonce',
    accounts: 3,
    info: (d, a) => {
      getAdvanceNonceAccountInstructionDataDecoder().decode(d);
      return { nonceAccount: a[0], recentBlockhashesSysvar: a[1], nonceAuthority: a[2] };
    },
  },
  [SystemInstruction.WithdrawNonceAccount]: {
    type: 'withdrawFromNonce',
    accounts: 5,
    info: (d, a) => ({
      nonceAccount: a[0],
      destination: a[1],
      recentBlockhashesSysvar: a[2],
      rentSysvar: a[3],
      nonceAuthority: a[4],
      lamports: getWithdrawNonceAccountInstructionDataDecoder().decode(d).withdrawAmount,
    }),
  },
  [SystemInstruction.InitializeNonceAccount]: {
    type: 'initializeNonce',
    accounts: 3,
    info: (d, a) => ({
      nonceAccount: a[0],
      recentBlockhashesSysvar: a[1],
      rentSysvar: a[2],
      nonceAuthority: getInitializeNonceAccountInstructionDataDecoder().decode(d).nonceAuthority,
    }),
  },
  [SystemInstruction.AuthorizeNonceAccount]: {
    type: 'authorizeNonce',
    accounts: 2,
    info: (d, a) => ({ nonceAccount: a[0], nonceAuthority: a[1], newAuthorized: getAuthorizeNonceAccountInstructionDataDecoder().decode(d).newNonceAuthority }),
  },
  [SystemInstruction.Allocate]: {
    type: 'allocate',
    accounts: 1,
    info: (d, a) => ({ account: a[0], space: getAllocateInstructionDataDecoder().decode(d).space }),
  },
  [SystemInstruction.AllocateWithSeed]: {
    type: 'allocateWithSeed',
    accounts: 2,
    info: (d, a) => {
      const x = getAllocateWithSeedInstructionDataDecoder().decode(d);
      return { account: a[0], base: x.base, seed: x.seed, space: x.space, owner: x.programAddress };
    },
  },
  [SystemInstruction.AssignWithSeed]: {
    type: 'assignWithSeed',
    accounts: 2,
    info: (d, a) => {
      const x = getAssignWithSeedInstructionDataDecoder().decode(d);
      return { account: a[0], base: x.base, seed: x.seed, owner: x.programAddress };
    },
  },
  [SystemInstruction.TransferSolWithSeed]: {
    type: 'transferWithSeed',
    accounts: 3,
    info: (d, a) => {
      const x = getTransferSolWithSeedInstructionDataDecoder().decode(d);
      return { source: a[0], sourceBase: a[1], destination: a[2], lamports: x.amount, sourceSeed: x.fromSeed, sourceOwner: x.fromOwner };
    },
  },
  [SystemInstruction.UpgradeNonceAccount]: {
    type: 'upgradeNonce',
    accounts: 1,
    info: (d, a) => {
      getUpgradeNonceAccountInstructionDataDecoder().decode(d);
      return { nonceAccount: a[0] };
    },
  },
};

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function parseSystem(data: Uint8Array, accounts: string[]): { type: string; info: Info } | null {
  try {
    const parser = SYSTEM_PARSERS[identifySystemInstruction(data)];
    if (parser === undefined || accounts.length < parser.accounts) return null;
    return { type: parser.type, info: parser.info(data, accounts) };
  } catch {
    return null;
  }
}

/** One instruction in the `jsonParsed` encoding (see the file comment). */
export function parsedInstructionJson(ix: WireInstruction, keys: readonly ParsedAccountKey[]): Record<string, unknown> {
  const programId = keys[ix.programIdIndex]?.pubkey ?? '';
  const accounts = [...ix.accounts].map((i) => keys[i]?.pubkey ?? '');
  if (programId === SYSTEM_PROGRAM_ADDRESS) {
    const parsed = parseSystem(ix.data, accounts);
    if (parsed !== null) return { program: 'system', programId, parsed, stackHeight: null };
  } else if (programId === MEMO_PROGRAM_ADDRESS || programId === MEMO_V1_PROGRAM_ADDRESS) {
    try {
      return { program: 'spl-memo', programId, parsed: strictUtf8.decode(ix.data), stackHeight: null };
    } catch {
      // not UTF-8: partially decoded below, as the real RPC does
    }
  }
  return { programId, accounts, data: encodeBase58(ix.data), stackHeight: null };
}

/** The `jsonParsed` encoding of a transaction (`{signatures, message}`). */
export function parsedTransactionJson(
  message: WireMessage,
  signatures: Uint8Array[],
  loaded: { writable: string[]; readonly: string[] } | null,
): Record<string, unknown> {
  const accountKeys = accountKeysOf(message, loaded);
  const out: Record<string, unknown> = {
    accountKeys,
    recentBlockhash: encodeBase58(message.recentBlockhash),
    instructions: message.instructions.map((ix) => parsedInstructionJson(ix, accountKeys)),
  };
  if (message.version === 0) out.addressTableLookups = addressTableLookupsJson(message);
  return { signatures: signatures.map(encodeBase58), message: out };
}
