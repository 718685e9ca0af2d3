import { bigintsToNumbers, stringifyJson } from './json';

describe('RPC JSON helpers', () => {
  test('bigints become exact JSON numbers; strings are untouched', () => {
    const text = stringifyJson({ a: 18446744073709551615n, b: 'x\u0000y', c: [1n, -2n], d: 3, e: null });
    expect(text).toBe('{"a":18446744073709551615,"b":"x\\u0000y","c":[1,-2],"d":3,"e":null}');
    expect(stringifyJson({ plain: 1 })).toBe('{"plain":1}');
  });

  test('bigintsToNumbers normalises kit error JSON', () => {
    expect(bigintsToNumbers({ InstructionError: [0n, { Custom: 2n }] })).toEqual({ InstructionError: [0, { Custom: 2 }] });
    expect(bigintsToNumbers(2n ** 64n)).toBe(2n ** 64n);
    expect(bigintsToNumbers('BlockhashNotFound')).toBe('BlockhashNotFound');
  });
});
