import fc from 'fast-check';
import bs58 from 'bs58';

/**
 * Generators of hostile requests from the served OpenAPI document: for every declared path parameter,
 * header and request-body property, a mix of plausible values (so that requests get past the first check)
 * and malformed ones (wrong types, boundary lengths, base58 of the wrong byte length, control characters,
 * unpaired surrogates, deep nesting, unknown keys), and whole bodies of the wrong kind or content type.
 */

/** The subset of OpenAPI 3 used here. */
export interface Schema {
  type?: string;
  $ref?: string;
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  nullable?: boolean;
}
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  schema?: Schema;
}
export interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: unknown[];
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

/** One route of the document. */
export interface Route {
  method: string;
  path: string;
  operation: Operation;
  /** The request body's object schema, `$ref`s resolved; undefined when the route takes no body. */
  body?: Schema;
}

/** One generated request. */
export interface FuzzRequest {
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** null: no content-type header. */
  contentType?: string | null;
  /** What makes the request unacceptable for sure (an unknown key, a non-JSON content type), if anything. */
  mustFail?: string;
  withSession: boolean;
}

/** Real values of the running service (ids, addresses) that let requests reach deeper than format checks. */
export interface Pools {
  addresses: string[];
  byName: Record<string, string[]>;
}

const ABSENT = Symbol('absent');
const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** Every route of the document, with request bodies resolved. */
export function routesOf(doc: OpenApiDocument): Route[] {
  const resolve = (schema: Schema | undefined): Schema | undefined => {
    if (!schema) return undefined;
    if (schema.$ref) return resolve(doc.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')]);
    if (schema.allOf?.length === 1) return resolve(schema.allOf[0]);
    if (!schema.properties) return schema;
    const properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, resolve(v) ?? {}]));
    return { ...schema, properties };
  };
  const routes: Route[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    // A path with a server of its own is outside /api (the receipt pages, which answer HTML): not an API route.
    if ('servers' in operations) continue;
    for (const [method, operation] of Object.entries(operations)) {
      if (!HTTP_METHODS.has(method)) continue;
      routes.push({ method: method.toUpperCase(), path, operation, body: resolve(operation.requestBody?.content?.['application/json']?.schema) });
    }
  }
  return routes;
}

const INVALID_BASE58 = ['2'.repeat(32), 'z'.repeat(44), '2'.repeat(64), 'z'.repeat(90), '0'.repeat(44), 'O'.repeat(32), 'Il'.repeat(22)];
const HOSTILE_STRINGS = ['', ' ', 'a\nb', '\r\n', 'tab\there', '\u0000', '\u007f', '\u0085', '\u2028', '\ud800', 'x\udfff', '\ud83d', '😀', '<script>alert(1)</script>', '../../etc/passwd', '__proto__', 'constructor', '{}', 'null', '-1', '1e309'];
const WRONG_TYPES: unknown[] = [null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 53), 1e308, [], ['x'], {}, { a: 1 }];

/** Nested arrays, `depth` levels. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

/** Base58 of `bytes` random bytes (a well-formed address for 32, signature for 64). */
const base58Of = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => bs58.encode(b));

/** A plausible value for a property: what a correct client would send. */
function plausible(schema: Schema, pools: Pools, depth: number): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.properties) return objectOf(schema, pools, depth + 1, false);
  if (schema.type === 'integer' || schema.type === 'number') {
    return fc.integer({ min: Math.max(schema.minimum ?? -1e9, -(2 ** 31)), max: Math.min(schema.maximum ?? 1e9, 2 ** 40) });
  }
  if (schema.type === 'boolean') return fc.boolean();
  if (schema.pattern?.includes('{32,44}')) return fc.oneof(fc.constantFrom(...pools.addresses), base58Of(32));
  if (schema.pattern?.includes('{64,90}')) return base58Of(64);
  if (schema.pattern === '^[A-Za-z0-9_-]+$') return fc.base64String({ minLength: 4, maxLength: 64 }).map((s) => s.replace(/\+/g, '-').replace(/\//g, '_').replace(/=/g, '') || 'A');
  const min = schema.minLength ?? 0;
  return fc.string({ minLength: min, maxLength: Math.max(min, Math.min(schema.maxLength ?? 40, 40)) });
}

/** A malformed value for a property: wrong type, boundary length, bad base58, hostile text, deep nesting. */
function malformed(schema: Schema): fc.Arbitrary<unknown> {
  const boundaries: unknown[] = [];
  if (schema.maxLength !== undefined) {
    boundaries.push('a'.repeat(schema.maxLength + 1), '😀'.repeat(Math.ceil((schema.maxLength + 1) / 2)));
    if (schema.maxLength <= 100_000) boundaries.push('a'.repeat(schema.maxLength));
  }
  if (schema.minLength) boundaries.push('a'.repeat(schema.minLength - 1));
  if (schema.maximum !== undefined) boundaries.push(schema.maximum, schema.maximum + 1, schema.maximum * 2);
  if (schema.minimum !== undefined) boundaries.push(schema.minimum, schema.minimum - 1);
  return fc.oneof(
    fc.constantFrom(...WRONG_TYPES),
    fc.constantFrom(...INVALID_BASE58, ...HOSTILE_STRINGS),
    ...(boundaries.length > 0 ? [fc.constantFrom(...boundaries)] : []),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.integer({ min: 2, max: 30 }).map(nested),
    fc.constant(nested(40)),
  );
}

/** An object for `schema`: each property plausible, malformed or absent; optionally an unknown key. */
function objectOf(schema: Schema, pools: Pools, depth: number, allowMalformed = true): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(schema.properties ?? {}).map(([name, property]) =>
    (allowMalformed && depth < 3
      ? fc.oneof(
          { weight: 5, arbitrary: plausible(property, pools, depth) },
          { weight: 3, arbitrary: malformed(property) },
          { weight: 1, arbitrary: fc.constant<unknown>(ABSENT) },
        )
      : plausible(property, pools, depth)
    ).map((value) => [name, value] as const),
  );
  return fc.tuple(...entries).map((pairs) => Object.fromEntries(pairs.filter(([, v]) => v !== ABSENT)));
}

const UNKNOWN_KEYS = ['extra', 'isAdmin', '__proto__', 'constructor', 'organizationId', ''];
const WRONG_CONTENT_TYPES = ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=latin1', null];
const NOT_OBJECTS = ['[]', '"text"', '1', 'null', 'true', '[{}]', '{', '{"a":}', '{"a":1,}', 'NaN', "{'a':1}", '\u0000'];

/** A whole request body for a route (JSON object in most runs; otherwise the wrong kind, encoding or content type). */
function bodyOf(schema: Schema, pools: Pools): fc.Arbitrary<Pick<FuzzRequest, 'body' | 'contentType' | 'mustFail'>> {
  const object = objectOf(schema, pools, 0);
  return fc.oneof(
    { weight: 2, arbitrary: objectOf(schema, pools, 0, false).map((o) => ({ body: JSON.stringify(o) })) },
    { weight: 8, arbitrary: object.map((o) => ({ body: JSON.stringify(o) })) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(objectOf(schema, pools, 0, false), fc.constantFrom(...UNKNOWN_KEYS), fc.constantFrom<unknown>(1, 'x', null, {}))
        .map(([o, key, value]) => ({ body: `${JSON.stringify(o).slice(0, -1)}${Object.keys(o).length ? ',' : ''}${JSON.stringify(key)}:${JSON.stringify(value)}}`, mustFail: `unknown key ${JSON.stringify(key)}` })),
    },
    { weight: 1, arbitrary: fc.constantFrom(...NOT_OBJECTS).map((body) => ({ body, mustFail: 'a body that is not a JSON object' })) },
    { weight: 1, arbitrary: fc.integer({ min: 33, max: 100_000 }).map((d) => ({ body: `${'['.repeat(d)}${']'.repeat(d)}`, mustFail: `nesting ${d} deep` })) },
    { weight: 1, arbitrary: fc.constant({ body: '' }) },
    {
      weight: 2,
      arbitrary: fc.tuple(object, fc.constantFrom(...WRONG_CONTENT_TYPES)).map(([o, contentType]) => ({
        body: contentType?.startsWith('application/x-www') ? new URLSearchParams(Object.entries(o).map(([k, v]): [string, string] => [k, String(v)])).toString() || 'a=b' : JSON.stringify(o),
        contentType,
        mustFail: `content type ${contentType}`,
      })),
    },
  );
}

/** Percent-encodes a path segment; text that is not well-formed UTF-16 becomes an invalid UTF-8 escape. */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

/** A path parameter: a real value of the service, a hostile or over-long one, or a broken escape. */
function paramOf(name: string, pools: Pools): fc.Arbitrary<string> {
  const real = pools.byName[name] ?? [];
  return fc.oneof(
    { weight: 4, arbitrary: real.length > 0 ? fc.constantFrom(...real).map(encodeSegment) : fc.uuid() },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 3, arbitrary: fc.constantFrom(...INVALID_BASE58, ...HOSTILE_STRINGS.filter((s) => s !== '')).map(encodeSegment) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map(encodeSegment) },
    { weight: 1, arbitrary: fc.integer({ min: 190, max: 20_000 }).map((n) => 'a'.repeat(n)) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '..', '.') },
  );
}

/** A header value: printable ASCII (what an HTTP client can send), plausible or not. */
const headerOf = (name: string): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(name === 'origin' ? 'https://shop.example.com' : 'a'.repeat(32), 'null', '', 'not a url', 'http://[::1', 'a'.repeat(5000)),
    fc.string({ unit: 'binary-ascii', maxLength: 60 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
  );

/** Requests for one route. */
export function requestsFor(route: Route, pools: Pools): fc.Arbitrary<FuzzRequest> {
  const params = (route.operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => paramOf(p.name, pools).map((v) => [p.name, v] as const));
  const headers = (route.operation.parameters ?? []).filter((p) => p.in === 'header').map((p) => headerOf(p.name).map((v) => [p.name, v] as const));
  const body: fc.Arbitrary<Pick<FuzzRequest, 'body' | 'contentType' | 'mustFail'>> = route.body ? bodyOf(route.body, pools) : fc.constant({});
  const session = fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) });
  return fc.tuple(fc.tuple(...params), fc.tuple(...headers), body, session).map(([ps, hs, b, withSession]) => {
    let path = route.path;
    for (const [name, value] of ps) path = path.replace(`{${name}}`, value);
    const headerValues: Record<string, string> = {};
    for (const [name, value] of hs) if (value !== undefined) headerValues[name] = value;
    return { path, headers: headerValues, ...b, withSession };
  });
}
