import { createHash } from 'node:crypto';
import {
  acceptanceIdOf,
  acceptanceProtocolOf,
  buildAcceptanceMessage,
  parseAcceptanceMessage,
  type AcceptanceMessageFields,
} from './acceptance-message';
import { FieldError, MessageFormatError } from './errors';

const fields: AcceptanceMessageFields = {
  protocol: 'svc/1',
  requestDomain: 'app.example.com',
  chainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  organization: 'GyGKxMyg1p9SsHfm15MkNUu1u9TN2JtTspcdmrtGUdse',
  document: 'EdmxWPmx2WH6WgFfTdu9xfkYf3k1g5wD1zccTVySEEh1',
  versionAddress: '8SFqwqnq4whPhs8icwHA2hQg3hUoN1qrCLK1SBx3WKwe',
  versionNumber: 3,
  contentHash: '1'.repeat(64),
  fingerprint: '2'.repeat(64),
  signer: 'AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9',
  nonce: '0123456789abcdef0123456789abcdef',
  issuedAt: '2026-11-22T10:00:00Z',
  expiresAt: '2026-11-22T10:10:00Z',
};

const expected = [
  'svc/1 acceptance',
  'I accept version 3 of the document below.',
  'domain: app.example.com',
  'chain: solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  'organization: GyGKxMyg1p9SsHfm15MkNUu1u9TN2JtTspcdmrtGUdse',
  'document: EdmxWPmx2WH6WgFfTdu9xfkYf3k1g5wD1zccTVySEEh1',
  'version: 8SFqwqnq4whPhs8icwHA2hQg3hUoN1qrCLK1SBx3WKwe',
  'content-hash: ' + '1'.repeat(64),
  'fingerprint: ' + '2'.repeat(64),
  'signer: AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9',
  'nonce: 0123456789abcdef0123456789abcdef',
  'issued-at: 2026-11-22T10:00:00Z',
  'expires-at: 2026-11-22T10:10:00Z',
].join('\n');

describe('acceptance message svc/1', () => {
  it('has the documented layout', () => {
    expect(buildAcceptanceMessage(fields)).toBe(expected);
  });

  it('round-trips', () => {
    expect(parseAcceptanceMessage(expected)).toEqual(fields);
    expect(parseAcceptanceMessage(buildAcceptanceMessage({ ...fields, requestDomain: 'localhost:3000', versionNumber: 1 }))).toEqual({
      ...fields,
      requestDomain: 'localhost:3000',
      versionNumber: 1,
    });
  });

  it('stays within 700 bytes with the longest allowed values', () => {
    const longest = buildAcceptanceMessage({
      ...fields,
      requestDomain: `${'a'.repeat(58)}:65535`,
      organization: 'JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFG',
      document: 'JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFG',
      versionAddress: 'JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFG',
      signer: 'JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFG',
      versionNumber: 4294967295,
    });
    expect(Buffer.byteLength(longest)).toBeLessThanOrEqual(700);
    expect(parseAcceptanceMessage(longest).versionNumber).toBe(4294967295);
  });

  it('rejects every one-byte change, or parses it to different fields', () => {
    const id = acceptanceIdOf(expected);
    for (let i = 0; i < expected.length; i++) {
      for (const replacement of ['x', '1', ' ', '\n', 'A']) {
        if (expected[i] === replacement) continue;
        const mutated = expected.slice(0, i) + replacement + expected.slice(i + 1);
        expect(acceptanceIdOf(mutated)).not.toBe(id);
        let parsed: AcceptanceMessageFields | null = null;
        try {
          parsed = parseAcceptanceMessage(mutated);
        } catch (error) {
          expect(error).toBeInstanceOf(MessageFormatError);
        }
        if (parsed) expect(parsed).not.toEqual(fields);
      }
    }
  });

  it.each([
    ['a trailing LF', expected + '\n'],
    ['CRLF line endings', expected.replace(/\n/g, '\r\n')],
    ['a missing line', expected.split('\n').slice(0, -1).join('\n')],
    ['an extra line', expected + '\nnote: hi'],
    ['swapped lines', expected.replace('nonce: 0123456789abcdef0123456789abcdef\nissued-at', 'issued-at').replace('expires-at', 'nonce: 0123456789abcdef0123456789abcdef\nexpires-at')],
    ['upper-case hex', expected.replace('1'.repeat(64), 'A'.repeat(64))],
    ['a double space', expected.replace('domain: ', 'domain:  ')],
    ['a leading zero in the number', expected.replace('version 3 ', 'version 03 ')],
    ['milliseconds', expected.replace('10:00:00Z', '10:00:00.000Z')],
    ['an impossible date', expected.replace('2026-11-22T10:00:00Z', '2026-02-30T10:00:00Z')],
    ['an upper-case domain', expected.replace('app.example.com', 'App.example.com')],
    ['a window that ends before it starts', expected.replace('expires-at: 2026-11-22T10:10:00Z', 'expires-at: 2026-11-22T09:00:00Z')],
    ['a bad address', expected.replace('signer: AKnL', 'signer: 0KnL')],
    ['a chain id of the wrong length', expected.replace('solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', 'solana:EtWTRABZ')],
    ['more than 700 bytes', expected + 'x'.repeat(700)],
  ])('rejects %s', (_name, text) => {
    expect(() => parseAcceptanceMessage(text)).toThrow(MessageFormatError);
  });

  it('names the reserved svc/2 header and unknown versions clearly', () => {
    const v2 = expected.replace('svc/1 acceptance', 'svc/2 acceptance');
    expect(() => parseAcceptanceMessage(v2)).toThrow(/svc\/2.*reserved/);
    expect(() => parseAcceptanceMessage(expected.replace('svc/1 acceptance', 'svc/7 acceptance'))).toThrow(/unsupported protocol svc\/7/);
    expect(() => parseAcceptanceMessage('hello')).toThrow(/not an svc acceptance message/);
    expect(acceptanceProtocolOf(v2)).toBe('svc/2');
    expect(acceptanceProtocolOf(expected)).toBe('svc/1');
    expect(acceptanceProtocolOf('hello')).toBeNull();
  });

  it('refuses to build from bad fields', () => {
    expect(() => buildAcceptanceMessage({ ...fields, requestDomain: 'https://app.example.com' })).toThrow(FieldError);
    expect(() => buildAcceptanceMessage({ ...fields, requestDomain: 'a'.repeat(65) })).toThrow(FieldError);
    expect(() => buildAcceptanceMessage({ ...fields, nonce: 'abc' })).toThrow(FieldError);
    expect(() => buildAcceptanceMessage({ ...fields, versionNumber: 2 ** 32 })).toThrow(FieldError);
    expect(() => buildAcceptanceMessage({ ...fields, protocol: 'svc/2' as 'svc/1' })).toThrow(FieldError);
  });
});

describe('acceptanceIdOf', () => {
  it('is SHA-256 of the tag, a NUL byte and the UTF-8 message', () => {
    const expectedId = createHash('sha256').update(Buffer.concat([Buffer.from('svc:v1:acceptance'), Buffer.of(0), Buffer.from(expected)])).digest('hex');
    expect(acceptanceIdOf(expected)).toBe(expectedId);
  });
});
