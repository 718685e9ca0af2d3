import { createHash } from 'node:crypto';
import { canonicalContent, contentHash, versionFingerprint, type VersionFingerprintInput } from './content';
import { ContentError, FieldError } from './errors';

const text = (bytes: Buffer) => bytes.toString('utf8');

describe('canonicalContent', () => {
  it('strips a leading BOM, normalizes to NFC, unifies line endings and trailing blanks', () => {
    const input = '\uFEFFCafe\u0301 \t\r\nline two\t\rline three  \n\n\n';
    expect(text(canonicalContent(input))).toBe('Caf\u00e9\nline two\nline three\n');
  });

  it('ends with exactly one LF', () => {
    expect(text(canonicalContent('a'))).toBe('a\n');
    expect(text(canonicalContent('a\n'))).toBe('a\n');
    expect(text(canonicalContent('a\r\n\r\n  \n'))).toBe('a\n');
    expect(text(canonicalContent(''))).toBe('\n');
  });

  it('keeps leading whitespace, inner blank lines and non-ASCII spaces', () => {
    expect(text(canonicalContent('  indented\n\n\nafter\u00a0'))).toBe('  indented\n\n\nafter\u00a0\n');
  });

  it('strips every BOM at the start, and only there', () => {
    expect(text(canonicalContent('\uFEFF\uFEFFx'))).toBe('x\n');
    expect(text(canonicalContent('x\uFEFF'))).toBe('x\uFEFF\n');
    expect(text(canonicalContent('\uFEFF\uFEFF'))).toBe('\n');
  });

  it('ends lines at LF only: blanks before U+2028 and U+2029 are kept', () => {
    expect(text(canonicalContent('a \u2028b\t\u2029c \n'))).toBe('a \u2028b\t\u2029c\n');
  });

  it('is idempotent', () => {
    for (const input of ['\uFEFFA\u030a \r\nb\t\n\n', '\uFEFF\uFEFF\uFEFFx', 'a \u2028 \n\u2029\t', '\r\r\n \t']) {
      const once = canonicalContent(input);
      expect(canonicalContent(text(once)).equals(once)).toBe(true);
    }
  });

  it('encodes UTF-8', () => {
    expect(canonicalContent('é€😀').toString('hex')).toBe('c3a9e282acf09f98800a');
  });

  it('rejects unpaired surrogates', () => {
    expect(() => canonicalContent('a\ud800b')).toThrow(ContentError);
  });
});

describe('contentHash', () => {
  it('is lower-case hex SHA-256 of the bytes', () => {
    expect(contentHash(Buffer.alloc(0))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(contentHash(canonicalContent('abc'))).toBe(createHash('sha256').update('abc\n').digest('hex'));
  });
});

describe('versionFingerprint', () => {
  const base: VersionFingerprintInput = {
    organization: 'GyGKxMyg1p9SsHfm15MkNUu1u9TN2JtTspcdmrtGUdse',
    document: 'EdmxWPmx2WH6WgFfTdu9xfkYf3k1g5wD1zccTVySEEh1',
    number: 1,
    label: 'v1',
    title: 'Terms of Service',
    contentHash: 'a'.repeat(64),
    effectiveAt: null,
  };

  it('hashes the tag, a NUL and the RFC 8785 JSON of the fields', () => {
    const json =
      '{"contentHash":"' + 'a'.repeat(64) + '","document":"EdmxWPmx2WH6WgFfTdu9xfkYf3k1g5wD1zccTVySEEh1","effectiveAt":null,' +
      '"label":"v1","number":1,"organization":"GyGKxMyg1p9SsHfm15MkNUu1u9TN2JtTspcdmrtGUdse","title":"Terms of Service"}';
    const expected = createHash('sha256').update('svc:v1:fingerprint\u0000' + json).digest('hex');
    expect(versionFingerprint(base)).toBe(expected);
  });

  it('does not depend on key order and ignores extra properties', () => {
    const reordered = { effectiveAt: null, title: base.title, label: base.label, number: 1, contentHash: base.contentHash, document: base.document, organization: base.organization };
    expect(versionFingerprint(reordered)).toBe(versionFingerprint(base));
    expect(versionFingerprint({ ...base, extra: 1 } as VersionFingerprintInput)).toBe(versionFingerprint(base));
  });

  it('changes with every field', () => {
    const fp = versionFingerprint(base);
    const variants: Partial<VersionFingerprintInput>[] = [
      { organization: base.document },
      { document: base.organization },
      { number: 2 },
      { label: 'v2' },
      { title: 'Terms of service' },
      { contentHash: 'b'.repeat(64) },
      { effectiveAt: 1790000000 },
    ];
    const all = variants.map((v) => versionFingerprint({ ...base, ...v }));
    expect(new Set([fp, ...all]).size).toBe(variants.length + 1);
  });

  it('rejects malformed fields', () => {
    for (const bad of [
      { organization: 'not-an-address' },
      { number: 0 },
      { number: 1.5 },
      { label: '' },
      { label: 'x'.repeat(17) },
      { title: 'a\nb' },
      { contentHash: 'A'.repeat(64) },
      { effectiveAt: 0 },
      { effectiveAt: 1.5 },
    ] as Partial<VersionFingerprintInput>[]) {
      expect(() => versionFingerprint({ ...base, ...bad })).toThrow(FieldError);
    }
  });
});

describe('canonicalContent, against its reference definition', () => {
  /** The rules of docs/protocol.md §2, written as plainly as possible: lines split at LF. */
  function reference(input: string): Buffer {
    if (/\p{Cs}/u.test(input)) throw new ContentError('document text contains an unpaired UTF-16 surrogate');
    let t = input.replace(/^\uFEFF+/, '');
    t = t.normalize('NFC');
    t = t.replace(/\r\n?/g, '\n');
    t = t
      .split('\n')
      .map((line) => line.replace(/[ \t]+$/, ''))
      .join('\n');
    t = t.replace(/\n+$/, '') + '\n';
    return Buffer.from(t, 'utf8');
  }
  const outcome = (f: (s: string) => Buffer, s: string) => {
    try {
      return f(s).toString('hex');
    } catch (error) {
      return `${(error as Error).constructor.name}: ${(error as Error).message}`;
    }
  };

  it('gives the same bytes or the same error on random texts', () => {
    const pieces = [' ', '  ', '\t', '\n', '\r', '\r\n', 'a', 'é', 'e\u0301', 'A\u030a', '\u2028', '\u2029', '\uFEFF', '\u00a0', '\u000b', '\f', '\u0085', '😀', '\ud83d', '\ude00', 'x y'];
    let x = 42;
    const random = () => {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      return x >>> 4;
    };
    for (let n = 0; n < 20000; n++) {
      let s = '';
      const length = random() % 16;
      for (let i = 0; i < length; i++) s += pieces[random() % pieces.length];
      expect({ s, out: outcome(canonicalContent, s) }).toEqual({ s, out: outcome(reference, s) });
      // Idempotent on everything it accepts (docs/protocol.md §2).
      const once = outcome(canonicalContent, s);
      if (!once.includes(':')) expect(canonicalContent(Buffer.from(once, 'hex').toString('utf8')).toString('hex')).toBe(once);
    }
  });
});
