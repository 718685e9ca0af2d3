import type { Address, Signature } from '@solana/kit';
/**
 * Base58 (Bitcoin alphabet) for the hot path. kit's codec is correct but BigInt based
 * (~20 µs for a 64-byte signature on the reference box); this byte-wise version is ~10x faster.
 */

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGITS = ALPHABET.split('');
const MAP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) MAP[ALPHABET.charCodeAt(i)] = i;

/** Encodes bytes as base58. */
export function encodeBase58(bytes: Uint8Array): string {
  const len = bytes.length;
  let zeros = 0;
  while (zeros < len && bytes[zeros] === 0) zeros++;
  // log(256) / log(58) ≈ 1.366
  const size = (((len - zeros) * 138) / 100 + 1) >>> 0;
  const b58 = new Uint8Array(size);
  let length = 0;
  for (let i = zeros; i < len; i++) {
    let carry = bytes[i]!;
    let j = 0;
    for (let k = size - 1; (carry !== 0 || j < length) && k >= 0; k--, j++) {
      carry += 256 * b58[k]!;
      b58[k] = carry % 58;
      carry = (carry / 58) | 0;
    }
    length = j;
  }
  let it = size - length;
  while (it < size && b58[it] === 0) it++;
  let out = zeros > 0 ? '1'.repeat(zeros) : '';
  for (; it < size; it++) out += DIGITS[b58[it]!];
  return out;
}

/**
 * Decodes base58 text.
 * @throws Error on a character outside the alphabet.
 */
export function decodeBase58(text: string): Uint8Array {
  const len = text.length;
  let zeros = 0;
  while (zeros < len && text.charCodeAt(zeros) === 49 /* '1' */) zeros++;
  // log(58) / log(256) ≈ 0.733
  const size = (((len - zeros) * 733) / 1000 + 1) >>> 0;
  const b256 = new Uint8Array(size);
  let length = 0;
  for (let i = zeros; i < len; i++) {
    const code = text.charCodeAt(i);
    let carry = code < 128 ? MAP[code]! : -1;
    if (carry < 0) throw new Error(`Invalid base58 character at ${i}`);
    let j = 0;
    for (let k = size - 1; (carry !== 0 || j < length) && k >= 0; k--, j++) {
      carry += 58 * b256[k]!;
      b256[k] = carry & 0xff;
      carry >>>= 8;
    }
    length = j;
  }
  let it = size - length;
  while (it < size && b256[it] === 0) it++;
  const out = new Uint8Array(zeros + (size - it));
  out.set(b256.subarray(it), zeros);
  return out;
}

/**
 * Decodes base58 text that must represent exactly `byteLength` bytes (32 for addresses and
 * blockhashes, 64 for signatures). Returns null when it does not.
 */
export function tryDecodeBase58Fixed(text: unknown, byteLength: number): Uint8Array | null {
  if (typeof text !== 'string' || text.length === 0 || text.length > 100) return null;
  try {
    const bytes = decodeBase58(text);
    return bytes.length === byteLength ? bytes : null;
  } catch {
    return null;
  }
}

/** Whether `text` is base58 of exactly 64 bytes: a transaction signature (kit's branded `Signature`). */
export function isSignatureText(text: string): text is Signature {
  return tryDecodeBase58Fixed(text, 64) !== null;
}

/** Whether `text` is base58 of exactly 32 bytes: an address (kit's branded `Address`). */
export function isAddressText(text: string): text is Address {
  return tryDecodeBase58Fixed(text, 32) !== null;
}

/**
 * The port's typed `Signature` for base58 text, checked once where it enters (the same check as kit's
 * `signature()`, on the fast decoder).
 * @throws TypeError when `text` is not base58 of 64 bytes.
 */
export function toSignature(text: string): Signature {
  if (!isSignatureText(text)) throw new TypeError(`not a base58 transaction signature: ${text.slice(0, 100)}`);
  return text;
}

/**
 * The port's typed `Address` for base58 text, checked once where it enters.
 * @throws TypeError when `text` is not base58 of 32 bytes.
 */
export function toAddress(text: string): Address {
  if (!isAddressText(text)) throw new TypeError(`not a base58 address: ${text.slice(0, 100)}`);
  return text;
}
