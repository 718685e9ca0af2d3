/**
 * Canonical bytes of a document version, its content hash and the version fingerprint.
 * Layouts are specified in docs/protocol.md ("Content hash", "Fingerprint").
 */
import canonicalize from 'canonicalize';
import { TAG_FINGERPRINT } from './constants';
import { ContentError } from './errors';
import { sha256Hex, taggedSha256Hex } from './hash';
import {
  HEX64,
  assertField,
  isBase58Address,
  isEffectiveAt,
  isText,
  isVersionNumber,
} from './validation';

/**
 * Canonical bytes of a document's text, the bytes that `contentHash` commits to (docs/protocol.md §2):
 * 1. strip every leading U+FEFF (byte order mark);
 * 2. Unicode Normalization Form C (UAX #15);
 * 3. CRLF and lone CR become LF;
 * 4. spaces (U+0020) and tabs (U+0009) before each LF and at the end of the text are removed (lines end at LF
 *    only: U+2028 and U+2029 are characters of a line like any other);
 * 5. trailing line feeds are removed and exactly one LF is appended (an empty text gives `"\n"`);
 * 6. encoded as UTF-8 (RFC 3629).
 *
 * Idempotent: `canonicalContent(canonicalContent(t).toString('utf8'))` equals `canonicalContent(t)`.
 * @throws ContentError when the text holds an unpaired UTF-16 surrogate (not representable in UTF-8).
 */
export function canonicalContent(text: string): Buffer {
  if (typeof text !== 'string') throw new ContentError('document text must be a string');
  // Well-formed UTF-16 ⇔ no unpaired surrogate (what /\p{Cs}/u matched). ES2024, in Node ≥ 20.
  if (!(text as string & { isWellFormed(): boolean }).isWellFormed()) throw new ContentError('document text contains an unpaired UTF-16 surrogate');
  let bom = 0;
  while (text.charCodeAt(bom) === 0xfeff) bom++;
  let t = bom === 0 ? text : text.slice(bom);
  t = t.normalize('NFC');
  if (t.indexOf('\r') !== -1) t = t.replace(/\r\n?/g, '\n');
  t = stripTrailingBlanks(t);
  let end = t.length;
  while (end > 0 && t.charCodeAt(end - 1) === 0x0a) end--;
  t = (end === t.length ? t : t.slice(0, end)) + '\n';
  return Buffer.from(t, 'utf8');
}

/** Removes the spaces and tabs that end a line (before each LF, and at the end of the text; `t` holds no CR here). */
function stripTrailingBlanks(t: string): string {
  let out = '';
  let copied = 0;
  let lineStart = 0;
  for (;;) {
    const lf = t.indexOf('\n', lineStart);
    const lineEnd = lf === -1 ? t.length : lf;
    let blanksStart = lineEnd;
    while (blanksStart > lineStart) {
      const c = t.charCodeAt(blanksStart - 1);
      if (c !== 0x20 && c !== 0x09) break;
      blanksStart--;
    }
    if (blanksStart !== lineEnd) {
      out += t.slice(copied, blanksStart);
      copied = lineEnd;
    }
    if (lf === -1) break;
    lineStart = lf + 1;
  }
  return copied === 0 ? t : out + t.slice(copied);
}

/** Content hash: lower-case hex SHA-256 (FIPS 180-4) of canonical bytes (64 characters). */
export function contentHash(bytes: Uint8Array): string {
  return sha256Hex(bytes);
}

/**
 * The fields that define a version of a document (docs/protocol.md "Version record"): the one shared shape of
 * them across the service (memo records, publication transactions, fingerprints, events, read models).
 */
export interface VersionFields {
  /** Base58 address of the document. */
  document: string;
  /** Version number, integer 1..2^32-1. */
  number: number;
  /** Version label, 1..16 characters. */
  label: string;
  /** Version title, 1..200 characters. */
  title: string;
  /** Lower-case hex SHA-256 of the canonical content. */
  contentHash: string;
  /** Unix seconds (integer > 0) when the version takes effect; null: on publication. */
  effectiveAt: number | null;
}

/** The fields a version fingerprint commits to: the version's fields and its organization's base58 address. */
export interface VersionFingerprintInput extends VersionFields {
  organization: string;
}

/**
 * Version fingerprint: lower-case hex
 * `SHA-256(ASCII("svc:v1:fingerprint") || 0x00 || UTF-8(JCS({organization, document, number, label, title, contentHash, effectiveAt})))`
 * where JCS is the JSON Canonicalization Scheme of RFC 8785. It does not cover the version's own
 * address, so a client can compute it before generating the version's key pair.
 * @throws FieldError when a field breaks its rule (see docs/protocol.md, "Field rules").
 */
export function versionFingerprint(input: VersionFingerprintInput): string {
  assertField(isBase58Address(input.organization), 'organization', 'must be a base58 address');
  assertField(isBase58Address(input.document), 'document', 'must be a base58 address');
  assertField(isVersionNumber(input.number), 'number', 'must be an integer from 1 to 4294967295');
  assertField(isText(input.label, 1, 16), 'label', 'must be 1 to 16 characters without control characters');
  assertField(isText(input.title, 1, 200), 'title', 'must be 1 to 200 characters without control characters');
  assertField(typeof input.contentHash === 'string' && HEX64.test(input.contentHash), 'contentHash', 'must be 64 lower-case hex characters');
  assertField(isEffectiveAt(input.effectiveAt), 'effectiveAt', 'must be a positive integer (unix seconds) or null');
  const json = canonicalize({
    organization: input.organization,
    document: input.document,
    number: input.number,
    label: input.label,
    title: input.title,
    contentHash: input.contentHash,
    effectiveAt: input.effectiveAt,
  }) as string;
  return taggedSha256Hex(TAG_FINGERPRINT, Buffer.from(json, 'utf8'));
}
