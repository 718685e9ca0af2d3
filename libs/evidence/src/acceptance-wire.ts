import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { base58ToBytes, bytesToBase58 } from './base58';
import { ED25519_PROGRAM_ADDRESS, MEMO_PROGRAM_ADDRESS, TRANSACTION_SIZE_LIMIT } from './constants';
import { buildEd25519Instruction } from './ed25519-instruction';
import { FieldError, TransactionTooLargeError } from './errors';
import { encodeMemo } from './memo';
import { assertAcceptanceInput, type AcceptanceTransactionInput, type SignedEvidenceTransaction } from './transactions';

/** A fee payer that signs synchronously (the relayer on the acceptance hot path). */
export interface SyncSigner {
  /** Base58 address (Ed25519 public key). */
  address: string;
  /** 64-byte Ed25519 signature of `message`. */
  sign(message: Uint8Array): Uint8Array;
}

/** DER prefix of a PKCS#8 Ed25519 private key; the 32-byte seed follows (RFC 8410 §7). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * A `SyncSigner` over `node:crypto` (OpenSSL) from a 32-byte Ed25519 seed, e.g. the first half of a
 * Solana CLI key pair file.
 * @throws FieldError when the seed is not 32 bytes or does not match `address`.
 */
export function nodeEd25519Signer(seed: Uint8Array, address: string): SyncSigner {
  if (seed.length !== 32) throw new FieldError('seed: must be 32 bytes');
  const key: KeyObject = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  // The raw public key is the last 32 bytes of its SPKI encoding (RFC 8410 §4).
  const publicKey = createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(-32);
  if (bytesToBase58(new Uint8Array(publicKey)) !== address) throw new FieldError('seed: does not belong to the address');
  return { address, sign: (message) => new Uint8Array(sign(null, message, key)) };
}

function compactU16(n: number): number[] {
  const out: number[] = [];
  let rest = n;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

const ED25519_PROGRAM = base58ToBytes(ED25519_PROGRAM_ADDRESS);
const MEMO_PROGRAM = base58ToBytes(MEMO_PROGRAM_ADDRESS);
const utf8 = new TextEncoder();

/**
 * The direct-mode acceptance transaction of `buildAcceptanceTransaction`, byte for byte, encoded without
 * the general-purpose transaction builder: a legacy message with accounts [fee payer, Ed25519 precompile,
 * Memo program], instruction 0 the precompile over the exact message, instruction 1 the `accept` memo,
 * signed by a synchronous fee payer. This is the relayer's hot path; a unit test holds it equal to the
 * reference builder.
 * @throws FieldError on malformed input; TransactionTooLargeError above 1232 bytes.
 */
export function encodeAcceptanceTransaction(input: AcceptanceTransactionInput & { feePayer: SyncSigner }): SignedEvidenceTransaction {
  assertAcceptanceInput(input);
  const blockhash = base58ToBytes(input.lifetime.blockhash);
  if (blockhash.length !== 32) throw new FieldError('lifetime.blockhash: must be a base58 blockhash');
  const payer = base58ToBytes(input.feePayer.address);
  const precompile = buildEd25519Instruction({ publicKey: base58ToBytes(input.signer), signature: input.signature, message: utf8.encode(input.message) }).data;
  const memo = utf8.encode(encodeMemo({ kind: 'accept', acceptanceId: input.acceptanceId, versionAddress: input.versionAddress }));
  const message = Buffer.concat([
    // Header: 1 required signature, 0 read-only signed, 2 read-only unsigned accounts.
    Buffer.from([1, 0, 2, ...compactU16(3)]),
    payer,
    ED25519_PROGRAM,
    MEMO_PROGRAM,
    blockhash,
    Buffer.from([...compactU16(2), 1, ...compactU16(0), ...compactU16(precompile.length)]),
    precompile,
    Buffer.from([2, ...compactU16(0), ...compactU16(memo.length)]),
    memo,
  ]);
  const size = 1 + 64 + message.length;
  if (size > TRANSACTION_SIZE_LIMIT) throw new TransactionTooLargeError(size, TRANSACTION_SIZE_LIMIT);
  const feePayerSignature = input.feePayer.sign(message);
  const wire = new Uint8Array(size);
  wire[0] = 1;
  wire.set(feePayerSignature, 1);
  wire.set(message, 65);
  return { wire, signature: bytesToBase58(feePayerSignature) };
}
