import { FieldError, SignInMessageFormatError } from './errors';
import { buildSignInMessage, parseSignInMessage, type SignInMessageFields } from './sign-in-message';

const fields: SignInMessageFields = {
  domain: 'app.example.com',
  address: 'AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9',
  statement: 'Sign in to the agreement evidence dashboard.',
  uri: 'https://app.example.com',
  version: '1',
  chainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  nonce: '0123456789abcdef0123456789abcdef',
  issuedAt: '2026-11-22T10:00:00Z',
  expirationTime: '2026-11-22T10:10:00Z',
};
const text = `app.example.com wants you to sign in with your Solana account:
AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9

Sign in to the agreement evidence dashboard.

URI: https://app.example.com
Version: 1
Chain ID: solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1
Nonce: 0123456789abcdef0123456789abcdef
Issued At: 2026-11-22T10:00:00Z
Expiration Time: 2026-11-22T10:10:00Z`;

describe('sign-in message', () => {
  it('has the Sign-In-With-Solana layout and round-trips', () => {
    expect(buildSignInMessage(fields)).toBe(text);
    expect(parseSignInMessage(text)).toEqual(fields);
  });

  it('accepts a port and fractional seconds', () => {
    const f = { ...fields, domain: 'localhost:3000', uri: 'http://localhost:3000/', issuedAt: '2026-11-22T10:00:00.123Z' };
    expect(parseSignInMessage(buildSignInMessage(f))).toEqual(f);
  });

  it.each([
    ['a trailing LF', text + '\n'],
    ['CRLF', text.replace(/\n/g, '\r\n')],
    ['another header', text.replace('wants you to sign in', 'wants you to log in')],
    ['a missing blank line', text.replace('\n\nURI', '\nURI')],
    ['version 2', text.replace('Version: 1', 'Version: 2')],
    ['a short nonce', text.replace('Nonce: 0123456789abcdef0123456789abcdef', 'Nonce: 0123')],
    ['an upper-case domain', text.replace('app.example.com wants', 'APP.example.com wants')],
    ['a bad address', text.replace('AKnL4NNf', '0KnL4NNf')],
    ['a relative URI', text.replace('URI: https://app.example.com', 'URI: /login')],
    ['a bad time', text.replace('Issued At: 2026-11-22T10:00:00Z', 'Issued At: yesterday')],
    ['an expiry before issue', text.replace('Expiration Time: 2026-11-22T10:10:00Z', 'Expiration Time: 2026-11-22T09:00:00Z')],
    ['reordered fields', text.replace('Version: 1\nChain ID: solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', 'Chain ID: solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1\nVersion: 1')],
  ])('rejects %s', (_name, bad) => {
    expect(() => parseSignInMessage(bad)).toThrow(SignInMessageFormatError);
  });

  it('refuses to build from bad fields', () => {
    expect(() => buildSignInMessage({ ...fields, statement: 'two\nlines' })).toThrow(FieldError);
    expect(() => buildSignInMessage({ ...fields, statement: '' })).toThrow(FieldError);
  });
});
