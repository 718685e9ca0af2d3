/**
 * Dashboard sign-in message in the Sign-In-With-Solana style (after EIP-4361 "Sign-In with Ethereum"
 * and the Solana Wallet Standard `solana:signIn` feature). It authorizes nothing on the ledger.
 *
 * ```text
 * ${domain} wants you to sign in with your Solana account:
 * ${address}
 *
 * ${statement}
 *
 * URI: ${uri}
 * Version: 1
 * Chain ID: ${chainId}
 * Nonce: ${nonce}
 * Issued At: ${issuedAt}
 * Expiration Time: ${expirationTime}
 * ```
 * Lines are joined by LF, no trailing LF.
 */
import { SignInMessageFormatError, FieldError } from './errors';
import { isBase58Address, isHostWithPort, isIsoUtc, isText } from './validation';

/** Fields of a sign-in message. */
export interface SignInMessageFields {
  /** Host (and optional port) of the app asking for the sign-in, e.g. `app.example.com`. */
  domain: string;
  /** Base58 wallet address signing in. */
  address: string;
  /** One line of human-readable text, 1..500 characters, no line breaks. */
  statement: string;
  /** Absolute URI of the app (RFC 3986), at most 2048 characters. */
  uri: string;
  version: '1';
  /** CAIP-2 chain id, e.g. `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1`. */
  chainId: string;
  /** Single-use nonce: 8..64 ASCII letters and digits. */
  nonce: string;
  /** ISO 8601 UTC (RFC 3339) time, e.g. `2026-11-22T10:00:00Z`. */
  issuedAt: string;
  /** ISO 8601 UTC time strictly after `issuedAt`. */
  expirationTime: string;
}

const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;
const NONCE = /^[A-Za-z0-9]{8,64}$/;
const HEADER_SUFFIX = ' wants you to sign in with your Solana account:';
const TAIL_KEYS = ['URI', 'Version', 'Chain ID', 'Nonce', 'Issued At', 'Expiration Time'] as const;

/**
 * Builds the byte-exact sign-in message.
 * @throws FieldError when a field breaks its rule.
 */
export function buildSignInMessage(fields: SignInMessageFields): string {
  const problem = fieldsProblem(fields);
  if (problem) throw new FieldError(problem);
  return render(fields);
}

/**
 * Parses a sign-in message, accepting only byte-exact output of `buildSignInMessage`.
 * @throws SignInMessageFormatError on any deviation (extra or missing line, CR, trailing LF, bad field).
 */
export function parseSignInMessage(text: string): SignInMessageFields {
  if (typeof text !== 'string') throw new SignInMessageFormatError('message must be a string');
  if (text.length > 4096) throw new SignInMessageFormatError('message is longer than 4096 characters');
  if (text.includes('\r')) throw new SignInMessageFormatError('message must use LF line endings only');
  const lines = text.split('\n');
  if (lines.length !== 11) throw new SignInMessageFormatError(`message must have exactly 11 lines (no trailing line feed), got ${lines.length}`);
  const header = lines[0]!;
  if (!header.endsWith(HEADER_SUFFIX)) throw new SignInMessageFormatError(`line 1 must end with "${HEADER_SUFFIX.trim()}"`);
  if (lines[2] !== '' || lines[4] !== '') throw new SignInMessageFormatError('lines 3 and 5 must be empty');
  const tail: string[] = TAIL_KEYS.map((key, i) => {
    const line = lines[5 + i]!;
    if (!line.startsWith(`${key}: `)) throw new SignInMessageFormatError(`line ${6 + i} must start with "${key}: "`);
    return line.slice(key.length + 2);
  });
  const fields = {
    domain: header.slice(0, header.length - HEADER_SUFFIX.length),
    address: lines[1]!,
    statement: lines[3]!,
    uri: tail[0]!,
    version: tail[1]! as '1',
    chainId: tail[2]!,
    nonce: tail[3]!,
    issuedAt: tail[4]!,
    expirationTime: tail[5]!,
  };
  const problem = fieldsProblem(fields);
  if (problem) throw new SignInMessageFormatError(problem);
  if (render(fields) !== text) throw new SignInMessageFormatError('message is not in canonical form');
  return fields;
}

function render(f: SignInMessageFields): string {
  return [
    `${f.domain}${HEADER_SUFFIX}`,
    f.address,
    '',
    f.statement,
    '',
    `URI: ${f.uri}`,
    `Version: ${f.version}`,
    `Chain ID: ${f.chainId}`,
    `Nonce: ${f.nonce}`,
    `Issued At: ${f.issuedAt}`,
    `Expiration Time: ${f.expirationTime}`,
  ].join('\n');
}

function fieldsProblem(f: SignInMessageFields): string | null {
  if (f === null || typeof f !== 'object') return 'fields must be an object';
  if (!isHostWithPort(f.domain)) return 'domain: must be a lower-case host name with optional :port';
  if (!isBase58Address(f.address)) return 'address: must be a base58 address';
  if (!isText(f.statement, 1, 500)) return 'statement: must be 1 to 500 characters without line breaks or control characters';
  if (!isUri(f.uri)) return 'uri: must be an absolute URI without spaces, at most 2048 characters';
  if (f.version !== '1') return 'version: must be "1"';
  if (typeof f.chainId !== 'string' || !CAIP2.test(f.chainId)) return 'chainId: must be a CAIP-2 chain id such as solana:<genesis hash prefix>';
  if (typeof f.nonce !== 'string' || !NONCE.test(f.nonce)) return 'nonce: must be 8 to 64 ASCII letters and digits';
  if (!isIsoUtc(f.issuedAt)) return 'issuedAt: must be an ISO 8601 UTC time';
  if (!isIsoUtc(f.expirationTime)) return 'expirationTime: must be an ISO 8601 UTC time';
  if (Date.parse(f.expirationTime) <= Date.parse(f.issuedAt)) return 'expirationTime: must be later than issuedAt';
  return null;
}

function isUri(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 2048 || !/^[A-Za-z][A-Za-z0-9+.-]*:[\x21-\x7e]+$/.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}
