/**
 * Base58 (Bitcoin alphabet) helpers over `@solana/kit` codecs.
 *
 * Direction in kit: `getBase58Encoder().encode(string)` gives bytes; `getBase58Decoder().decode(bytes)`
 * gives the string (an encoder turns a value into bytes).
 */
import { getBase58Decoder, getBase58Encoder, isAddress } from '@solana/kit';

const encoder = getBase58Encoder();
const decoder = getBase58Decoder();
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

/** Base58 text of `bytes`. */
export function bytesToBase58(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * Bytes of a base58 string.
 * @throws Error when the text contains a character outside the base58 alphabet.
 */
export function base58ToBytes(text: string): Uint8Array {
  if (!BASE58.test(text)) throw new Error('not base58');
  return new Uint8Array(encoder.encode(text));
}

/** Whether `value` is a base58 account address (32..44 characters decoding to exactly 32 bytes). */
export function isBase58Address(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 32 && value.length <= 44 && isAddress(value);
}

/** Whether `value` is base58 text of exactly 64 bytes (an Ed25519 or transaction signature). */
export function isBase58Signature(value: unknown): value is string {
  if (typeof value !== 'string' || value.length < 64 || value.length > 90 || !BASE58.test(value)) return false;
  try {
    return base58ToBytes(value).length === 64;
  } catch {
    return false;
  }
}
