import { canonicalContent, versionFingerprint } from './content';
import { encodeMemo } from './memo';
import { isBase58Address, isBase58Signature, isEffectiveAt, isIsoSeconds, isIsoUtc, isVersionLabel, isVersionTitle, isWellFormedText } from './validation';

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

  it('takes a timestamp as a real instant exactly when a Date round trip gives back its calendar and clock fields', () => {
    // The reference: ECMAScript's own calendar (proleptic Gregorian, years 0000 to 9999, no hour 24, no leap second).
    const roundTrips = (v: string) => {
      const ms = Date.parse(v);
      return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 19) === v.slice(0, 19);
    };
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    const stamps: string[] = [];
    for (const year of [0, 1, 4, 100, 1600, 1700, 1900, 1999, 2000, 2023, 2024, 2025, 2100, 2400, 9999]) {
      for (let month = 0; month <= 13; month++) {
        for (const day of [0, 1, 27, 28, 29, 30, 31, 32, 99]) stamps.push(`${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T12:30:45Z`);
      }
    }
    for (const clock of ['00:00:00', '23:59:59', '24:00:00', '23:60:00', '23:59:60', '99:99:99', '19:05:09']) stamps.push(`2026-11-29T${clock}Z`);
    let seed = 42;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 20_000; i++) stamps.push(`${pad(next(10_000), 4)}-${pad(next(14), 2)}-${pad(next(33), 2)}T${pad(next(26), 2)}:${pad(next(62), 2)}:${pad(next(62), 2)}Z`);
    const disagreements = stamps.filter((v) => isIsoSeconds(v) !== roundTrips(v) || isIsoUtc(v.replace('Z', '.5Z')) !== roundTrips(v));
    expect(disagreements).toEqual([]);
    // Both answers occur, so the comparison could fail either way.
    expect(stamps.filter(isIsoSeconds).length).toBeGreaterThan(1000);
    expect(stamps.filter((v) => !isIsoSeconds(v)).length).toBeGreaterThan(1000);
    expect(['2024-02-29T00:00:00Z', '2023-02-29T00:00:00Z', '1900-02-29T00:00:00Z', '2000-02-29T00:00:00Z'].map((v) => isIsoSeconds(v))).toEqual([true, false, false, true]);
  });
});
