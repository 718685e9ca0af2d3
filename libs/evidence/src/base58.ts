/**
 * Base58 (Bitcoin alphabet) helpers over the `bs58` package (base-x), which works on bytes directly and
 * is much faster than a BigInt-based codec. Results are identical to `@solana/kit`'s base58 codecs
 * (leading zero bytes ⇔ leading `1`s; checked in base58.unit.spec.ts).
 */
import type { Address, Signature } from '@solana/kit';
import bs58 from 'bs58';
import { LRUCache } from 'lru-cache';

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

/**
 * Texts already found to decode to 32 or 64 bytes. Decoding is what a check costs (about 1.4 µs for an address and
 * 6 µs for a signature), and the same values come back: a receipt's signatures are checked when it is built, when it
 * is verified and when its transaction is read, and a few addresses (the memo program, an organization's documents)
 * recur in every one. Only results that hold are kept; a text's decoded length never changes.
 */
const decodedLengths = new LRUCache<string, 32 | 64>({ max: 16_384 });

function decodesTo(value: string, bytes: 32 | 64): boolean {
  const known = decodedLengths.get(value);
  if (known !== undefined) return known === bytes;
  if (!BASE58.test(value) || bs58.decodeUnsafe(value)?.length !== bytes) return false;
  decodedLengths.set(value, bytes);
  return true;
}

/** Whether `value` is a base58 account address (32..44 characters decoding to exactly 32 bytes). */
export function isBase58Address(value: unknown): value is Address {
  return typeof value === 'string' && value.length >= 32 && value.length <= 44 && decodesTo(value, 32);
}

/** Whether `value` is base58 text of exactly 64 bytes (an Ed25519 or transaction signature). */
export function isBase58Signature(value: unknown): value is Signature {
  return typeof value === 'string' && value.length >= 64 && value.length <= 90 && decodesTo(value, 64);
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
