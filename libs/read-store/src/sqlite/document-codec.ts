/**
 * How the SQLite read store keeps documents: one JSON text per document. JSON has no date type, so a
 * `Date` is stored as `{"$date": "<ISO 8601>"}` and revived on read (field names never start with `$`,
 * see the port's rules, so the marker cannot clash with a real field).
 */
import type { Doc } from '../read-store.port';

const DATE_KEY = '$date';
const DATE_MARKER = `"${DATE_KEY}"`;

function bigintError(where: string): TypeError {
  return new TypeError(`${where}: bigint values are not storable in the read store; use a decimal string`);
}

/** Walks `value`: @throws TypeError on a bigint; @returns whether a Date occurs anywhere. */
function scan(value: unknown, where: string): boolean {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') throw bigintError(where);
    return false;
  }
  if (value instanceof Date) return true;
  let dated = false;
  if (Array.isArray(value)) {
    for (const item of value) if (scan(item, where)) dated = true;
    return dated;
  }
  for (const key in value) if (scan((value as Record<string, unknown>)[key], where)) dated = true;
  return dated;
}

/** A copy of `value` with every Date replaced by its stored marker object. */
function withDateMarkers(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return { [DATE_KEY]: value.toISOString() };
  if (Array.isArray(value)) return value.map(withDateMarkers);
  const out: Record<string, unknown> = {};
  for (const key in value) out[key] = withDateMarkers((value as Record<string, unknown>)[key]);
  return out;
}

/**
 * The stored JSON text of a document or a value (undefined object members dropped, as JSON does).
 * @throws TypeError when a bigint occurs anywhere in `value` (`where` names the collection).
 */
export function encodeValue(value: unknown, where: string): string {
  return JSON.stringify(scan(value, where) ? withDateMarkers(value) : value);
}

function revive(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = revive(value[i]);
    return value;
  }
  const record = value as Record<string, unknown>;
  const marker = record[DATE_KEY];
  if (typeof marker === 'string' && Object.keys(record).length === 1) return new Date(marker);
  for (const key in record) record[key] = revive(record[key]);
  return record;
}

/** Parses a stored document (a fresh object each call: callers may mutate it). */
export function decodeDoc<T extends Doc>(text: string): T {
  const parsed: unknown = JSON.parse(text);
  const doc = text.includes(DATE_MARKER) ? revive(parsed) : parsed;
  return doc as T;
}
