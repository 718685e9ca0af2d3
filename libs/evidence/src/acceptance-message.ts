/**
 * The acceptance message: the exact text a signer signs to accept one version of a document.
 * Byte layout of `svc/1` (and the reserved `svc/2`) is specified in docs/protocol.md ("Acceptance message").
 *
 * ```text
 * svc/1 acceptance
 * I accept version 3 of the document below.
 * domain: app.example.com
 * chain: solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1
 * organization: <base58>
 * document: <base58>
 * version: <base58>
 * content-hash: <64 hex>
 * fingerprint: <64 hex>
 * signer: <base58>
 * nonce: <32 hex>
 * issued-at: 2026-11-22T10:00:00Z
 * expires-at: 2026-11-22T10:10:00Z
 * ```
 * Lines are joined by a single LF (0x0A); there is no trailing LF; the text is ASCII.
 */
import { ACCEPTANCE_MESSAGE_MAX_BYTES, PROTOCOL_V1, PROTOCOL_V2, TAG_ACCEPTANCE } from './constants';
import { FieldError, MessageFormatError } from './errors';
import { taggedSha256Hex } from './hash';
import {
  CHAIN_ID,
  HEX64,
  NONCE_HEX,
  assertField,
  isBase58Address,
  isIsoSeconds,
  isRequestDomain,
  isVersionNumber,
} from './validation';

/** Fields of an `svc/1` acceptance message. Addresses are base58; times are ISO 8601 UTC with seconds. */
export interface AcceptanceMessageV1Fields {
  protocol: 'svc/1';
  /** Host (and optional port) of the site that asked for the signature, e.g. `app.example.com`, `localhost:3000`; ≤ 64 chars, lower case. */
  requestDomain: string;
  /** CAIP-2 chain id: `solana:` + first 32 characters of the genesis hash. */
  chainId: string;
  organization: string;
  document: string;
  versionAddress: string;
  /** Integer 1..2^32-1. */
  versionNumber: number;
  /** Lower-case hex SHA-256 of the version's canonical content. */
  contentHash: string;
  /** Lower-case hex version fingerprint. */
  fingerprint: string;
  /** Base58 Ed25519 public key (wallet address) that signs the message. */
  signer: string;
  /** 16 random bytes, 32 lower-case hex characters; single use. */
  nonce: string;
  /** `YYYY-MM-DDTHH:MM:SSZ`. */
  issuedAt: string;
  /** `YYYY-MM-DDTHH:MM:SSZ`, strictly after `issuedAt`. */
  expiresAt: string;
}

/**
 * Fields of any supported acceptance message, discriminated by `protocol`.
 * `svc/2` (native passkeys) will join this union when implemented.
 */
export type AcceptanceMessageFields = AcceptanceMessageV1Fields;

/** Protocol versions this library can parse. */
export const SUPPORTED_ACCEPTANCE_PROTOCOLS: readonly string[] = [PROTOCOL_V1];

const HEADER_V1 = `${PROTOCOL_V1} acceptance`;
const HEADER_V2 = `${PROTOCOL_V2} acceptance`;
const SENTENCE_V1 = /^I accept version ([1-9][0-9]{0,9}) of the document below\.$/;

/** Keys of the `key: value` lines of `svc/1`, in their fixed order, with the field each one carries. */
const V1_LINES: ReadonlyArray<readonly [string, keyof AcceptanceMessageV1Fields]> = [
  ['domain', 'requestDomain'],
  ['chain', 'chainId'],
  ['organization', 'organization'],
  ['document', 'document'],
  ['version', 'versionAddress'],
  ['content-hash', 'contentHash'],
  ['fingerprint', 'fingerprint'],
  ['signer', 'signer'],
  ['nonce', 'nonce'],
  ['issued-at', 'issuedAt'],
  ['expires-at', 'expiresAt'],
];

/**
 * Builds the byte-exact `svc/1` acceptance message.
 * @returns ASCII text, lines joined by LF, no trailing LF, at most 700 bytes.
 * @throws FieldError when a field breaks its rule (see docs/protocol.md, "Field rules"), or the
 *   window is empty, or the result exceeds 700 bytes.
 */
export function buildAcceptanceMessage(fields: AcceptanceMessageFields): string {
  validateV1(fields, (name, rule) => new FieldError(`${name}: ${rule}`));
  const lines = [
    HEADER_V1,
    `I accept version ${fields.versionNumber} of the document below.`,
    ...V1_LINES.map(([key, field]) => `${key}: ${String(fields[field])}`),
  ];
  const message = lines.join('\n');
  const size = Buffer.byteLength(message, 'utf8');
  assertField(size <= ACCEPTANCE_MESSAGE_MAX_BYTES, 'message', `is ${size} bytes; at most ${ACCEPTANCE_MESSAGE_MAX_BYTES} allowed`);
  return message;
}

/** The protocol named by a message's first line (`svc/1`, `svc/2`, …), or null when it has no such header. */
export function acceptanceProtocolOf(text: string): string | null {
  if (typeof text !== 'string') return null;
  const end = text.indexOf('\n');
  const header = end < 0 ? text : text.slice(0, end);
  const m = /^(svc\/[0-9]+) acceptance$/.exec(header);
  return m ? m[1]! : null;
}

type MessageParser = (lines: string[], text: string) => AcceptanceMessageFields;

/** Parsers by header line. Add `svc/2 acceptance` here when native passkeys are implemented. */
const PARSERS: ReadonlyMap<string, MessageParser> = new Map([[HEADER_V1, parseV1]]);

/**
 * Parses an acceptance message, accepting only byte-exact output of `buildAcceptanceMessage`
 * (any extra byte, CR, trailing LF, changed case, reordered line or bad field is rejected).
 * Dispatches on the first line (the protocol header).
 * @throws MessageFormatError on anything not byte-exact, on a reserved header (`svc/2 acceptance`)
 *   and on unknown headers, with a message saying which.
 */
export function parseAcceptanceMessage(text: string): AcceptanceMessageFields {
  if (typeof text !== 'string') throw new MessageFormatError('message must be a string');
  const size = Buffer.byteLength(text, 'utf8');
  if (size > ACCEPTANCE_MESSAGE_MAX_BYTES) {
    throw new MessageFormatError(`message is ${size} bytes; at most ${ACCEPTANCE_MESSAGE_MAX_BYTES} allowed`);
  }
  if (text.includes('\r')) throw new MessageFormatError('message must use LF line endings only');
  const lines = text.split('\n');
  const header = lines[0]!;
  const parser = PARSERS.get(header);
  if (parser) return parser(lines, text);
  if (header === HEADER_V2) {
    throw new MessageFormatError('protocol svc/2 (native passkeys) is reserved and not supported by this verifier');
  }
  const protocol = acceptanceProtocolOf(text);
  if (protocol) throw new MessageFormatError(`unsupported protocol ${protocol}; supported: ${SUPPORTED_ACCEPTANCE_PROTOCOLS.join(', ')}`);
  throw new MessageFormatError('not an svc acceptance message: the first line must be "svc/1 acceptance"');
}

/**
 * Acceptance ID: lower-case hex `SHA-256(ASCII("svc:v1:acceptance") || 0x00 || UTF-8(message))`.
 * Any change to the message, even one byte, gives another ID.
 */
export function acceptanceIdOf(message: string): string {
  return taggedSha256Hex(TAG_ACCEPTANCE, Buffer.from(message, 'utf8'));
}

function parseV1(lines: string[], text: string): AcceptanceMessageV1Fields {
  const expected = 2 + V1_LINES.length;
  if (lines.length !== expected) {
    throw new MessageFormatError(`svc/1 message must have exactly ${expected} lines (no trailing line feed), got ${lines.length}`);
  }
  const sentence = SENTENCE_V1.exec(lines[1]!);
  if (!sentence) throw new MessageFormatError('line 2 must be "I accept version <n> of the document below."');
  const values: Record<string, string> = {};
  V1_LINES.forEach(([key, field], i) => {
    const line = lines[i + 2]!;
    const prefix = `${key}: `;
    if (!line.startsWith(prefix)) throw new MessageFormatError(`line ${i + 3} must start with "${prefix}"`);
    values[field] = line.slice(prefix.length);
  });
  const fields: AcceptanceMessageV1Fields = {
    protocol: PROTOCOL_V1,
    requestDomain: values.requestDomain!,
    chainId: values.chainId!,
    organization: values.organization!,
    document: values.document!,
    versionAddress: values.versionAddress!,
    versionNumber: Number(sentence[1]),
    contentHash: values.contentHash!,
    fingerprint: values.fingerprint!,
    signer: values.signer!,
    nonce: values.nonce!,
    issuedAt: values.issuedAt!,
    expiresAt: values.expiresAt!,
  };
  validateV1(fields, (name, rule) => new MessageFormatError(`${name}: ${rule}`));
  // Belt and braces: the canonical rendering of the parsed fields must be the input, byte for byte.
  if (buildAcceptanceMessage(fields) !== text) throw new MessageFormatError('message is not in canonical svc/1 form');
  return fields;
}

function validateV1(f: AcceptanceMessageV1Fields, fail: (name: string, rule: string) => Error): void {
  const check = (ok: boolean, name: string, rule: string) => {
    if (!ok) throw fail(name, rule);
  };
  check(f !== null && typeof f === 'object', 'fields', 'must be an object');
  check(f.protocol === PROTOCOL_V1, 'protocol', 'must be "svc/1"');
  check(isRequestDomain(f.requestDomain), 'requestDomain', 'must be a lower-case host name with optional :port, at most 64 characters');
  check(typeof f.chainId === 'string' && CHAIN_ID.test(f.chainId), 'chainId', 'must be "solana:" followed by 32 base58 characters');
  check(isBase58Address(f.organization), 'organization', 'must be a base58 address');
  check(isBase58Address(f.document), 'document', 'must be a base58 address');
  check(isBase58Address(f.versionAddress), 'versionAddress', 'must be a base58 address');
  check(isVersionNumber(f.versionNumber), 'versionNumber', 'must be an integer from 1 to 4294967295');
  check(typeof f.contentHash === 'string' && HEX64.test(f.contentHash), 'contentHash', 'must be 64 lower-case hex characters');
  check(typeof f.fingerprint === 'string' && HEX64.test(f.fingerprint), 'fingerprint', 'must be 64 lower-case hex characters');
  check(isBase58Address(f.signer), 'signer', 'must be a base58 address');
  check(typeof f.nonce === 'string' && NONCE_HEX.test(f.nonce), 'nonce', 'must be 32 lower-case hex characters');
  check(isIsoSeconds(f.issuedAt), 'issuedAt', 'must be an ISO 8601 UTC time with seconds, e.g. 2026-11-22T10:00:00Z');
  check(isIsoSeconds(f.expiresAt), 'expiresAt', 'must be an ISO 8601 UTC time with seconds, e.g. 2026-11-22T10:00:00Z');
  check(Date.parse(f.expiresAt) > Date.parse(f.issuedAt), 'expiresAt', 'must be later than issuedAt');
}
