/**
 * JSON helpers for Solana RPC payloads: u64 values travel as JSON numbers, which may exceed
 * 2^53, so bigints are written as raw digits and normalised back on the way in.
 */
import { randomBytes } from 'node:crypto';

// Random per process, so no string value can impersonate the placeholder.
const MARK = `\u0000${randomBytes(6).toString('hex')}:`;
const MARK_RE = new RegExp(`"\\\\u0000${MARK.slice(1, -1)}:(-?\\d+)"`, 'g');

/** JSON.stringify that writes bigints as plain JSON numbers (exact, any size). */
export function stringifyJson(value: unknown): string {
  let sawBigint = false;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') {
      sawBigint = true;
      return `${MARK}${v.toString()}`;
    }
    return v;
  });
  return sawBigint ? text.replace(MARK_RE, '$1') : text;
}

/** Deep copy turning bigints that fit in a double exactly into numbers (for error JSON from kit). */
export function bigintsToNumbers(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value;
  }
  if (Array.isArray(value)) return value.map(bigintsToNumbers);
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = bigintsToNumbers(v);
    return out;
  }
  return value;
}
