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

/** The advanced fields of the Wallet Standard format, in the order a wallet writes them, with their field names. */
const WALLET_FIELDS = [
  ['URI', 'uri'],
  ['Version', 'version'],
  ['Chain ID', 'chainId'],
  ['Nonce', 'nonce'],
  ['Issued At', 'issuedAt'],
  ['Expiration Time', 'expirationTime'],
  ['Not Before', 'notBefore'],
  ['Request ID', 'requestId'],
] as const;

/**
 * A sign-in message as a Wallet Standard wallet (`solana:signIn`) may render it: the fields of the wallet's
 * `SolanaSignInInput`, each optional after the address (statement, then those of `WALLET_FIELDS`, then resources;
 * docs/protocol.md §10). Values are as written in the message; times are checked to be RFC 3339 instants but kept
 * as text.
 */
export type WalletSignInFields = { domain: string; address: string; statement?: string; resources?: string[] } & {
  [F in (typeof WALLET_FIELDS)[number][1]]?: string;
};
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * Parses a sign-in message in the Wallet Standard's layout (the one `solana:signIn` wallets build from a
 * `SolanaSignInInput`): header, address, an optional statement after an empty line, then after an empty line
 * the fields present among `URI`, `Version`, `Chain ID`, `Nonce`, `Issued At`, `Expiration Time`, `Not Before`,
 * `Request ID` and `Resources:` (one `- <resource>` line each), in that order. Trailing line feeds are ignored.
 * Unlike {@link parseSignInMessage} it accepts what a wallet may render differently from the issued text
 * (times with milliseconds, extra fields); comparing the fields with the issued ones is the caller's work.
 * @throws SignInMessageFormatError naming the line or field that does not fit the layout.
 */
export function parseWalletSignInMessage(text: string): WalletSignInFields {
  if (typeof text !== 'string') throw new SignInMessageFormatError('message must be a string');
  if (text.length > 4096) throw new SignInMessageFormatError('message is longer than 4096 characters');
  if (text.includes('\r')) throw new SignInMessageFormatError('message must use LF line endings only');
  const lines = text.replace(/\n+$/, '').split('\n');
  const header = lines[0]!;
  if (!header.endsWith(HEADER_SUFFIX) || header.length === HEADER_SUFFIX.length) {
    throw new SignInMessageFormatError(`line 1 must be "<domain>${HEADER_SUFFIX}"`);
  }
  const fields: WalletSignInFields = { domain: header.slice(0, header.length - HEADER_SUFFIX.length), address: lines[1] ?? '' };
  if (!isBase58Address(fields.address)) throw new SignInMessageFormatError('line 2 must be a base58 address');
  if (lines.length === 2) return fields;
  if (lines[2] !== '' || lines.length === 3) throw new SignInMessageFormatError('line 3 must be empty and followed by a statement or fields');
  // As in the Wallet Standard's own parser, a block that reads as fields is fields, not a statement.
  let rest = lines.slice(3);
  if (!readWalletFields(rest, fields, true)) {
    fields.statement = rest[0]!;
    if (rest.length > 1) {
      if (rest[1] !== '' || rest.length === 2) throw new SignInMessageFormatError('the statement must be one line, followed by an empty line and the fields');
      rest = rest.slice(2);
      readWalletFields(rest, fields, false);
    }
  }
  return fields;
}

/**
 * Reads the fields block into `into`. With `probe`, answers false instead of throwing when the block does not
 * start like a fields block.
 */
function readWalletFields(lines: string[], into: WalletSignInFields, probe: boolean): boolean {
  let next = 0;
  let i = 0;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === 'Resources:') break;
    const at = WALLET_FIELDS.findIndex(([key]) => line.startsWith(`${key}: `));
    if (at < 0 || at < next) {
      if (probe && i === 0) return false;
      throw new SignInMessageFormatError(`line "${line.slice(0, 40)}" is not a field in its place (expected, in order: ${WALLET_FIELDS.slice(next).map(([k]) => k).join(', ')}, Resources)`);
    }
    const [key, name] = WALLET_FIELDS[at]!;
    const value = line.slice(key.length + 2);
    if (value.length === 0) throw new SignInMessageFormatError(`${name}: must not be empty`);
    if ((name === 'issuedAt' || name === 'expirationTime' || name === 'notBefore') && !(RFC3339.test(value) && Number.isFinite(Date.parse(value)))) {
      throw new SignInMessageFormatError(`${name}: must be an RFC 3339 time`);
    }
    into[name] = value;
    next = at + 1;
  }
  if (i < lines.length) {
    const resources = lines.slice(i + 1);
    if (resources.some((r) => !r.startsWith('- ') || r.length === 2)) throw new SignInMessageFormatError('resources: each line after "Resources:" must be "- <resource>"');
    into.resources = resources.map((r) => r.slice(2));
  }
  return true;
}
