/**
 * Zero-copy reader for Solana wire transactions (legacy and v0).
 *
 * Same layout as kit's `getTransactionDecoder` + `getCompiledTransactionMessageDecoder`
 * (a unit test checks they agree) but it returns byte views instead of base58 strings:
 * kit's decoders cost ~100 µs per transaction on the reference box, about as much as
 * executing it in LiteSVM, and the ledger's hot path needs the raw bytes anyway.
 */
import { decodeBase58 } from './base58';
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  ED25519_PROGRAM_ADDRESS,
  LAMPORTS_PER_SIGNATURE,
  MEMO_PROGRAM_ADDRESS,
  MEMO_V1_PROGRAM_ADDRESS,
  SECP256K1_PROGRAM_ADDRESS,
  SECP256R1_PROGRAM_ADDRESS,
} from '../constants';

export class WireFormatError extends Error {
  override readonly name = 'WireFormatError';
}

export interface MessageHeader {
  numRequiredSignatures: number;
  numReadonlySignedAccounts: number;
  numReadonlyUnsignedAccounts: number;
}

export interface WireInstruction {
  programIdIndex: number;
  /** Indexes into the message's account keys (static keys, then loaded writable, then loaded readonly). */
  accounts: Uint8Array;
  data: Uint8Array;
}

export interface WireAddressTableLookup {
  accountKey: Uint8Array;
  writableIndexes: Uint8Array;
  readonlyIndexes: Uint8Array;
}

export interface WireMessage {
  version: 'legacy' | 0;
  header: MessageHeader;
  /** Static account keys, 32-byte views. */
  accountKeys: Uint8Array[];
  recentBlockhash: Uint8Array;
  instructions: WireInstruction[];
  addressTableLookups: WireAddressTableLookup[];
}

export interface WireTransaction {
  /** 64-byte views, in account-key order. */
  signatures: Uint8Array[];
  /** View of the message bytes (what the signatures sign). */
  messageBytes: Uint8Array;
  message: WireMessage;
}

const b58 = (s: string): Uint8Array => decodeBase58(s);
export const ED25519_PROGRAM_BYTES = b58(ED25519_PROGRAM_ADDRESS);
export const SECP256K1_PROGRAM_BYTES = b58(SECP256K1_PROGRAM_ADDRESS);
export const SECP256R1_PROGRAM_BYTES = b58(SECP256R1_PROGRAM_ADDRESS);
const COMPUTE_BUDGET_BYTES = b58(COMPUTE_BUDGET_PROGRAM_ADDRESS);
const MEMO_BYTES = b58(MEMO_PROGRAM_ADDRESS);
const SYSTEM_BYTES = new Uint8Array(32);
const MEMO_V1_BYTES = b58(MEMO_V1_PROGRAM_ADDRESS);
/** Programs whose instructions get the builtin default compute allocation (3,000 CU). */
const BUILTIN_PROGRAMS = [
  '11111111111111111111111111111111',
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  ED25519_PROGRAM_ADDRESS,
  SECP256K1_PROGRAM_ADDRESS,
  SECP256R1_PROGRAM_ADDRESS,
  'Vote111111111111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
].map(b58);

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

class Reader {
  constructor(
    readonly bytes: Uint8Array,
    public pos: number,
  ) {}
  u8(): number {
    if (this.pos >= this.bytes.length) throw new WireFormatError('unexpected end of transaction bytes');
    return this.bytes[this.pos++]!;
  }
  /** Solana's compact-u16 ("shortvec") length prefix. */
  shortU16(): number {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const byte = this.u8();
      value |= (byte & 0x7f) << (7 * i);
      if ((byte & 0x80) === 0) {
        if (i > 0 && byte === 0) throw new WireFormatError('non-canonical compact-u16');
        if (value > 0xffff) throw new WireFormatError('compact-u16 overflow');
        return value;
      }
    }
    throw new WireFormatError('compact-u16 too long');
  }
  take(n: number): Uint8Array {
    const end = this.pos + n;
    if (end > this.bytes.length) throw new WireFormatError('unexpected end of transaction bytes');
    const view = this.bytes.subarray(this.pos, end);
    this.pos = end;
    return view;
  }
}

function readMessage(r: Reader): WireMessage {
  const first = r.u8();
  let version: 'legacy' | 0 = 'legacy';
  let numRequiredSignatures = first;
  if (first & 0x80) {
    const v = first & 0x7f;
    if (v !== 0) throw new WireFormatError(`unsupported transaction version ${v}`);
    version = 0;
    numRequiredSignatures = r.u8();
  }
  const header: MessageHeader = { numRequiredSignatures, numReadonlySignedAccounts: r.u8(), numReadonlyUnsignedAccounts: r.u8() };
  const nKeys = r.shortU16();
  const accountKeys: Uint8Array[] = new Array(nKeys);
  for (let i = 0; i < nKeys; i++) accountKeys[i] = r.take(32);
  const recentBlockhash = r.take(32);
  const nIx = r.shortU16();
  const instructions: WireInstruction[] = new Array(nIx);
  for (let i = 0; i < nIx; i++) {
    const programIdIndex = r.u8();
    const accounts = r.take(r.shortU16());
    const data = r.take(r.shortU16());
    instructions[i] = { programIdIndex, accounts, data };
  }
  const addressTableLookups: WireAddressTableLookup[] = [];
  if (version === 0) {
    const nLookups = r.shortU16();
    for (let i = 0; i < nLookups; i++) {
      const accountKey = r.take(32);
      const writableIndexes = r.take(r.shortU16());
      const readonlyIndexes = r.take(r.shortU16());
      addressTableLookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  if (header.numRequiredSignatures > nKeys) throw new WireFormatError('more required signatures than account keys');
  let loaded = 0;
  for (const l of addressTableLookups) loaded += l.writableIndexes.length + l.readonlyIndexes.length;
  for (const ix of instructions) {
    if (ix.programIdIndex >= nKeys) throw new WireFormatError('program id index out of range');
    for (const a of ix.accounts) if (a >= nKeys + loaded) throw new WireFormatError('account index out of range');
  }
  return { version, header, accountKeys, recentBlockhash, instructions, addressTableLookups };
}

/**
 * Parses a wire transaction (signatures + message). Rejects trailing bytes.
 * @throws WireFormatError when the bytes are not a well-formed transaction.
 */
export function parseWireTransaction(wire: Uint8Array): WireTransaction {
  const r = new Reader(wire, 0);
  const nSigs = r.shortU16();
  const signatures: Uint8Array[] = new Array(nSigs);
  for (let i = 0; i < nSigs; i++) signatures[i] = r.take(64);
  const start = r.pos;
  const message = readMessage(r);
  if (r.pos !== wire.length) throw new WireFormatError('trailing bytes after the message');
  if (nSigs === 0) throw new WireFormatError('transaction has no signatures');
  if (nSigs !== message.header.numRequiredSignatures) {
    throw new WireFormatError(`${nSigs} signatures for ${message.header.numRequiredSignatures} required signers`);
  }
  return { signatures, messageBytes: wire.subarray(start), message };
}

/**
 * Parses compiled message bytes (what `getFeeForMessage` receives).
 * @throws WireFormatError when malformed.
 */
export function parseWireMessage(bytes: Uint8Array): WireMessage {
  const r = new Reader(bytes, 0);
  const message = readMessage(r);
  if (r.pos !== bytes.length) throw new WireFormatError('trailing bytes after the message');
  return message;
}

/** True when the instruction's program is one of the signature-verification precompiles. */
export function isPrecompileProgram(key: Uint8Array | undefined): boolean {
  return key !== undefined && (bytesEqual(key, ED25519_PROGRAM_BYTES) || bytesEqual(key, SECP256K1_PROGRAM_BYTES) || bytesEqual(key, SECP256R1_PROGRAM_BYTES));
}

/**
 * Fee in lamports Solana charges for the message: 5,000 per transaction signature and per
 * precompile signature (the first data byte of each Ed25519/Secp256k1/Secp256r1 instruction),
 * plus the prioritization fee ceil(price µlamports × compute-unit limit / 10^6) when a
 * ComputeBudget `SetComputeUnitPrice` is present.
 */
export function computeMessageFee(message: WireMessage): bigint {
  let signatures = message.header.numRequiredSignatures;
  let price = 0n;
  let limit: number | undefined;
  let defaultLimit = 0;
  for (const ix of message.instructions) {
    const program = message.accountKeys[ix.programIdIndex];
    if (program === undefined) continue;
    if (isPrecompileProgram(program)) {
      signatures += ix.data.length > 0 ? ix.data[0]! : 0;
    }
    if (bytesEqual(program, COMPUTE_BUDGET_BYTES)) {
      const tag = ix.data[0];
      const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
      if (tag === 2 && ix.data.length >= 5) limit = view.getUint32(1, true);
      else if (tag === 3 && ix.data.length >= 9) price = view.getBigUint64(1, true);
    }
    defaultLimit += BUILTIN_PROGRAMS.some((b) => bytesEqual(b, program)) ? 3_000 : 200_000;
  }
  let fee = BigInt(signatures) * LAMPORTS_PER_SIGNATURE;
  if (price > 0n) {
    const units = BigInt(Math.min(limit ?? defaultLimit, 1_400_000));
    fee += (price * units + 999_999n) / 1_000_000n;
  }
  return fee;
}

/**
 * The compute-unit price the message sets with ComputeBudget `SetComputeUnitPrice`, in
 * micro-lamports per compute unit (0 when it sets none).
 */
export function computeUnitPrice(message: WireMessage): bigint {
  let price = 0n;
  for (const ix of message.instructions) {
    const program = message.accountKeys[ix.programIdIndex];
    if (program === undefined || !bytesEqual(program, COMPUTE_BUDGET_BYTES) || ix.data[0] !== 3 || ix.data.length < 9) continue;
    price = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength).getBigUint64(1, true);
  }
  return price;
}

/** Whether the message starts with System `AdvanceNonceAccount` (a durable-nonce transaction); its nonce account index, else null. */
export function nonceAccountIndex(message: WireMessage): number | null {
  const ix = message.instructions[0];
  if (ix === undefined || ix.data.length < 4 || ix.accounts.length === 0) return null;
  const program = message.accountKeys[ix.programIdIndex];
  if (program === undefined || !bytesEqual(program, SYSTEM_BYTES)) return null;
  return new DataView(ix.data.buffer, ix.data.byteOffset, 4).getUint32(0, true) === 4 ? ix.accounts[0]! : null;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * The memo text Solana's `getSignaturesForAddress` reports: each Memo instruction as
 * `[<byte length>] <text>`, joined by `; `. Null when the transaction has no memo.
 */
export function extractMemo(message: WireMessage): string | null {
  let out: string | null = null;
  for (const ix of message.instructions) {
    const program = message.accountKeys[ix.programIdIndex];
    if (program === undefined || !(bytesEqual(program, MEMO_BYTES) || bytesEqual(program, MEMO_V1_BYTES))) continue;
    const entry = `[${ix.data.length}] ${utf8.decode(ix.data)}`;
    out = out === null ? entry : `${out}; ${entry}`;
  }
  return out;
}

/**
 * Signer and writable flags of the message's static account keys, as the runtime sees them: the
 * header decides, and a key invoked as a program is not writable (the runtime demotes it).
 */
export function staticKeyFlags(message: WireMessage): { signer: boolean; writable: boolean }[] {
  const { header, accountKeys, instructions } = message;
  const n = accountKeys.length;
  const programs = new Set(instructions.map((ix) => ix.programIdIndex));
  const writableSigned = header.numRequiredSignatures - header.numReadonlySignedAccounts;
  return accountKeys.map((_key, i) => ({
    signer: i < header.numRequiredSignatures,
    writable: !programs.has(i) && (i < writableSigned || (i >= header.numRequiredSignatures && i < n - header.numReadonlyUnsignedAccounts)),
  }));
}
