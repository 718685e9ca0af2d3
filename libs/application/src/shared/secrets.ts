import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Lower hex SHA-256 of a secret's UTF-8 text: how secrets are stored (never in clear). */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** A new random secret: `bytes` random bytes in base64url. */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Constant-time comparison of two hex digests or secrets of equal length. */
export function safeEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}
