/**
 * The port's update operators (`$set $unset $inc $push $addToSet`) applied to a plain document in
 * memory, with MongoDB's semantics for the subset (see read-store.port.ts). Used by the SQLite adapter,
 * which reads a document, changes it here and writes it back inside one synchronous step.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Update } from './read-store.port';
import { cloneChecked } from './read-store.support';

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

/** The object holding the last segment of `path`, creating sub-documents on the way when `create`. */
function parentOf(doc: Record<string, unknown>, path: string, create: boolean, collection: string): [Record<string, unknown>, string] | undefined {
  const parts = path.split('.');
  let node = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const key = parts[i]!;
    const next = node[key];
    if (isRecord(next)) {
      node = next;
    } else if (next === undefined && create) {
      const created: Record<string, unknown> = {};
      node[key] = created;
      node = created;
    } else if (next === undefined) {
      return undefined;
    } else {
      throw new TypeError(`${collection}: cannot update ${path}: ${parts.slice(0, i + 1).join('.')} is not a sub-document`);
    }
  }
  return [node, parts[parts.length - 1]!];
}

function arrayAt(node: Record<string, unknown>, key: string, op: string, path: string, collection: string): unknown[] {
  const current = node[key];
  if (current === undefined) {
    const created: unknown[] = [];
    node[key] = created;
    return created;
  }
  if (!Array.isArray(current)) throw new TypeError(`${collection}: ${op} on ${path}, which is not an array`);
  return current;
}

/**
 * Applies `update` to `doc` in place (operands are deep-copied, so the document never shares them
 * with the caller).
 * @throws TypeError on an operator outside the subset, `$inc` on a non-number, `$push`/`$addToSet`
 *   on a non-array, a path through a scalar, or a change of `_id`.
 */
export function applyUpdate(doc: Record<string, unknown>, update: Update, collection: string): void {
  const id = doc['_id'];
  for (const op of Object.keys(update)) {
    const operand = (update as Record<string, Record<string, unknown>>)[op]!;
    for (const path of Object.keys(operand)) {
      const value = operand[path];
      switch (op) {
        case '$set': {
          if (value === undefined) break;
          const [node, key] = parentOf(doc, path, true, collection)!;
          node[key] = cloneChecked(value, collection);
          break;
        }
        case '$unset': {
          const found = parentOf(doc, path, false, collection);
          if (found) delete found[0][found[1]];
          break;
        }
        case '$inc': {
          if (typeof value !== 'number') throw new TypeError(`${collection}: $inc on ${path} needs a number`);
          const [node, key] = parentOf(doc, path, true, collection)!;
          const current = node[key] ?? 0;
          if (typeof current !== 'number') throw new TypeError(`${collection}: $inc on ${path}, which is not a number`);
          node[key] = current + value;
          break;
        }
        case '$push': {
          const [node, key] = parentOf(doc, path, true, collection)!;
          arrayAt(node, key, op, path, collection).push(cloneChecked(value, collection));
          break;
        }
        case '$addToSet': {
          const [node, key] = parentOf(doc, path, true, collection)!;
          const array = arrayAt(node, key, op, path, collection);
          if (!array.some((item) => isDeepStrictEqual(item, value))) array.push(cloneChecked(value, collection));
          break;
        }
        default:
          throw new TypeError(`${collection}: unsupported update operator ${op}`);
      }
    }
  }
  if (id !== undefined && doc['_id'] !== id) throw new TypeError(`${collection}: an update must not change _id`);
}
