import { createHash } from 'node:crypto';

/** Lower-case hex SHA-256 (FIPS 180-4) of `bytes`. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Domain-separated SHA-256: `SHA-256(ASCII(tag) || 0x00 || payload)`, lower-case hex.
 * The NUL separator keeps a tag from being confused with the start of a payload.
 */
export function taggedSha256Hex(tag: string, payload: Uint8Array): string {
  return createHash('sha256').update(Buffer.from(tag, 'ascii')).update(Buffer.of(0)).update(payload).digest('hex');
}
