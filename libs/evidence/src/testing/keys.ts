/**
 * Test support (not exported from the package index): deterministic Ed25519 keys from 32-byte seeds,
 * as RFC 8032 defines them, through node:crypto. Used by unit tests and by the protocol test vectors.
 */
import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { createKeyPairSignerFromPrivateKeyBytes, type KeyPairSigner } from '@solana/kit';
import { bytesToBase58 } from '../base58';

/** DER prefix of an Ed25519 PKCS #8 private key (RFC 8410) holding a 32-byte seed. */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface SeedKey {
  seed: Uint8Array;
  publicKey: Uint8Array;
  /** Base58 of the public key. */
  address: string;
  sign(message: Uint8Array): Uint8Array;
}

/** 32 bytes all equal to `byte`. */
export function filledSeed(byte: number): Uint8Array {
  return new Uint8Array(32).fill(byte);
}

/** Seed from 64 hex characters. */
export function seedFromHex(hex: string): Uint8Array {
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error('seed must be 64 lower-case hex characters');
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

/** The Ed25519 key pair of a 32-byte seed (RFC 8032 §5.1.5). */
export function keyFromSeed(seed: Uint8Array): SeedKey {
  const privateKey: KeyObject = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const publicKey = new Uint8Array(spki.subarray(spki.length - 32));
  return {
    seed,
    publicKey,
    address: bytesToBase58(publicKey),
    sign: (message) => new Uint8Array(sign(null, message, privateKey)),
  };
}

/** A kit signer (for transactions) of the same seed. */
export function signerFromSeed(seed: Uint8Array): Promise<KeyPairSigner> {
  return createKeyPairSignerFromPrivateKeyBytes(seed);
}
