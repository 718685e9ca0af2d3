import { createPublicKey, verify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { bytesToBase58 } from './base58';
import {
  ed25519PublicKeyProblem,
  ed25519SignatureProblem,
  ed25519SignatureProblemOffThread,
  pointEncodingProblem,
  SMALL_ORDER_Y_ENCODINGS,
  verifyEd25519,
  verifyEd25519OffThread,
} from './signatures';
import { filledSeed, keyFromSeed } from './testing/keys';

describe('verifyEd25519', () => {
  const key = keyFromSeed(filledSeed(7));
  const other = keyFromSeed(filledSeed(8));
  const message = new TextEncoder().encode('svc/1 acceptance\nI accept');
  const signature = key.sign(message);

  it('accepts a valid signature', () => {
    expect(verifyEd25519(key.address, message, signature)).toBe(true);
  });

  it('matches RFC 8032 test vector 1 (empty message)', () => {
    const seed = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
    const k = keyFromSeed(seed);
    expect(Buffer.from(k.publicKey).toString('hex')).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
    const sig = Buffer.from(
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
      'hex',
    );
    expect(verifyEd25519(k.address, new Uint8Array(0), sig)).toBe(true);
  });

  it('rejects a tampered message, a tampered signature and another key', () => {
    const tamperedMessage = message.slice();
    tamperedMessage[0]! ^= 1;
    const tamperedSignature = signature.slice();
    tamperedSignature[10]! ^= 1;
    expect(verifyEd25519(key.address, tamperedMessage, signature)).toBe(false);
    expect(verifyEd25519(key.address, message, tamperedSignature)).toBe(false);
    expect(verifyEd25519(other.address, message, signature)).toBe(false);
  });

  it('returns false (never throws) for malformed input', () => {
    expect(verifyEd25519('not base58 0OIl', message, signature)).toBe(false);
    expect(verifyEd25519('1111', message, signature)).toBe(false);
    expect(verifyEd25519(key.address, message, signature.slice(1))).toBe(false);
    expect(verifyEd25519(key.address, message, new Uint8Array(64))).toBe(false);
  });

  it('stays correct when the key cache evicts', () => {
    const keys = Array.from({ length: 1100 }, (_, i) => keyFromSeed(new Uint8Array(32).fill(0).map((_, j) => (j === 0 ? i & 255 : j === 1 ? i >> 8 : 9))));
    for (const k of keys) expect(verifyEd25519(k.address, message, k.sign(message))).toBe(true);
    expect(verifyEd25519(keys[0]!.address, message, keys[0]!.sign(message))).toBe(true);
    expect(verifyEd25519(keys[0]!.address, message, keys[1]!.sign(message))).toBe(false);
  });
});

/**
 * Edge cases of strict verification (docs/protocol.md §13), built here with curve arithmetic (@noble/curves) so
 * that each vector is shown to pass lenient verification (node:crypto alone) where it matters, then refused.
 */
describe('strict Ed25519 verification', () => {
  const Point = ed25519.Point;
  const L = Point.Fn.ORDER;
  const p = Point.Fp.ORDER;
  const message = new TextEncoder().encode('strict verification');
  const le = (n: bigint): Uint8Array => {
    const out = new Uint8Array(32);
    for (let i = 0; i < 32; i++, n >>= 8n) out[i] = Number(n & 255n);
    return out;
  };
  const leToBig = (b: Uint8Array): bigint => b.reduceRight((acc, byte) => (acc << 8n) | BigInt(byte), 0n);
  const mod = (n: bigint) => ((n % L) + L) % L;
  /** k = SHA-512(R ‖ A ‖ M) mod L (RFC 8032 §5.1.7). */
  const challenge = (R: Uint8Array, A: Uint8Array, m: Uint8Array) => mod(leToBig(sha512(new Uint8Array([...R, ...A, ...m]))));
  /** Scalar multiplication without the safe API's range limits (scalars here may be 0 or ≥ L). */
  const times = (point: InstanceType<typeof Point>, k: bigint) => {
    let acc = Point.ZERO;
    for (let add = point; k > 0n; k >>= 1n, add = add.double()) if (k & 1n) acc = acc.add(add);
    return acc;
  };
  const sig = (R: Uint8Array, S: bigint) => new Uint8Array([...R, ...le(S)]);
  const lenient = (A: Uint8Array, m: Uint8Array, signature: Uint8Array) => {
    try {
      return verify(null, m, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(A).toString('base64url') }, format: 'jwk' }), signature);
    } catch {
      return false;
    }
  };
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

  /** The eight points of small order, from a point of order 8 (a curve point multiplied by L). */
  const torsion = (() => {
    let t8 = Point.ZERO;
    for (let i = 2; t8.is0() || times(t8, 4n).is0(); i++) {
      try {
        t8 = times(Point.fromBytes(le(BigInt(i))), L);
      } catch {
        // not a point: try the next y
      }
    }
    return Array.from({ length: 8 }, (_, i) => times(t8, BigInt(i)));
  })();

  const secret = new Uint8Array(32).fill(42);
  const { scalar: a, pointBytes: A } = ed25519.utils.getExtendedPublicKey(secret);
  const signer = bytesToBase58(A);

  it('lists exactly the y coordinates of the eight small-order points', () => {
    const ys = new Set(torsion.map((t) => { const b = t.toBytes(); b[31]! &= 0x7f; return hex(b); }));
    expect(torsion.every((t) => t.isSmallOrder())).toBe(true);
    expect(new Set(torsion.map((t) => hex(t.toBytes()))).size).toBe(8);
    expect([...ys].sort()).toEqual([...SMALL_ORDER_Y_ENCODINGS].sort());
  });

  it('refuses every small-order public key, with either sign bit, although lenient verification accepts the identity', () => {
    const r = 123456789n;
    const R = Point.BASE.multiply(r).toBytes();
    const identity = Point.ZERO.toBytes();
    // For the identity key, R = rB with S = r verifies for any message under the plain equation.
    expect(lenient(identity, message, sig(R, r))).toBe(true);
    expect(ed25519SignatureProblem(bytesToBase58(identity), message, sig(R, r))).toBe('small-order-key');
    for (const t of torsion) {
      const encoded = t.toBytes();
      const flipped = encoded.slice();
      flipped[31]! ^= 0x80;
      expect(ed25519PublicKeyProblem(bytesToBase58(encoded))).toBe('small-order');
      expect(pointEncodingProblem(flipped)).toBe('small-order');
      expect(verifyEd25519(bytesToBase58(encoded), message, sig(R, r))).toBe(false);
    }
  });

  it('refuses non-canonical public keys (y ≥ p), which lenient verification accepts', () => {
    const r = 987654321n;
    const R = Point.BASE.multiply(r).toBytes();
    const identityPlusP = le(p + 1n);
    expect(lenient(identityPlusP, message, sig(R, r))).toBe(true);
    expect(ed25519SignatureProblem(bytesToBase58(identityPlusP), message, sig(R, r))).toBe('non-canonical-key');
    // Every y from p to 2^255 − 1 is non-canonical, whether or not y − p is a point.
    for (let y = p; y < 2n ** 255n; y++) expect(pointEncodingProblem(le(y))).toBe('non-canonical');
    expect(pointEncodingProblem(le(p - 2n))).toBeNull();
  });

  it('refuses a small-order R that the plain equation accepts', () => {
    // R = identity, S = k·a: [S]B = R + [k]A holds.
    const R = Point.ZERO.toBytes();
    const S = mod(challenge(R, A, message) * a);
    expect(lenient(A, message, sig(R, S))).toBe(true);
    expect(ed25519SignatureProblem(signer, message, sig(R, S))).toBe('small-order-r');
  });

  it('refuses a non-canonical R and an S not below L', () => {
    const good = ed25519.sign(message, secret);
    expect(ed25519SignatureProblem(signer, message, good)).toBeNull();
    const S = leToBig(good.slice(32));
    expect(ed25519SignatureProblem(signer, message, sig(good.slice(0, 32), S + L))).toBe('non-canonical-s');
    expect(ed25519SignatureProblem(signer, message, sig(good.slice(0, 32), L))).toBe('non-canonical-s');
    expect(ed25519SignatureProblem(signer, message, sig(good.slice(0, 32), 2n ** 256n - 1n))).toBe('non-canonical-s');
    expect(ed25519SignatureProblem(signer, message, sig(good.slice(0, 32), L - 1n))).toBe('mismatch');
    expect(ed25519SignatureProblem(signer, message, sig(le(p + 3n), S))).toBe('non-canonical-r');
  });

  it('mixed-order keys: accepted when the cofactorless equation holds, refused when only the cofactored one does', () => {
    // A' = aB + T (T of order 8). With k ≡ 0 (mod 8) the torsion part vanishes from [k]A'.
    const T = torsion[1]!;
    const mixed = Point.BASE.multiply(a).add(T).toBytes();
    const mixedSigner = bytesToBase58(mixed);
    expect(ed25519PublicKeyProblem(mixedSigner)).toBeNull();
    const r = 55555n;
    const R = Point.BASE.multiply(r).toBytes();
    const messages = Array.from({ length: 64 }, (_, i) => new TextEncoder().encode(`mixed ${i}`));
    const zero = messages.find((m) => challenge(R, mixed, m) % 8n === 0n)!;
    const nonzero = messages.find((m) => challenge(R, mixed, m) % 8n !== 0n)!;
    const signOver = (m: Uint8Array) => sig(R, mod(r + challenge(R, mixed, m) * a));
    expect(ed25519SignatureProblem(mixedSigner, zero, signOver(zero))).toBeNull();
    expect(lenient(mixed, nonzero, signOver(nonzero))).toBe(false);
    expect(ed25519SignatureProblem(mixedSigner, nonzero, signOver(nonzero))).toBe('mismatch');
  });

  it('off the event loop: the same verdict as inline verification, for every rule', async () => {
    const good = ed25519.sign(message, secret);
    const S = leToBig(good.slice(32));
    const tampered = good.slice();
    tampered[40]! ^= 1;
    const cases: [string, Uint8Array, Uint8Array][] = [
      [signer, message, good],
      [signer, message, tampered],
      [signer, new TextEncoder().encode('another message'), good],
      [signer, message, sig(Point.ZERO.toBytes(), mod(challenge(Point.ZERO.toBytes(), A, message) * a))],
      [signer, message, sig(good.slice(0, 32), S + L)],
      [signer, message, sig(le(p + 3n), S)],
      [signer, message, new Uint8Array(63)],
      ['0OIl', message, good],
    ];
    const inline = cases.map(([k, m, s]) => ed25519SignatureProblem(k, m, s));
    expect(inline).toEqual([null, 'mismatch', 'mismatch', 'small-order-r', 'non-canonical-s', 'non-canonical-r', 'malformed', 'malformed']);
    expect(await Promise.all(cases.map(([k, m, s]) => ed25519SignatureProblemOffThread(k, m, s)))).toEqual(inline);
    expect(await verifyEd25519OffThread(signer, message, good)).toBe(true);
    expect(await verifyEd25519OffThread(signer, message, tampered)).toBe(false);
  });

  it('says malformed for keys that are not 32 bytes of base58', () => {
    expect(ed25519PublicKeyProblem('0OIl')).toBe('malformed');
    expect(ed25519PublicKeyProblem(bytesToBase58(new Uint8Array(31).fill(3)))).toBe('malformed');
    expect(ed25519SignatureProblem(signer, message, new Uint8Array(63))).toBe('malformed');
  });
});
