/**
 * Field rules shared by messages, memos, fingerprints and receipts (see docs/protocol.md, "Field rules").
 * Each `is*` function is a pure predicate; `assertField` turns a failed predicate into a `FieldError`.
 */
import { FieldError } from './errors';

export { isBase58Address, isBase58Signature } from './base58';

/** Lower-case hex SHA-256 digest: exactly 64 characters. */
export const HEX64 = /^[0-9a-f]{64}$/;
/** Acceptance nonce: 16 random bytes as 32 lower-case hex characters. */
export const NONCE_HEX = /^[0-9a-f]{32}$/;
/** CAIP-2 chain id of a Solana network: `solana:` + the first 32 characters of the base58 genesis hash. */
export const CHAIN_ID = /^solana:[1-9A-HJ-NP-Za-km-z]{32}$/;
/** Document slug: lower-case letters and digits in groups joined by single hyphens, at most 32 characters. */
export const SLUG = /^(?=.{1,32}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** ISO 8601 UTC timestamp with whole seconds, e.g. `2026-11-22T10:00:00Z`. */
export const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
/** ISO 8601 UTC timestamp with optional fraction of a second, e.g. `2026-11-22T10:00:00.123Z`. */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** Lower-case DNS host name (ASCII, IDNs in punycode), without port. */
const HOSTNAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*$`);
/** Request domain: lower-case host name with optional `:port`, at most 64 characters. */
const REQUEST_DOMAIN = new RegExp(`^(?=.{1,64}$)${LABEL}(?:\\.${LABEL})*(?::([1-9][0-9]{0,4}))?$`);

/** Largest version number (u32), which keeps the acceptance message within its byte budget. */
export const MAX_VERSION_NUMBER = 0xffffffff;

/** Whether `value` is an ISO 8601 UTC timestamp with whole seconds that names a real instant. */
export function isIsoSeconds(value: unknown): value is string {
  return typeof value === 'string' && ISO_SECONDS.test(value) && isRealInstant(value);
}

/** Whether `value` is an ISO 8601 UTC timestamp (optional fraction) that names a real instant. */
export function isIsoUtc(value: unknown): value is string {
  return typeof value === 'string' && ISO_UTC.test(value) && isRealInstant(value);
}

/** Days of each month of a common year, January first. */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether the calendar and clock fields of `value` (already of the form `YYYY-MM-DDTHH:MM:SS…`) name a real instant of
 * the proleptic Gregorian calendar: no rolled-over date such as 2026-02-30, no hour 24, no leap second (which
 * ECMAScript's `Date.parse` round trip refuses alike). Read from the characters, without a `Date`: receipts check
 * several timestamps on every read.
 */
function isRealInstant(value: string): boolean {
  const field = (at: number, length: number) => {
    let n = 0;
    for (let i = at; i < at + length; i++) n = n * 10 + value.charCodeAt(i) - 48;
    return n;
  };
  const year = field(0, 4);
  const month = field(5, 2);
  const day = field(8, 2);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
  return day <= days && field(11, 2) <= 23 && field(14, 2) <= 59 && field(17, 2) <= 59;
}

/** Unix seconds of an ISO 8601 UTC timestamp (whole seconds, floor). */
export function isoToUnixSeconds(value: string): number {
  return Math.floor(Date.parse(value) / 1000);
}

/** Whether `value` is a request domain: `host` or `host:port`, lower case, at most 64 characters. */
export function isRequestDomain(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = REQUEST_DOMAIN.exec(value);
  return m !== null && (m[1] === undefined || Number(m[1]) <= 65535);
}

/** Whether `value` is a lower-case host name (at most 253 characters) with optional `:port` (a URL's host). */
export function isHostWithPort(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = /^(.*?)(?::([1-9][0-9]{0,4}))?$/.exec(value);
  return m !== null && HOSTNAME.test(m[1]!) && (m[2] === undefined || Number(m[2]) <= 65535);
}

/** Whether `value` is a lower-case DNS host name without port (an organization's domain). */
export function isHostname(value: unknown): value is string {
  return typeof value === 'string' && HOSTNAME.test(value);
}

/** Whether `value` is an integer version number in 1..2^32-1. */
export function isVersionNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_VERSION_NUMBER;
}

/** Whether `value` is a non-negative safe integer (slot, lamports, unix seconds). */
export function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Whether `value` is an effective date: positive integer unix seconds, or null. */
export function isEffectiveAt(value: unknown): value is number | null {
  return value === null || (typeof value === 'number' && Number.isSafeInteger(value) && value > 0);
}

// Control characters (C0, DEL, C1) and unpaired UTF-16 surrogates (not encodable as UTF-8).
const FORBIDDEN_TEXT = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u;

/**
 * Whether `value` is display text of `min..max` Unicode code points with no control characters
 * and no unpaired surrogates (titles, labels, names).
 */
export function isText(value: unknown, min: number, max: number): value is string {
  if (typeof value !== 'string' || FORBIDDEN_TEXT.test(value)) return false;
  const length = [...value].length;
  return length >= min && length <= max;
}

/** Bounds of a version's text fields in code points (docs/protocol.md, "Field rules"). */
export const VERSION_LABEL_MAX = 16;
export const VERSION_TITLE_MAX = 200;

/** Whether `value` is a version label: {@link isText} of 1 to 16 code points (the rule of `ver` memos and fingerprints). */
export function isVersionLabel(value: unknown): value is string {
  return isText(value, 1, VERSION_LABEL_MAX);
}

/** Whether `value` is a version or document title: {@link isText} of 1 to 200 code points. */
export function isVersionTitle(value: unknown): value is string {
  return isText(value, 1, VERSION_TITLE_MAX);
}

/**
 * Whether `value` is a string that can become canonical content: well-formed UTF-16 (no unpaired surrogate),
 * the condition under which `canonicalContent` succeeds (docs/protocol.md, "Content hash").
 */
export function isWellFormedText(value: unknown): value is string {
  return typeof value === 'string' && (value as string & { isWellFormed(): boolean }).isWellFormed();
}

/** Whether `value` is an own-property-only plain object (JSON object). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether the object's own keys are exactly `keys` (any order). */
export function hasExactKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((k) => Object.prototype.hasOwnProperty.call(value, k));
}

/**
 * Throws `FieldError("<name>: <rule>")` when `ok` is false.
 * @throws FieldError
 */
export function assertField(ok: boolean, name: string, rule: string): void {
  if (!ok) throw new FieldError(`${name}: ${rule}`);
}
