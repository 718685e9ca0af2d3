/**
 * Ed25519 signature verification with strict semantics (docs/protocol.md §13 "Strict Ed25519"), the rules the
 * ledger's Ed25519 precompile applies, so that a signature the service accepts is one the ledger accepts too:
 *
 * - the public key A and the point R (first half of the signature) must be canonical encodings (RFC 8032
 *   §5.1.3: y < p; and x = 0 never carries a set sign bit);
 * - neither A nor R may be a point of small order (one of the eight points of the torsion subgroup: for such
 *   a key one signature verifies for every message);
 * - S (second half, little-endian) must be below the group order L (RFC 8032 §5.1.7);
 * - then the cofactorless equation [S]B = R + [k]A, checked by node:crypto (OpenSSL), which is far faster than
 *   a pure-JS implementation on the hot path.
 *
 * The pre-checks compare bytes only (no curve arithmetic). Public keys are given as base58 Solana addresses.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { ReadonlyUint8Array } from '@solana/kit';
import { base58ToBytes } from './base58';

type Bytes = Uint8Array | ReadonlyUint8Array;

/**
 * The y coordinates (32-byte little-endian encodings with the sign bit cleared) of the eight points of small
 * order: the identity (y = 1), the point of order 2 (y = p − 1), the two of order 4 (y = 0) and the four of
 * order 8 (two y values, each with both signs of x). Checked against curve arithmetic in signatures.unit.spec.ts.
 */
export const SMALL_ORDER_Y_ENCODINGS: readonly string[] = [
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '0000000000000000000000000000000000000000000000000000000000000000',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
];
const SMALL_ORDER_Y: readonly Uint8Array[] = SMALL_ORDER_Y_ENCODINGS.map((hex) => new Uint8Array(Buffer.from(hex, 'hex')));

/** The group order L = 2^252 + 27742317777372353535851937790883648493, 32 bytes little-endian. */
const L_LE = new Uint8Array(Buffer.from('edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010', 'hex'));

/** Why a point encoding is refused: not the canonical encoding of a point, or a point of small order. */
export type PointRefusal = 'non-canonical' | 'small-order';

/**
 * Whether the 32 bytes at `offset` are a non-canonical or small-order point encoding (byte checks only; an
 * encoding that is no point at all is left to the verification itself).
 * @returns the refusal, or null when the encoding passes both checks.
 */
export function pointEncodingProblem(bytes: Bytes, offset = 0): PointRefusal | null {
  // y ≥ p = 2^255 − 19: the top byte (sign bit masked) is 0x7f, the 30 middle bytes 0xff, the first ≥ 0xed.
  if ((bytes[offset + 31]! & 0x7f) === 0x7f && bytes[offset]! >= 0xed) {
    let all = true;
    for (let i = 1; i < 31 && all; i++) all = bytes[offset + i] === 0xff;
    if (all) return 'non-canonical';
  }
  for (const y of SMALL_ORDER_Y) {
    let same = (bytes[offset + 31]! & 0x7f) === y[31];
    for (let i = 0; i < 31 && same; i++) same = bytes[offset + i] === y[i];
    // The two points with x = 0 (y = ±1) are refused with either sign bit; a set one is also non-canonical.
    if (same) return 'small-order';
  }
  return null;
}

/** Whether the 32 bytes at `offset` (little-endian S) are below the group order L. */
function scalarIsCanonical(bytes: Bytes, offset: number): boolean {
  for (let i = 31; i >= 0; i--) {
    const b = bytes[offset + i]!;
    if (b !== L_LE[i]) return b < L_LE[i]!;
  }
  return false;
}

const CACHE_LIMIT = 1024;
const keyCache = new Map<string, KeyObject>();

/** A node:crypto public key for a base58 Ed25519 key, cached (least recently used evicted). Null when not a strict key. */
function publicKeyObject(publicKeyBase58: string): KeyObject | null {
  const cached = keyCache.get(publicKeyBase58);
  if (cached) {
    keyCache.delete(publicKeyBase58);
    keyCache.set(publicKeyBase58, cached);
    return cached;
  }
  const raw = publicKeyBytes(publicKeyBase58);
  if (!raw || pointEncodingProblem(raw) !== null) return null;
  let key: KeyObject;
  try {
    // Imported as a JWK (RFC 8037 OKP key): OpenSSL then builds the key from its raw bytes, about 8 times
    // faster than decoding the equivalent DER SubjectPublicKeyInfo, and most signers are seen only once.
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
  } catch {
    return null;
  }
  keyCache.set(publicKeyBase58, key);
  if (keyCache.size > CACHE_LIMIT) keyCache.delete(keyCache.keys().next().value as string);
  return key;
}

function publicKeyBytes(publicKeyBase58: string): Uint8Array | null {
  try {
    const raw = base58ToBytes(publicKeyBase58);
    return raw.length === 32 ? raw : null;
  } catch {
    return null;
  }
}

/**
 * Why a base58 address cannot be a strict Ed25519 signer key (docs/protocol.md §13), or null when it can.
 * Callers refuse such signers before anyone signs (`invalid_signer` at challenge time).
 * @returns `'malformed'` (not base58 of 32 bytes), `'non-canonical'` or `'small-order'`, or null.
 */
export function ed25519PublicKeyProblem(publicKeyBase58: string): PointRefusal | 'malformed' | null {
  const raw = typeof publicKeyBase58 === 'string' ? publicKeyBytes(publicKeyBase58) : null;
  if (!raw) return 'malformed';
  return pointEncodingProblem(raw);
}

/** Why a signature is refused by {@link ed25519SignatureProblem}. */
export type SignatureRefusal =
  | 'malformed'
  | 'non-canonical-key'
  | 'small-order-key'
  | 'non-canonical-r'
  | 'small-order-r'
  | 'non-canonical-s'
  | 'mismatch';

/**
 * Strict verification of a pure Ed25519 signature (RFC 8032 Ed25519, no prehash, no context; rules in the
 * file comment), saying why a signature is refused.
 * @param publicKeyBase58 the signer's address (base58 of the 32-byte public key)
 * @param message the exact signed bytes
 * @param signature the 64-byte signature R ‖ S
 * @returns null when valid, else the first rule broken, in the order key, R, S, equation. Never throws.
 */
export function ed25519SignatureProblem(publicKeyBase58: string, message: Bytes, signature: Bytes): SignatureRefusal | null {
  const checked = strictPreChecks(publicKeyBase58, message, signature);
  if (typeof checked === 'string') return checked;
  try {
    return verify(null, message as Uint8Array, checked, signature as Uint8Array) ? null : 'mismatch';
  } catch {
    return 'mismatch';
  }
}

/**
 * {@link ed25519SignatureProblem} with the curve equation checked on libuv's thread pool (node:crypto `verify` with a
 * callback), so a request path does not spend its event loop on it; the byte pre-checks run inline. Same verdicts.
 * @returns null when valid, else the first rule broken. Never rejects.
 */
export function ed25519SignatureProblemOffThread(publicKeyBase58: string, message: Bytes, signature: Bytes): Promise<SignatureRefusal | null> {
  const checked = strictPreChecks(publicKeyBase58, message, signature);
  if (typeof checked === 'string') return Promise.resolve(checked);
  return new Promise((resolve) => {
    try {
      verify(null, message as Uint8Array, checked, signature as Uint8Array, (err, valid) => resolve(err === null && valid ? null : 'mismatch'));
    } catch {
      resolve('mismatch');
    }
  });
}

/** The key to check the equation with, or the refusal the byte rules already give (key, then R, then S). */
function strictPreChecks(publicKeyBase58: string, message: Bytes, signature: Bytes): KeyObject | SignatureRefusal {
  if (typeof publicKeyBase58 !== 'string' || !(message instanceof Uint8Array) || !(signature instanceof Uint8Array) || signature.length !== 64) return 'malformed';
  const key = publicKeyObject(publicKeyBase58);
  if (!key) {
    const problem = ed25519PublicKeyProblem(publicKeyBase58);
    return problem === 'non-canonical' ? 'non-canonical-key' : problem === 'small-order' ? 'small-order-key' : 'malformed';
  }
  const r = pointEncodingProblem(signature, 0);
  if (r !== null) return r === 'non-canonical' ? 'non-canonical-r' : 'small-order-r';
  if (!scalarIsCanonical(signature, 32)) return 'non-canonical-s';
  return key;
}

/**
 * Verifies a pure Ed25519 signature with strict semantics ({@link ed25519SignatureProblem}).
 * @param publicKeyBase58 the signer's address (base58 of the 32-byte public key)
 * @param message the exact signed bytes
 * @param signature the 64-byte signature
 * @returns true when valid; false for an invalid or non-strict signature, a malformed, non-canonical or
 *   small-order key, or a signature of the wrong length (never throws).
 */
export function verifyEd25519(publicKeyBase58: string, message: Bytes, signature: Bytes): boolean {
  return ed25519SignatureProblem(publicKeyBase58, message, signature) === null;
}

/** {@link verifyEd25519} with the equation checked off the event loop ({@link ed25519SignatureProblemOffThread}). */
export async function verifyEd25519OffThread(publicKeyBase58: string, message: Bytes, signature: Bytes): Promise<boolean> {
  return (await ed25519SignatureProblemOffThread(publicKeyBase58, message, signature)) === null;
}

/** Plain words for a {@link SignatureRefusal}, for error messages and verification reports. */
export function describeSignatureRefusal(refusal: SignatureRefusal): string {
  switch (refusal) {
    case 'malformed':
      return 'the key or signature is malformed';
    case 'non-canonical-key':
      return 'the public key is not a canonical point encoding';
    case 'small-order-key':
      return 'the public key is a point of small order';
    case 'non-canonical-r':
      return 'the signature R is not a canonical point encoding';
    case 'small-order-r':
      return 'the signature R is a point of small order';
    case 'non-canonical-s':
      return 'the signature S is not below the group order';
    case 'mismatch':
      return 'the signature does not verify';
  }
}
