import { isJsonMediaType, jsonNestsDeeperThan } from './body';
import { clientErrorStatus } from './client-errors';

/** Depth of a parsed JSON value (arrays and objects count one level each). */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value !== null && typeof value === 'object') return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

describe('JSON nesting pre-scan', () => {
  it.each([
    ['{}'],
    ['[]'],
    ['"["'],
    ['{"a":"[[[[{{{{"}'],
    ['{"a":"\\"[[[["}'],
    ['{"a\\\\":[[1]]}'],
    ['[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]'],
    ['[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]'],
    ['{"a":{"b":[{"c":[1,{"d":null}]}]},"e":"}}}]]]"}'],
    ['17'],
  ])('agrees with the depth of the parsed value for %s', (text) => {
    const depth = depthOf(JSON.parse(text));
    expect(jsonNestsDeeperThan(text, 32)).toBe(depth > 32);
    expect(jsonNestsDeeperThan(text, depth)).toBe(false);
    if (depth > 0) expect(jsonNestsDeeperThan(text, depth - 1)).toBe(true);
  });

  it('scans megabytes in linear time', () => {
    const text = `${'['.repeat(4_000_000)}${']'.repeat(4_000_000)}`;
    const started = Date.now();
    expect(jsonNestsDeeperThan(text, 32)).toBe(true);
    expect(jsonNestsDeeperThan(JSON.stringify({ s: 'x'.repeat(8_000_000) }), 32)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('JSON media type', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['Application/JSON;Charset="UTF-8"', true],
    ['application/json; charset=utf8', true],
    ['application/json; boundary=x', true],
    ['application/json; charset=iso-8859-1', false],
    ['application/jsonx', false],
    ['application/vnd.api+json', false],
    ['application/x-www-form-urlencoded', false],
    ['text/plain', false],
    ['', false],
    [undefined, false],
  ])('%p is JSON in UTF-8: %p', (header, expected) => {
    expect(isJsonMediaType(header)).toBe(expected);
  });
});

describe('client errors of the HTTP parser', () => {
  it('maps header overflow to 431, timeouts to 408 and the rest to 400', () => {
    expect(clientErrorStatus('HPE_HEADER_OVERFLOW').status).toBe(431);
    expect(clientErrorStatus('ERR_HTTP_REQUEST_TIMEOUT').status).toBe(408);
    expect(clientErrorStatus('HPE_INVALID_METHOD').status).toBe(400);
    expect(clientErrorStatus(undefined).status).toBe(400);
  });
});
