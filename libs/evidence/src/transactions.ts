/**
 * Evidence transactions, built with `@solana/kit` and parsed by hand (the hot path of verification). Layouts (instruction order, accounts,
 * fee payer) are specified in docs/protocol.md ("Transactions"). Transactions are legacy-format
 * (no address lookup tables) with a recent-blockhash lifetime.
 */
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  blockhash as toBlockhash,
  compileTransaction,
  createTransactionMessage,
  getSignatureFromTransaction,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type AccountSignerMeta,
  type Instruction,
  type InstructionWithSigners,
  type TransactionSigner,
} from '@solana/kit';
import {
  SYSTEM_PROGRAM_ADDRESS,
  getCreateAccountInstruction,
  getInitializeNonceAccountDiscriminatorBytes,
  getInitializeNonceAccountInstruction,
  getInitializeNonceAccountInstructionDataDecoder,
  getNonceSize,
} from '@solana-program/system';
import { base58ToBytes, bytesToBase58 } from './base58';
import { ED25519_PROGRAM_ADDRESS, MEMO_PROGRAM_ADDRESS, TRANSACTION_SIZE_LIMIT } from './constants';
import { buildEd25519Instruction, parseEd25519Instruction } from './ed25519-instruction';
import type { VersionFields } from './content';
import { FieldError, TransactionFormatError, TransactionTooLargeError } from './errors';
import { encodeMemo, parseMemo, type MemberRecordRole, type MemoRecord } from './memo';
import { isBase58Address } from './validation';

/** Recent-blockhash lifetime of a transaction (as returned by the ledger's `getLatestBlockhash`). */
export interface BlockhashLifetime {
  /** Base58 blockhash. */
  blockhash: string;
  /** Last block height at which the transaction can land. */
  lastValidBlockHeight: bigint;
}

/** A signed transaction ready to send. */
export interface SignedEvidenceTransaction {
  /** Wire bytes: compact-u16 signature count, signatures, message. At most 1232 bytes. */
  wire: Uint8Array;
  /** Base58 of the fee payer's signature (the transaction signature). */
  signature: string;
}

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** What an acceptance transaction carries, whoever pays its fee. */
export interface AcceptanceTransactionInput {
  /** Base58 address (Ed25519 public key) of the signer. */
  signer: string;
  /** 64-byte Ed25519 signature of the signer over the UTF-8 message. */
  signature: Uint8Array;
  /** The exact signed acceptance message. */
  message: string;
  acceptanceId: string;
  versionAddress: string;
  lifetime: BlockhashLifetime;
}

/** @throws FieldError on a malformed signer address or signature length. */
export function assertAcceptanceInput(input: AcceptanceTransactionInput): void {
  if (!isBase58Address(input.signer)) throw new FieldError('signer: must be a base58 address');
  if (!(input.signature instanceof Uint8Array) || input.signature.length !== 64) throw new FieldError('signature: must be 64 bytes');
}

/**
 * Builds and signs a direct-mode acceptance transaction:
 * instruction 0 = Ed25519 precompile over the exact UTF-8 bytes of `message` with the signer's key and
 * signature; instruction 1 = Memo `svc/1 accept <acceptanceId> <versionAddress>` with no accounts.
 * The fee payer (relayer or sponsoring shard) is the only transaction signer. The caller must have
 * verified the signature: an invalid one makes the runtime reject the transaction.
 * @throws FieldError on a malformed signer address, signature length, acceptance ID or version address.
 * @throws TransactionTooLargeError above 1232 bytes (a ≤ 700-byte message always fits).
 */
export async function buildAcceptanceTransaction(input: AcceptanceTransactionInput & { feePayer: TransactionSigner }): Promise<SignedEvidenceTransaction> {
  assertAcceptanceInput(input);
  const memo = encodeMemo({ kind: 'accept', acceptanceId: input.acceptanceId, versionAddress: input.versionAddress });
  const instructions: Instruction[] = [
    buildEd25519Instruction({ publicKey: base58ToBytes(input.signer), signature: input.signature, message: utf8.encode(input.message) }),
    { programAddress: MEMO_PROGRAM_ADDRESS, data: utf8.encode(memo) },
  ];
  return signAndEncode(input.feePayer, instructions, input.lifetime);
}

/**
 * Builds and signs the creation of an organization: one Memo `svc/1 org {...}` instruction with accounts
 * [organization (signer), authority (signer)]; fee payer the authority. `organization` is a fresh key pair
 * whose address becomes the organization's address.
 * @throws FieldError on invalid name/domain; TransactionTooLargeError above 1232 bytes.
 */
export async function buildOrganizationTransaction(input: {
  authority: TransactionSigner;
  organization: TransactionSigner;
  name: string;
  domain: string | null;
  lifetime: BlockhashLifetime;
}): Promise<SignedEvidenceTransaction> {
  const memo = encodeMemo({ kind: 'org', name: input.name, domain: input.domain });
  return signAndEncode(input.authority, [coSignedMemo(memo, input.organization, input.authority)], input.lifetime);
}

/**
 * Builds and signs the creation of a document: one Memo `svc/1 doc {...}` instruction with accounts
 * [document (signer), authority (signer)]; fee payer the authority.
 * @throws FieldError on invalid organization/slug/title; TransactionTooLargeError above 1232 bytes.
 */
export async function buildDocumentTransaction(input: {
  authority: TransactionSigner;
  document: TransactionSigner;
  /** Base58 address of the organization. */
  organization: string;
  slug: string;
  title: string;
  lifetime: BlockhashLifetime;
}): Promise<SignedEvidenceTransaction> {
  const memo = encodeMemo({ kind: 'doc', organization: input.organization, slug: input.slug, title: input.title });
  return signAndEncode(input.authority, [coSignedMemo(memo, input.document, input.authority)], input.lifetime);
}

/**
 * Builds and signs the publication of a version: one Memo `svc/1 ver {...}` instruction with accounts
 * [version (signer), authority (signer)]; fee payer the authority.
 * @throws FieldError on invalid fields; TransactionTooLargeError above 1232 bytes (possible only with
 *   long titles of multi-byte characters).
 */
export async function buildPublicationTransaction(
  input: VersionFields & {
    authority: TransactionSigner;
    version: TransactionSigner;
    fingerprint: string;
    lifetime: BlockhashLifetime;
  },
): Promise<SignedEvidenceTransaction> {
  const memo = encodeMemo({
    kind: 'ver',
    document: input.document,
    number: input.number,
    label: input.label,
    title: input.title,
    contentHash: input.contentHash,
    fingerprint: input.fingerprint,
    effectiveAt: input.effectiveAt,
  });
  return signAndEncode(input.authority, [coSignedMemo(memo, input.version, input.authority)], input.lifetime);
}

/** The widest base58 address (32 bytes of 0xff: 44 characters), for sizing records before their addresses exist. */
const WIDEST_ADDRESS = bytesToBase58(new Uint8Array(32).fill(0xff));
/** Widest version number of the protocol (docs/protocol.md "Field rules"). */
const WIDEST_VERSION_NUMBER = 4_294_967_295;

/**
 * Wire size in bytes of a transaction recording `memo` as `org`, `doc` and `ver` records are (docs/protocol.md
 * "Transactions"): one Memo instruction co-signed by the new address and the authority, the authority paying, two
 * signatures. Measured with the same encoder the builders use, on placeholder addresses (every address has the same
 * length on the wire).
 */
export function coSignedMemoTransactionSize(memo: string): number {
  const authority = address(WIDEST_ADDRESS);
  const created = address(bytesToBase58(new Uint8Array(32).fill(0xfe)));
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayer(authority, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(WIDEST_ADDRESS), lastValidBlockHeight: 0n }, m),
    (m) =>
      appendTransactionMessageInstructions(
        [
          {
            programAddress: MEMO_PROGRAM_ADDRESS,
            accounts: [
              { address: created, role: AccountRole.READONLY_SIGNER },
              { address: authority, role: AccountRole.READONLY_SIGNER },
            ],
            data: utf8.encode(memo),
          },
        ],
        m,
      ),
  );
  return getTransactionEncoder().encode(compileTransaction(message)).length;
}

/**
 * Why a version with this label, title and effective date cannot be published (docs/protocol.md "Field rules": its
 * `ver` record must fit one transaction of at most 1232 bytes), or null when it can, whatever the fields fixed later
 * (the document's address, the version number, content hash and fingerprint) turn out to be: they are sized at their
 * widest. Only titles and labels of many multi-byte characters come near the bound. Assumes the fields each pass their
 * own rule (`isVersionLabel`, `isVersionTitle`, `isEffectiveAt`).
 * @returns a message naming the bytes the record would take and the bound, or null.
 */
export function versionRecordSizeProblem(fields: { label: string; title: string; effectiveAt: number | null }): string | null {
  const widestHash = 'f'.repeat(64);
  const memo = encodeMemo({
    kind: 'ver',
    document: WIDEST_ADDRESS,
    number: WIDEST_VERSION_NUMBER,
    label: fields.label,
    title: fields.title,
    contentHash: widestHash,
    fingerprint: widestHash,
    effectiveAt: fields.effectiveAt,
  });
  const size = coSignedMemoTransactionSize(memo);
  if (size <= TRANSACTION_SIZE_LIMIT) return null;
  return `with this title and label the version's record would make a ${size}-byte publication transaction, over the ledger's ${TRANSACTION_SIZE_LIMIT} bytes: shorten the title (multi-byte characters count up to 4 bytes each)`;
}

/**
 * Builds and signs a member record (add, change or revoke a member): one Memo `svc/1 member {...}` instruction
 * whose only account is the authority (signer); fee payer the authority. No new address: the record is found in
 * the authority's history (docs/protocol.md "Member record").
 * @throws FieldError on invalid fields (the authority as member included); TransactionTooLargeError never in practice.
 */
export async function buildMemberTransaction(input: {
  authority: TransactionSigner;
  /** Base58 address of the organization. */
  organization: string;
  /** Base58 address of the member's wallet. */
  member: string;
  roles: MemberRecordRole[];
  active: boolean;
  lifetime: BlockhashLifetime;
}): Promise<SignedEvidenceTransaction> {
  if (input.member === input.authority.address) throw new FieldError('member: the authority is the owner and cannot be a member record');
  const memo = encodeMemo({ kind: 'member', organization: input.organization, member: input.member, roles: input.roles, active: input.active });
  const accounts: AccountSignerMeta[] = [{ address: input.authority.address, role: AccountRole.READONLY_SIGNER, signer: input.authority }];
  const instruction: Instruction & InstructionWithSigners = { programAddress: MEMO_PROGRAM_ADDRESS, accounts, data: utf8.encode(memo) };
  return signAndEncode(input.authority, [instruction], input.lifetime);
}

/**
 * Builds and signs an audit anchor: one Memo `svc/1 audit {...}` instruction whose only account is the operator (the
 * service's relayer, signer), fee payer the operator (docs/protocol.md "Audit anchor record").
 * @throws FieldError on invalid fields.
 */
export async function buildAuditAnchorTransaction(input: {
  operator: TransactionSigner;
  /** Base58 address of the organization. */
  organization: string;
  sequence: number;
  /** Lower-case hex hash of the entry at `sequence`. */
  head: string;
  lifetime: BlockhashLifetime;
}): Promise<SignedEvidenceTransaction> {
  const memo = encodeMemo({ kind: 'audit', organization: input.organization, sequence: input.sequence, head: input.head });
  return operatorMemoTransaction(input.operator, memo, input.lifetime);
}

/**
 * Builds and signs a batch anchor: one Memo `svc/1 batch {...}` instruction whose only account is the operator (the
 * service's relayer, signer), fee payer the operator (docs/protocol.md "Batch anchor record"). One signature: the
 * ledger verifies no acceptance signature, each leaf carries its own.
 * @throws FieldError on invalid fields.
 */
export async function buildBatchAnchorTransaction(input: {
  operator: TransactionSigner;
  lane: number;
  sequence: number;
  size: number;
  /** Lower-case hex Merkle root of the batch. */
  root: string;
  lifetime: BlockhashLifetime;
}): Promise<SignedEvidenceTransaction> {
  const memo = encodeMemo({ kind: 'batch', lane: input.lane, sequence: input.sequence, size: input.size, root: input.root });
  return operatorMemoTransaction(input.operator, memo, input.lifetime);
}

/** One Memo instruction whose only account is the operator, which also pays the fee. */
function operatorMemoTransaction(operator: TransactionSigner, memo: string, lifetime: BlockhashLifetime): Promise<SignedEvidenceTransaction> {
  const accounts: AccountSignerMeta[] = [{ address: operator.address, role: AccountRole.READONLY_SIGNER, signer: operator }];
  const instruction: Instruction & InstructionWithSigners = { programAddress: MEMO_PROGRAM_ADDRESS, accounts, data: utf8.encode(memo) };
  return signAndEncode(operator, [instruction], lifetime);
}

/** Bytes of a System-program durable-nonce account (the space a shard account is created with). */
export const SHARD_ACCOUNT_SPACE = getNonceSize();

/**
 * Builds and signs the creation of a capacity shard (docs/protocol.md "Shard record"): instruction 0 System
 * `CreateAccount` (from the authority, `lamports` into the new shard account, {@link SHARD_ACCOUNT_SPACE} bytes,
 * owned by the System program), instruction 1 System `InitializeNonceAccount` with `operator` as nonce authority,
 * instruction 2 Memo `svc/1 shard {...}` with accounts [shard (signer), authority (signer)]; fee payer the authority.
 * `lamports` must cover the rent exemption of the account; what is above it is the shard's spendable deposit.
 * @throws FieldError on invalid fields; TransactionTooLargeError never in practice.
 */
export async function buildShardTransaction(input: {
  authority: TransactionSigner;
  shard: TransactionSigner;
  /** Base58 address of the organization. */
  organization: string;
  /** Base58 address of the nonce authority (the service's relayer). */
  operator: string;
  lamports: bigint;
  lifetime: BlockhashLifetime;
}): Promise<SignedEvidenceTransaction> {
  if (typeof input.lamports !== 'bigint' || input.lamports <= 0n) throw new FieldError('lamports: must be a positive bigint');
  const memo = encodeMemo({ kind: 'shard', organization: input.organization, operator: input.operator });
  const instructions: Instruction[] = [
    getCreateAccountInstruction({ payer: input.authority, newAccount: input.shard, lamports: input.lamports, space: SHARD_ACCOUNT_SPACE, programAddress: SYSTEM_PROGRAM_ADDRESS }),
    getInitializeNonceAccountInstruction({ nonceAccount: input.shard.address, nonceAuthority: address(input.operator) }),
    coSignedMemo(memo, input.shard, input.authority),
  ];
  return signAndEncode(input.authority, instructions, input.lifetime);
}

/**
 * The nonce authority a parsed transaction gives `account` with a System `InitializeNonceAccount` instruction
 * (first account = `account`), or null when it has none.
 */
export function nonceAuthorityInitialized(tx: EvidenceTransaction, account: string): string | null {
  const discriminator = getInitializeNonceAccountDiscriminatorBytes();
  for (const ix of tx.instructions) {
    if (ix.programAddress !== SYSTEM_PROGRAM_ADDRESS || ix.accounts[0] !== account || ix.data.length !== 36) continue;
    if (!discriminator.every((b, i) => ix.data[i] === b)) continue;
    return getInitializeNonceAccountInstructionDataDecoder().decode(ix.data).nonceAuthority;
  }
  return null;
}

function coSignedMemo(memo: string, created: TransactionSigner, authority: TransactionSigner): Instruction {
  if (created.address === authority.address) throw new FieldError('the new address must differ from the authority');
  const accounts: AccountSignerMeta[] = [
    { address: created.address, role: AccountRole.READONLY_SIGNER, signer: created },
    { address: authority.address, role: AccountRole.READONLY_SIGNER, signer: authority },
  ];
  const instruction: Instruction & InstructionWithSigners = { programAddress: MEMO_PROGRAM_ADDRESS, accounts, data: utf8.encode(memo) };
  return instruction;
}

async function signAndEncode(feePayer: TransactionSigner, instructions: Instruction[], lifetime: BlockhashLifetime): Promise<SignedEvidenceTransaction> {
  if (!lifetime || typeof lifetime.lastValidBlockHeight !== 'bigint') throw new FieldError('lifetime: {blockhash, lastValidBlockHeight: bigint} required');
  let recentBlockhash;
  try {
    recentBlockhash = toBlockhash(lifetime.blockhash);
  } catch {
    throw new FieldError('lifetime.blockhash: must be a base58 blockhash');
  }
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: recentBlockhash, lastValidBlockHeight: lifetime.lastValidBlockHeight }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  // Measure before signing, so an oversized transaction fails with our error, not the signer's.
  const size = getTransactionEncoder().encode(compileTransaction(message)).length;
  if (size > TRANSACTION_SIZE_LIMIT) throw new TransactionTooLargeError(size, TRANSACTION_SIZE_LIMIT);
  const transaction = await signTransactionMessageWithSigners(message);
  const wire = new Uint8Array(getTransactionEncoder().encode(transaction));
  return { wire, signature: getSignatureFromTransaction(transaction) };
}

/** An instruction of a parsed transaction. */
export interface ParsedInstruction {
  /** Base58 address of the program. */
  programAddress: string;
  /** Base58 addresses of the instruction's accounts, in order. */
  accounts: string[];
  data: Uint8Array;
}

/** A Memo v2 instruction of a parsed transaction. */
export interface ParsedMemo {
  /** Index of the instruction in the transaction. */
  instructionIndex: number;
  /** Memo text (UTF-8); invalid UTF-8 gives an empty text and an error. */
  text: string;
  /** The `svc/1` record; null when the memo is not one (or is malformed: see `error`). */
  record: MemoRecord | null;
  /** Set when the memo starts like an `svc/1` record but is malformed. */
  error: string | null;
  /** The memo's accounts that signed the transaction, in order (for co-signed records: [new address, authority]). */
  signerAccounts: string[];
}

/** A signature checked by an Ed25519 precompile instruction of a parsed transaction. */
export interface ParsedEd25519Signature {
  instructionIndex: number;
  /** Base58 of the 32-byte public key. */
  publicKey: string;
  signature: Uint8Array;
  message: Uint8Array;
}

/** A decoded evidence transaction. */
export interface EvidenceTransaction {
  /** Base58 transaction signature (the fee payer's). */
  signature: string;
  feePayer: string;
  /** Addresses that signed, fee payer first. */
  signers: string[];
  recentBlockhash: string;
  instructions: ParsedInstruction[];
  memos: ParsedMemo[];
  ed25519: ParsedEd25519Signature[];
}

/**
 * Decodes transaction wire bytes (legacy or v0 without lookup tables) into the parts the evidence
 * protocol reads. It does not verify signatures: a transaction read from the ledger was checked by it.
 *
 * The wire format is read by hand (it accepts and refuses exactly what `@solana/kit`'s transaction and
 * compiled-message decoders followed by a canonical re-encoding check did, and yields the same result;
 * see transactions.unit.spec.ts): compact-u16 signature count, 64-byte signatures, then the message:
 * [version byte 0x80|v for v0], header (3 × u8), compact-u16 count of 32-byte account keys, 32-byte
 * recent blockhash, compact-u16 count of instructions (u8 program index, compact-u16 count of u8
 * account indices, compact-u16 data length, data), and for v0 compact-u16 count of address table
 * lookups (32-byte table, compact-u16 count of u8 writable indexes, compact-u16 count of u8 readonly
 * indexes).
 * @throws TransactionFormatError when the bytes are not exactly one transaction of a supported form.
 */
export function parseEvidenceTransaction(wire: Uint8Array): EvidenceTransaction {
  if (!(wire instanceof Uint8Array)) throw new TransactionFormatError('wire must be bytes');
  const raw = decodeWire(wire);
  if (!raw.canonical) throw new TransactionFormatError('transaction bytes are not canonical (trailing or inconsistent bytes)');
  if (raw.lookupTableCount > 0) throw new TransactionFormatError('address lookup tables are not used by the evidence protocol');
  const accounts = raw.staticAccounts;
  const signerCount = raw.numSignerAccounts;
  const feePayer = accounts[0];
  if (!feePayer || signerCount < 1) throw new TransactionFormatError('transaction has no fee payer');
  // Signatures pair with the first signer accounts; a repeated account keeps its last signature, and an
  // all-zero signature counts as none.
  let feePayerSignature: Uint8Array | null = null;
  for (let i = 0; i < raw.signatures.length; i++) {
    if (accounts[i] === feePayer) feePayerSignature = raw.signatures[i]!.some((b) => b !== 0) ? raw.signatures[i]! : null;
  }
  if (!feePayerSignature) throw new TransactionFormatError('transaction is not signed by its fee payer');
  const account = (index: number) => {
    const a = accounts[index];
    if (a === undefined) throw new TransactionFormatError(`account index ${index} out of range`);
    return a;
  };
  const instructions: ParsedInstruction[] = raw.instructions.map((ix) => ({
    programAddress: account(ix.programAddressIndex),
    accounts: ix.accountIndices.map(account),
    data: ix.data,
  }));
  const signerSet = new Set(accounts.slice(0, signerCount));
  const memos: ParsedMemo[] = [];
  const ed25519: ParsedEd25519Signature[] = [];
  instructions.forEach((ix, instructionIndex) => {
    if (ix.programAddress === MEMO_PROGRAM_ADDRESS) {
      const signerAccounts = ix.accounts.filter((a) => signerSet.has(a));
      let text = '';
      let record: MemoRecord | null = null;
      let error: string | null = null;
      try {
        text = utf8Strict.decode(ix.data);
        record = parseMemo(text);
      } catch (e) {
        error = (e as Error).message;
      }
      memos.push({ instructionIndex, text, record, error, signerAccounts });
    } else if (ix.programAddress === ED25519_PROGRAM_ADDRESS) {
      try {
        for (const entry of parseEd25519Instruction(ix.data)) {
          ed25519.push({ instructionIndex, publicKey: bytesToBase58(entry.publicKey), signature: entry.signature, message: entry.message });
        }
      } catch {
        // Offsets into other instructions are not part of this protocol; such entries are not reported.
      }
    }
  });
  return {
    signature: bytesToBase58(feePayerSignature),
    feePayer,
    signers: accounts.slice(0, signerCount),
    recentBlockhash: raw.recentBlockhash,
    instructions,
    memos,
    ed25519,
  };
}

/** The fields of a decoded legacy or v0 transaction that the evidence protocol reads. */
interface RawTransaction {
  signatures: Uint8Array[];
  numSignerAccounts: number;
  staticAccounts: string[];
  recentBlockhash: string;
  instructions: Array<{ programAddressIndex: number; accountIndices: number[]; data: Uint8Array }>;
  lookupTableCount: number;
  /** False when the bytes hold a non-minimal compact-u16 or bytes after the message. */
  canonical: boolean;
}

const VERSION_FLAG = 0x80;

/**
 * Reads the wire format.
 * @throws TransactionFormatError `cannot decode transaction: ...` when the bytes end early, a count is out of
 *   range, the signature count differs from the signer count, or the version is not legacy or 0; and the
 *   version-1 refusal for version-1 transactions.
 */
function decodeWire(wire: Uint8Array): RawTransaction {
  const fail = (why: string): never => {
    throw new TransactionFormatError(`cannot decode transaction: ${why}`);
  };
  let offset = 0;
  let canonical = true;
  const need = (n: number, what: string) => {
    if (offset + n > wire.length) fail(`${what}: expected ${n} more bytes at offset ${offset}, ${wire.length - offset} left`);
  };
  const u8 = (what: string): number => {
    need(1, what);
    return wire[offset++]!;
  };
  const shortU16 = (what: string): number => {
    const start = offset;
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const byte = u8(what);
      value |= (byte & 0x7f) << (i * 7);
      if ((byte & 0x80) === 0) {
        if (value > 0xffff) fail(`${what}: compact-u16 out of range`);
        // Minimal encoding: 1 byte below 0x80, 2 below 0x4000, else 3.
        if (offset - start !== (value < 0x80 ? 1 : value < 0x4000 ? 2 : 3)) canonical = false;
        return value;
      }
    }
    return fail(`${what}: compact-u16 longer than 3 bytes`);
  };
  const bytes = (n: number, what: string): Uint8Array => {
    need(n, what);
    const out = new Uint8Array(wire.subarray(offset, offset + n)); // a copy, never a view of `wire`
    offset += n;
    return out;
  };
  const key = (what: string): string => {
    need(32, what);
    const text = bytesToBase58(wire.subarray(offset, offset + 32));
    offset += 32;
    return text;
  };

  if (wire.length === 0) fail('no bytes');
  if ((wire[0]! & VERSION_FLAG) !== 0) {
    // A message-first envelope: only version-1 transactions use it.
    if ((wire[0]! & 0x7f) === 1) throw new TransactionFormatError('transaction version 1 is not used by the evidence protocol');
    fail(`unsupported transaction envelope (first byte ${wire[0]})`);
  }
  const signatureCount = shortU16('signature count');
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < signatureCount; i++) signatures.push(bytes(64, 'signature'));

  let version: 'legacy' | 0 = 'legacy';
  if (offset < wire.length && (wire[offset]! & VERSION_FLAG) !== 0) {
    const v = wire[offset]! ^ VERSION_FLAG;
    if (v === 1) throw new TransactionFormatError('transaction version 1 is not used by the evidence protocol');
    if (v !== 0) fail(`transaction version ${v} is not supported`);
    version = 0;
    offset++;
  }
  const numSignerAccounts = u8('message header');
  u8('message header');
  u8('message header');
  const accountCount = shortU16('account count');
  const staticAccounts: string[] = [];
  for (let i = 0; i < accountCount; i++) staticAccounts.push(key('account address'));
  const signerAccountCount = Math.min(numSignerAccounts, staticAccounts.length);
  if (signerAccountCount !== signatures.length) {
    fail(`the message has ${signerAccountCount} signer accounts but the transaction carries ${signatures.length} signatures`);
  }
  const recentBlockhash = key('recent blockhash');
  const instructionCount = shortU16('instruction count');
  const instructions: RawTransaction['instructions'] = [];
  for (let i = 0; i < instructionCount; i++) {
    const programAddressIndex = u8('instruction program index');
    const indexCount = shortU16('instruction account count');
    const accountIndices: number[] = [];
    for (let j = 0; j < indexCount; j++) accountIndices.push(u8('instruction account index'));
    const dataLength = shortU16('instruction data length');
    instructions.push({ programAddressIndex, accountIndices, data: bytes(dataLength, 'instruction data') });
  }
  let lookupTableCount = 0;
  if (version === 0) {
    lookupTableCount = shortU16('address table lookup count');
    for (let i = 0; i < lookupTableCount; i++) {
      need(32, 'lookup table address');
      offset += 32;
      for (const what of ['writable indexes', 'readonly indexes']) {
        const n = shortU16(what);
        need(n, what);
        offset += n;
      }
    }
  }
  if (offset !== wire.length) canonical = false;
  return { signatures, numSignerAccounts, staticAccounts, recentBlockhash, instructions, lookupTableCount, canonical };
}
