/**
 * Base58 (Bitcoin alphabet) helpers over the `bs58` package (base-x), which works on bytes directly and
 * is much faster than a BigInt-based codec. Results are identical to `@solana/kit`'s base58 codecs
 * (leading zero bytes ⇔ leading `1`s; checked in base58.unit.spec.ts).
 */
import type { Address, Signature } from '@solana/kit';
import bs58 from 'bs58';

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

/** Base58 text of `bytes`. */
export function bytesToBase58(bytes: Uint8Array): string {
  return bs58.encode(bytes);
}

/**
 * Bytes of a base58 string.
 * @throws Error when the text contains a character outside the base58 alphabet.
 */
export function base58ToBytes(text: string): Uint8Array {
  if (!BASE58.test(text)) throw new Error('not base58');
  return bs58.decode(text);
}

/** Whether `value` is a base58 account address (32..44 characters decoding to exactly 32 bytes). */
export function isBase58Address(value: unknown): value is Address {
  if (typeof value !== 'string' || value.length < 32 || value.length > 44 || !BASE58.test(value)) return false;
  return bs58.decodeUnsafe(value)?.length === 32;
}

/** Whether `value` is base58 text of exactly 64 bytes (an Ed25519 or transaction signature). */
export function isBase58Signature(value: unknown): value is Signature {
  if (typeof value !== 'string' || value.length < 64 || value.length > 90 || !BASE58.test(value)) return false;
  return bs58.decodeUnsafe(value)?.length === 64;
}

/**
 * Base58 text as kit's branded `Signature` (what ledger reads take), checked once here.
 * @throws TypeError when it is not base58 of 64 bytes.
 */
export function asSignature(text: string): Signature {
  if (!isBase58Signature(text)) throw new TypeError(`not a base58 signature: ${text.slice(0, 100)}`);
  return text;
}

/**
 * Base58 text as kit's branded `Address`, checked once here.
 * @throws TypeError when it is not base58 of 32 bytes.
 */
export function asAddress(text: string): Address {
  if (!isBase58Address(text)) throw new TypeError(`not a base58 address: ${text.slice(0, 100)}`);
  return text;
}
