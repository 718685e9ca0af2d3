import { canonicalContent, versionFingerprint } from './content';
import { encodeMemo } from './memo';
import { isBase58Address, isBase58Signature, isEffectiveAt, isVersionLabel, isVersionTitle, isWellFormedText } from './validation';

const ORG = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const DOC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const HASH = 'a'.repeat(64);

/** Whether the builders of a version (fingerprint and `ver` memo) accept these fields. */
function buildersAccept(fields: { label: unknown; title: unknown; effectiveAt: unknown }): boolean {
  const version = { document: DOC, number: 1, label: fields.label as string, title: fields.title as string, contentHash: HASH, effectiveAt: fields.effectiveAt as number | null };
  try {
    const fingerprint = versionFingerprint({ organization: ORG, ...version });
    encodeMemo({ kind: 'ver', ...version, fingerprint });
    return true;
  } catch {
    return false;
  }
}

const TEXTS: unknown[] = [
  'Terms',
  '',
  'a'.repeat(16),
  'a'.repeat(17),
  'a'.repeat(200),
  'a'.repeat(201),
  '😀'.repeat(16),
  '😀'.repeat(17),
  '😀'.repeat(200),
  '😀'.repeat(201),
  'line\nbreak',
  'carriage\rreturn',
  'tab\there',
  'nul\u0000',
  'del\u007f',
  'nel\u0085',
  'c1 end\u009f',
  'nbsp\u00a0ok',
  'line separator\u2028',
  'lone \ud800',
  'lone \udc00',
  'pair \ud83d\ude00',
  'reversed \ude00\ud83d',
  null,
  42,
];

describe('field rules shared by the HTTP edge and the protocol builders', () => {
  it.each(TEXTS.map((t) => [JSON.stringify(t), t]))('a title %s passes isVersionTitle exactly when the builders accept it', (_name, title) => {
    expect(isVersionTitle(title)).toBe(buildersAccept({ label: 'v1', title, effectiveAt: null }));
  });

  it.each(TEXTS.map((t) => [JSON.stringify(t), t]))('a label %s passes isVersionLabel exactly when the builders accept it', (_name, label) => {
    expect(isVersionLabel(label)).toBe(buildersAccept({ label, title: 'Terms', effectiveAt: null }));
  });

  it.each([[null], [1], [1_700_000_000], [Number.MAX_SAFE_INTEGER], [2 ** 53], [0], [-1], [1.5], [Infinity], [NaN], ['1'], [undefined]])(
    'effectiveAt %p passes isEffectiveAt exactly when the builders accept it',
    (effectiveAt) => {
      expect(isEffectiveAt(effectiveAt)).toBe(buildersAccept({ label: 'v1', title: 'Terms', effectiveAt }));
    },
  );

  it.each([['# Terms\n'], [''], ['pair \ud83d\ude00'], ['lone \ud800'], ['lone at end \ud83d'], ['\udc00 lone at start']])(
    'source %p passes isWellFormedText exactly when it has canonical content',
    (source) => {
      let canonical = true;
      try {
        canonicalContent(source);
      } catch {
        canonical = false;
      }
      expect(isWellFormedText(source)).toBe(canonical);
    },
  );

  it('accepts addresses and signatures only when the base58 text decodes to 32 and 64 bytes', () => {
    expect(isBase58Address(ORG)).toBe(true);
    expect(isBase58Address('1'.repeat(32))).toBe(true); // 32 zero bytes
    expect(isBase58Address('2'.repeat(32))).toBe(false); // right shape, too few bytes
    expect(isBase58Address('z'.repeat(44))).toBe(false); // right shape, 33 bytes
    expect(isBase58Signature('2'.repeat(64))).toBe(false);
    expect(isBase58Signature('z'.repeat(90))).toBe(false);
    expect(isBase58Signature('1'.repeat(64))).toBe(true);
  });
});
