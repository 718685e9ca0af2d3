/**
 * Compiles the port's filter subset (read-store.port.ts) to SQL over a collection table `(_id TEXT
 * PRIMARY KEY, doc TEXT, "f:<path>"...)`: the JSON document, plus one column per indexed field path
 * holding that field's value (a string, a number, 1/0 for a boolean, or NULL when null or missing),
 * kept by the adapter on every write.
 *
 * A condition is compiled *exactly* (the SQL answers it with MongoDB's meaning) when it is on `_id` or on
 * an indexed field: the SQLite adapter only lets indexed fields hold a string, a number, a boolean or
 * null (no arrays, sub-documents or Dates), so array membership and type-bracketing questions do not
 * arise there, and the index on the field's column serves it. Any other condition compiles to `1` (no
 * restriction) and the adapter checks it on the decoded documents with `sift`, which implements
 * MongoDB's matching. When every condition is exact, sort, skip and limit run in SQL too.
 */
import type { Filter, Sort } from '../read-store.port';
import { isOperatorObject } from '../read-store.support';

/** A field path usable inside SQL text: dot-separated segments of letters, digits, `_` and `-`. */
const SQL_PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** Whether `path` may appear in SQL text (index expressions, exact conditions, sorts). */
export function isSqlPath(path: string): boolean {
  return SQL_PATH.test(path);
}

/** The column that holds an indexed field path (quoted identifier). */
export function fieldColumn(path: string): string {
  return path === '_id' ? '_id' : `"f:${path}"`;
}

/** The SQL expression of a field: its column when indexed (or `_id`), else `json_extract(doc, '$.a.b')`. */
export function fieldExpr(path: string, indexed: ReadonlySet<string>): string {
  return path === '_id' || indexed.has(path) ? fieldColumn(path) : `json_extract(doc, '$.${path}')`;
}

function typeExpr(path: string): string {
  return `json_type(doc, '$.${path}')`;
}

export type SqlParam = string | number | null;

export interface CompiledFilter {
  /** SQL condition (`1` when nothing restricts). */
  where: string;
  params: SqlParam[];
  /** Whether `where` answers the whole filter (else it is a necessary condition only). */
  exact: boolean;
  /** Describes the SQL text (not the values): the key of the prepared statement cache. */
  shape: string;
}

interface Part {
  sql: string;
  exact: boolean;
}

const LOOSE: Part = { sql: '1', exact: false };

type Scalar = string | number | boolean;

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

class Compiler {
  readonly params: SqlParam[] = [];

  constructor(private readonly indexed: ReadonlySet<string>) {}

  filter(filter: Filter): Part {
    const parts: Part[] = [];
    for (const key of Object.keys(filter)) {
      const value = filter[key];
      if (key === '$and' || key === '$or') {
        if (!Array.isArray(value)) throw new TypeError(`${key} needs an array`);
        const mark = this.params.length;
        const clauses = value.map((clause) => this.filter(clause as Filter));
        const part = key === '$and' ? this.and(clauses) : this.or(clauses);
        if (part.sql === '1') this.params.length = mark; // the clauses' SQL is dropped: so are their values
        parts.push(part);
      } else if (key.charCodeAt(0) === 36 /* '$' */) {
        throw new TypeError(`unsupported filter operator ${key}`);
      } else {
        parts.push(this.field(key, value));
      }
    }
    return this.and(parts);
  }

  private and(parts: Part[]): Part {
    const strict = parts.filter((p) => p.sql !== '1');
    const exact = parts.every((p) => p.exact);
    if (strict.length === 0) return { sql: '1', exact };
    return { sql: strict.map((p) => `(${p.sql})`).join(' AND '), exact };
  }

  private or(parts: Part[]): Part {
    if (parts.length === 0) throw new TypeError('$or needs at least one clause');
    // A clause that restricts nothing makes the whole `$or` unrestricted in SQL: exactly so when
    // that clause is exactly true, else only as a necessary condition.
    if (parts.some((p) => p.sql === '1')) return { sql: '1', exact: parts.some((p) => p.sql === '1' && p.exact) };
    return { sql: parts.map((p) => `(${p.sql})`).join(' OR '), exact: parts.every((p) => p.exact) };
  }

  private field(path: string, value: unknown): Part {
    if (typeof value === 'bigint') throw new TypeError(`filter on ${path}: bigint values are not storable`);
    const sqlReady = path === '_id' || (this.indexed.has(path) && isSqlPath(path));
    if (!isOperatorObject(value)) return sqlReady ? this.eq(path, value) : LOOSE;
    const parts: Part[] = [];
    for (const op of Object.keys(value)) {
      const operand = value[op];
      if (typeof operand === 'bigint') throw new TypeError(`filter on ${path}: bigint values are not storable`);
      if (!['$eq', '$ne', '$lt', '$lte', '$gt', '$gte', '$in', '$exists'].includes(op)) {
        throw new TypeError(`unsupported filter operator ${op} on ${path}`);
      }
      if (op === '$exists' && (sqlReady || (!path.includes('.') && isSqlPath(path)))) {
        parts.push({ sql: `${typeExpr(path)} IS ${operand ? 'NOT ' : ''}NULL`, exact: true });
      } else if (!sqlReady) {
        parts.push(LOOSE);
      } else if (op === '$eq') {
        parts.push(this.eq(path, operand));
      } else if (op === '$ne') {
        const eq = this.eq(path, operand);
        parts.push(eq.exact ? { sql: `NOT coalesce(${eq.sql}, 0)`, exact: true } : LOOSE);
      } else if (op === '$in') {
        parts.push(this.in(path, operand));
      } else {
        parts.push(this.range(path, op, operand));
      }
    }
    return this.and(parts);
  }

  private eq(path: string, value: unknown): Part {
    const expr = fieldColumn(path);
    if (value === null) return { sql: `${expr} IS NULL`, exact: true };
    if (!isScalar(value)) return path === '_id' ? { sql: '0', exact: true } : LOOSE;
    if (typeof value === 'boolean') {
      // The column holds 1/0 for true/false: also check the JSON type, so the number 1 does not match.
      this.params.push(value ? 1 : 0);
      return { sql: `${expr} = ? AND ${typeExpr(path)} = '${value ? 'true' : 'false'}'`, exact: true };
    }
    if (path === '_id' && typeof value !== 'string') return { sql: '0', exact: true };
    this.params.push(value);
    if (typeof value === 'number') return { sql: `${expr} = ? AND ${typeExpr(path)} IN ('integer', 'real')`, exact: true };
    return { sql: `${expr} = ?`, exact: true }; // a text column value is never a number or a boolean
  }

  private in(path: string, operand: unknown): Part {
    if (!Array.isArray(operand)) throw new TypeError(`$in on ${path} needs an array`);
    if (operand.length === 0) return { sql: '0', exact: true };
    const values = operand.filter((v) => v !== null);
    if (!values.every((v) => typeof v === 'string')) return LOOSE;
    const parts: string[] = [];
    if (values.length > 0) {
      parts.push(`${fieldColumn(path)} IN (${values.map(() => '?').join(', ')})`);
      this.params.push(...values);
    }
    if (values.length < operand.length) parts.push(`${fieldColumn(path)} IS NULL`);
    return { sql: parts.join(' OR '), exact: true };
  }

  private range(path: string, op: string, operand: unknown): Part {
    const sign = op === '$lt' ? '<' : op === '$lte' ? '<=' : op === '$gt' ? '>' : '>=';
    // MongoDB compares only values of the same type: strings with strings, numbers with numbers.
    const column = fieldColumn(path);
    if (typeof operand === 'string') {
      this.params.push(operand);
      return { sql: `${column} ${sign} ? AND typeof(${column}) = 'text'`, exact: true };
    }
    if (typeof operand === 'number' && Number.isFinite(operand)) {
      this.params.push(operand);
      return { sql: `${column} ${sign} ? AND ${typeExpr(path)} IN ('integer', 'real')`, exact: true };
    }
    return LOOSE;
  }
}

/**
 * Compiles `filter` given the collection's indexed field paths.
 * @throws TypeError on an operator outside the subset, a malformed `$or`/`$and`/`$in`, or a bigint.
 */
export function compileFilter(filter: Filter, indexed: ReadonlySet<string>): CompiledFilter {
  const compiler = new Compiler(indexed);
  const part = compiler.filter(filter);
  return { where: part.sql, params: compiler.params, exact: part.exact, shape: `${part.exact ? 'x' : 'l'}:${part.sql}` };
}

/** `ORDER BY` text for a sort, or undefined when a key cannot be expressed in SQL. */
export function compileSort(sort: Sort | undefined, indexed: ReadonlySet<string>): string | undefined {
  if (!sort) return '';
  const keys = Object.keys(sort);
  if (keys.length === 0) return '';
  if (!keys.every((k) => k === '_id' || isSqlPath(k))) return undefined;
  return ` ORDER BY ${keys.map((k) => `${fieldExpr(k, indexed)} ${sort[k] === -1 ? 'DESC' : 'ASC'}`).join(', ')}`;
}
