import fc from 'fast-check';
import { JsonTextError, parseJsonText } from './json-text';

describe('parseJsonText', () => {
  it('gives what JSON.parse gives for JSON without repeated names', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(parseJsonText(text)).toEqual(JSON.parse(text));
      }),
    );
  });

  it('refuses a name repeated in the top object, naming it and where', () => {
    expect(() => parseJsonText('{"documentText":"forged","a":1,"documentText":"genuine"}')).toThrow(
      new JsonTextError('repeats the key "documentText" in $'),
    );
  });

  it('refuses a repeated name inside nested objects and arrays', () => {
    expect(() => parseJsonText('{"batch":{"proof":[{"x":1},{"y":2,"y":3}]}}')).toThrow('repeats the key "y" in $.batch.proof[1]');
    expect(() => parseJsonText('{"a b":{"k":1,"k":1}}')).toThrow('repeats the key "k" in $["a b"]');
  });

  it('compares names after unescaping', () => {
    expect(() => parseJsonText('{"a":1,"\\u0061":2}')).toThrow('repeats the key "a" in $');
    expect(() => parseJsonText('{"__proto__":1,"__proto__":2}')).toThrow('repeats the key "__proto__" in $');
  });

  it('allows the same name in sibling objects and at different depths', () => {
    expect(parseJsonText('{"a":{"a":1},"b":[{"a":2},{"a":3}]}')).toEqual({ a: { a: 1 }, b: [{ a: 2 }, { a: 3 }] });
  });

  it('refuses text that is not strict JSON', () => {
    for (const text of ['', '{"a":1,}', '{"a":1} // note', "{'a':1}", '{"a":1}{']) {
      expect(() => parseJsonText(text)).toThrow(/^is not valid JSON/);
    }
  });
});
