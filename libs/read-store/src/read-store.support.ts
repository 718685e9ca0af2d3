/**
 * Rules shared by the read store adapters (internal to the library, not exported from the index):
 * name validation, value checks, upsert seeds built the way MongoDB builds them.
 */
import type { Filter, FindOptions, Update } from './read-store.port';

/** Name of the reserved collection (MongoDB) / datastore (NeDB) that holds checkpoints. */
export const CHECKPOINTS_COLLECTION = 'checkpoints';

const COLLECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const MAX_COLLECTION_NAME = 120;

/** @throws TypeError when `name` is not a valid, unreserved collection name. */
export function assertCollectionName(name: string): void {
  if (typeof name !== 'string' || name.length > MAX_COLLECTION_NAME || !COLLECTION_NAME.test(name)) {
    throw new TypeError(`invalid collection name ${JSON.stringify(name)}`);
  }
  if (name === CHECKPOINTS_COLLECTION || name.startsWith('system.')) {
    throw new TypeError(`collection name ${JSON.stringify(name)} is reserved`);
  }
}

/** Stored form of a checkpoint (both adapters): the position as a decimal string, lossless. */
export interface CheckpointDoc {
  _id: string;
  position: string;
  updatedAt: string;
}

/** Parses a stored checkpoint position; throws on a corrupt value rather than guessing. */
export function parsePosition(doc: { _id: string; position: unknown }): bigint {
  if (typeof doc.position !== 'string' || !/^-?[0-9]+$/.test(doc.position)) {
    throw new Error(`corrupt checkpoint ${doc._id}: position ${JSON.stringify(doc.position)}`);
  }
  return BigInt(doc.position);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Whether `value` is an operator object such as `{ $gt: 1 }` (as opposed to a literal sub-document). */
export function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  for (const key in value) return key.charCodeAt(0) === 36; /* '$' */
  return false;
}

function bigintError(where: string): TypeError {
  return new TypeError(`${where}: bigint values are not storable in the read store; use a decimal string`);
}

/** @throws TypeError when a bigint occurs anywhere in `value`. */
export function assertNoBigInt(value: unknown, where: string): void {
  if (typeof value === 'bigint') throw bigintError(where);
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) assertNoBigInt(item, where);
    return;
  }
  if (value instanceof Date) return;
  for (const key in value) assertNoBigInt((value as Record<string, unknown>)[key], where);
}

/**
 * Deep copy of plain JSON-like data (objects, arrays, Dates) that also rejects bigints.
 * Primitives are returned as they are.
 */
export function cloneChecked(value: unknown, where: string): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') throw bigintError(where);
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => cloneChecked(item, where));
  if (value instanceof Date) return new Date(value.getTime());
  const out: Record<string, unknown> = {};
  for (const key in value) out[key] = cloneChecked((value as Record<string, unknown>)[key], where);
  return out;
}

const UPDATE_OPERATORS = new Set(['$set', '$unset', '$inc', '$push', '$addToSet']);

/**
 * Checks that `update` holds only the port's operators, each with an object operand, and no bigint.
 * @throws TypeError otherwise (a replacement document or an empty update is a programming error).
 */
export function assertOperatorUpdate(update: Update, collection: string): void {
  const keys = Object.keys(update);
  if (keys.length === 0) throw new TypeError(`${collection}: empty update`);
  for (const key of keys) {
    if (!UPDATE_OPERATORS.has(key)) {
      throw new TypeError(`${collection}: unsupported update operator or field ${JSON.stringify(key)}`);
    }
    const operand = (update as Record<string, unknown>)[key];
    if (!isPlainObject(operand)) throw new TypeError(`${collection}: ${key} needs an object operand`);
  }
  assertNoBigInt(update, `${collection} update`);
}

/** @throws TypeError on a negative or fractional limit/skip. */
export function assertFindOptions(options: FindOptions | undefined, collection: string): void {
  if (!options) return;
  for (const key of ['limit', 'skip'] as const) {
    const n = options[key];
    if (n !== undefined && !(Number.isSafeInteger(n) && n >= 0)) {
      throw new TypeError(`${collection}: ${key} must be a non-negative integer, got ${String(n)}`);
    }
  }
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (let i = 0; i < parts.length - 1; i++) {
    const next = node[parts[i]!];
    if (isPlainObject(next)) node = next;
    else {
      const created: Record<string, unknown> = {};
      node[parts[i]!] = created;
      node = created;
    }
  }
  node[parts[parts.length - 1]!] = value;
}

function collectEqualities(filter: Filter, seed: Record<string, unknown>): void {
  for (const key of Object.keys(filter)) {
    const value = filter[key];
    if (key.charCodeAt(0) === 36 /* '$' */) {
      if (key === '$and' && Array.isArray(value)) {
        for (const clause of value) if (isPlainObject(clause)) collectEqualities(clause, seed);
      } else if (key === '$or' && Array.isArray(value) && value.length === 1 && isPlainObject(value[0])) {
        collectEqualities(value[0], seed);
      }
      continue;
    }
    if (isOperatorObject(value)) {
      if ('$eq' in value) setPath(seed, key, cloneChecked(value['$eq'], 'filter'));
      continue;
    }
    setPath(seed, key, cloneChecked(value, 'filter'));
  }
}

/**
 * The document MongoDB starts from when an upsert inserts: the filter's equality conditions
 * (top level, inside `$and`, or a one-clause `$or`), dotted paths expanded into sub-documents.
 * Operator conditions (`$in`, `$gt` ...) contribute nothing.
 */
export function upsertSeed(filter: Filter): Record<string, unknown> {
  const seed: Record<string, unknown> = {};
  collectEqualities(filter, seed);
  return seed;
}
