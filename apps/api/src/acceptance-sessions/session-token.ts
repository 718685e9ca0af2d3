/**
 * Acceptance session tokens (spec §2.4): opaque to their holders, 64 base64url characters encoding the session's
 * id (16 bytes) and 32 random bytes. The id lets a challenge find the session's stream without any index; only the
 * SHA-256 of the whole token is stored, and it is compared in constant time.
 */
import { randomBytes } from 'node:crypto';

const ID_BYTES = 16;
const SECRET_BYTES = 32;
const TOKEN_LENGTH = Math.ceil(((ID_BYTES + SECRET_BYTES) * 4) / 3);
const TOKEN_PATTERN = new RegExp(`^[A-Za-z0-9_-]{${TOKEN_LENGTH}}$`);

function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

function uuidText(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A new token for the session `acceptanceSessionId` (a UUID). */
export function newSessionToken(acceptanceSessionId: string): string {
  return Buffer.concat([uuidBytes(acceptanceSessionId), randomBytes(SECRET_BYTES)]).toString('base64url');
}

/** The session id a token names, or null when the text is not a token of this service. */
export function sessionIdOf(token: string): string | null {
  if (!TOKEN_PATTERN.test(token)) return null;
  const bytes = Buffer.from(token, 'base64url');
  return bytes.length === ID_BYTES + SECRET_BYTES ? uuidText(bytes.subarray(0, ID_BYTES)) : null;
}
