import { FieldError, MemoFormatError } from './errors';
import { encodeMemo, parseMemo, type MemoRecord } from './memo';

const ORG = 'GyGKxMyg1p9SsHfm15MkNUu1u9TN2JtTspcdmrtGUdse';
const DOC = 'EdmxWPmx2WH6WgFfTdu9xfkYf3k1g5wD1zccTVySEEh1';
const VER = '8SFqwqnq4whPhs8icwHA2hQg3hUoN1qrCLK1SBx3WKwe';
const H1 = '1'.repeat(64);
const H2 = '2'.repeat(64);

const records: Array<[MemoRecord, string]> = [
  [{ kind: 'org', name: 'Acme Ltd', domain: 'acme.example' }, 'svc/1 org {"domain":"acme.example","name":"Acme Ltd"}'],
  [{ kind: 'org', name: 'Ünïcödé – Société', domain: null }, 'svc/1 org {"domain":null,"name":"Ünïcödé – Société"}'],
  [{ kind: 'doc', organization: ORG, slug: 'terms-of-service', title: 'Terms "of" Service' }, `svc/1 doc {"organization":"${ORG}","slug":"terms-of-service","title":"Terms \\"of\\" Service"}`],
  [
    { kind: 'ver', document: DOC, number: 12, label: '2026-01', title: 'Terms', contentHash: H1, fingerprint: H2, effectiveAt: 1790000000 },
    `svc/1 ver {"contentHash":"${H1}","document":"${DOC}","effectiveAt":1790000000,"fingerprint":"${H2}","label":"2026-01","number":12,"title":"Terms"}`,
  ],
  [{ kind: 'accept', acceptanceId: H1, versionAddress: VER }, `svc/1 accept ${H1} ${VER}`],
  [
    { kind: 'member', organization: ORG, member: DOC, roles: ['admin', 'publisher'], active: true },
    `svc/1 member {"active":true,"member":"${DOC}","organization":"${ORG}","roles":["admin","publisher"]}`,
  ],
  [{ kind: 'member', organization: ORG, member: DOC, roles: [], active: false }, `svc/1 member {"active":false,"member":"${DOC}","organization":"${ORG}","roles":[]}`],
  [{ kind: 'shard', organization: ORG, operator: VER }, `svc/1 shard {"operator":"${VER}","organization":"${ORG}"}`],
  [{ kind: 'audit', organization: ORG, sequence: 42, head: H1 }, `svc/1 audit {"head":"${H1}","organization":"${ORG}","sequence":42}`],
  [{ kind: 'batch', lane: 3, sequence: 12, size: 1024, root: H1 }, `svc/1 batch {"lane":3,"root":"${H1}","sequence":12,"size":1024}`],
];

describe('memo records', () => {
  it.each(records)('encodes and parses %j', (record, text) => {
    expect(encodeMemo(record)).toBe(text);
    expect(parseMemo(text)).toEqual(record);
  });

  it('returns null for memos that are not svc/1 records', () => {
    for (const text of ['', 'hello', 'svc/10 org {}', 'svc/2 accept x y', 'SVC/1 org {}', 'svc/1x', 'svc/1 future-kind {"root":"00"}']) {
      expect(parseMemo(text)).toBeNull();
    }
  });

  it.each([
    ['no kind', 'svc/1'],
    ['an empty kind', 'svc/1 '],
    ['a kind without body', 'svc/1 org'],
    ['keys out of canonical order', 'svc/1 org {"name":"Acme Ltd","domain":null}'],
    ['whitespace in the JSON', 'svc/1 org {"domain": null,"name":"Acme Ltd"}'],
    ['an extra key', 'svc/1 org {"domain":null,"kind":"org","name":"Acme Ltd"}'],
    ['a missing key', 'svc/1 org {"name":"Acme Ltd"}'],
    ['a duplicated key', 'svc/1 org {"domain":null,"name":"A","name":"Acme Ltd"}'],
    ['not JSON', 'svc/1 org {domain:null}'],
    ['a JSON array', 'svc/1 org []'],
    ['a bad slug', `svc/1 doc {"organization":"${ORG}","slug":"Terms","title":"T"}`],
    ['a slug with a double hyphen', `svc/1 doc {"organization":"${ORG}","slug":"a--b","title":"T"}`],
    ['a slug over 32 characters', `svc/1 doc {"organization":"${ORG}","slug":"${'a'.repeat(33)}","title":"T"}`],
    ['an over-long title', `svc/1 doc {"organization":"${ORG}","slug":"t","title":"${'x'.repeat(201)}"}`],
    ['version number 0', `svc/1 ver {"contentHash":"${H1}","document":"${DOC}","effectiveAt":null,"fingerprint":"${H2}","label":"v","number":0,"title":"T"}`],
    ['a fractional number', `svc/1 ver {"contentHash":"${H1}","document":"${DOC}","effectiveAt":null,"fingerprint":"${H2}","label":"v","number":1.5,"title":"T"}`],
    ['a number written as 1.0', `svc/1 ver {"contentHash":"${H1}","document":"${DOC}","effectiveAt":null,"fingerprint":"${H2}","label":"v","number":1.0,"title":"T"}`],
    ['a long label', `svc/1 ver {"contentHash":"${H1}","document":"${DOC}","effectiveAt":null,"fingerprint":"${H2}","label":"${'v'.repeat(17)}","number":1,"title":"T"}`],
    ['an upper-case hash', `svc/1 accept ${'A'.repeat(64)} ${VER}`],
    ['two spaces', `svc/1 accept ${H1}  ${VER}`],
    ['a missing address', `svc/1 accept ${H1}`],
    ['a trailing space', `svc/1 accept ${H1} ${VER} `],
    ['a bad address', `svc/1 accept ${H1} 0${VER.slice(1)}`],
    ['an over-long name', `svc/1 org {"domain":null,"name":"${'n'.repeat(81)}"}`],
    ['a bad domain', 'svc/1 org {"domain":"Acme.example","name":"A"}'],
    ['member roles out of order', `svc/1 member {"active":true,"member":"${DOC}","organization":"${ORG}","roles":["publisher","admin"]}`],
    ['a repeated member role', `svc/1 member {"active":true,"member":"${DOC}","organization":"${ORG}","roles":["admin","admin"]}`],
    ['an unknown member role', `svc/1 member {"active":true,"member":"${DOC}","organization":"${ORG}","roles":["owner"]}`],
    ['a batch of 1,025 leaves', `svc/1 batch {"lane":0,"root":"${H1}","sequence":1,"size":1025}`],
    ['an empty batch', `svc/1 batch {"lane":0,"root":"${H1}","sequence":1,"size":0}`],
    ['batch lane 256', `svc/1 batch {"lane":256,"root":"${H1}","sequence":1,"size":2}`],
    ['batch sequence 0', `svc/1 batch {"lane":0,"root":"${H1}","sequence":0,"size":2}`],
    ['roles on a revoked member', `svc/1 member {"active":false,"member":"${DOC}","organization":"${ORG}","roles":["admin"]}`],
    ['active not a boolean', `svc/1 member {"active":1,"member":"${DOC}","organization":"${ORG}","roles":[]}`],
    ['a member without roles key', `svc/1 member {"active":true,"member":"${DOC}","organization":"${ORG}"}`],
    ['a bad member address', `svc/1 member {"active":true,"member":"nope","organization":"${ORG}","roles":[]}`],
    ['a shard without operator', `svc/1 shard {"organization":"${ORG}"}`],
    ['a shard operated by its organization', `svc/1 shard {"operator":"${ORG}","organization":"${ORG}"}`],
    ['an audit anchor of sequence 0', `svc/1 audit {"head":"${H1}","organization":"${ORG}","sequence":0}`],
    ['an audit anchor with a fractional sequence', `svc/1 audit {"head":"${H1}","organization":"${ORG}","sequence":1.5}`],
    ['an audit anchor with an upper-case head', `svc/1 audit {"head":"AB${H1.slice(2)}","organization":"${ORG}","sequence":1}`],
    ['an audit anchor without head', `svc/1 audit {"organization":"${ORG}","sequence":1}`],
  ])('throws for an svc/1 memo with %s', (_name, text) => {
    expect(() => parseMemo(text)).toThrow(MemoFormatError);
  });

  it('refuses to encode invalid records', () => {
    expect(() => encodeMemo({ kind: 'org', name: '', domain: null })).toThrow(FieldError);
    expect(() => encodeMemo({ kind: 'doc', organization: ORG, slug: '-x', title: 'T' })).toThrow(FieldError);
    expect(() => encodeMemo({ kind: 'accept', acceptanceId: 'zz', versionAddress: VER })).toThrow(FieldError);
    expect(() => encodeMemo({ kind: 'nope' } as unknown as MemoRecord)).toThrow(FieldError);
  });
});
