import { FieldError, SignInMessageFormatError } from './errors';
import { buildSignInMessage, parseSignInMessage, parseWalletSignInMessage, type SignInMessageFields, type WalletSignInFields } from './sign-in-message';

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

describe('sign-in message as a Wallet Standard wallet renders it', () => {
  const issued: WalletSignInFields = { ...fields };

  it('reads the issued text', () => {
    expect(parseWalletSignInMessage(text)).toEqual(issued);
    expect(parseWalletSignInMessage(`${text}\n`)).toEqual(issued);
  });

  it('reads milliseconds, offsets, Not Before, Request ID and Resources', () => {
    const wallet = [
      text.replace('Issued At: 2026-11-22T10:00:00Z', 'Issued At: 2026-11-22T10:00:00.000Z').replace('Expiration Time: 2026-11-22T10:10:00Z', 'Expiration Time: 2026-11-22T11:10:00+01:00'),
      'Not Before: 2026-11-22T10:00:00.000Z',
      'Request ID: 42',
      'Resources:',
      '- https://app.example.com/terms',
      '- ipfs://bafy',
    ].join('\n');
    expect(parseWalletSignInMessage(wallet)).toEqual({
      ...issued,
      issuedAt: '2026-11-22T10:00:00.000Z',
      expirationTime: '2026-11-22T11:10:00+01:00',
      notBefore: '2026-11-22T10:00:00.000Z',
      requestId: '42',
      resources: ['https://app.example.com/terms', 'ipfs://bafy'],
    });
  });

  it('reads a message with only some fields, or without a statement', () => {
    expect(parseWalletSignInMessage(`app.example.com wants you to sign in with your Solana account:\n${fields.address}`)).toEqual({ domain: 'app.example.com', address: fields.address });
    expect(parseWalletSignInMessage(`app.example.com wants you to sign in with your Solana account:\n${fields.address}\n\nNonce: abc`)).toEqual({
      domain: 'app.example.com',
      address: fields.address,
      nonce: 'abc',
    });
    expect(parseWalletSignInMessage(`app.example.com wants you to sign in with your Solana account:\n${fields.address}\n\nHello`)).toEqual({
      domain: 'app.example.com',
      address: fields.address,
      statement: 'Hello',
    });
  });

  it.each([
    ['a CR', text.replace('\n', '\r\n'), /LF/],
    ['no header', text.replace(' wants you to sign in', ' wants to sign in'), /line 1/],
    ['a bad address', text.replace(fields.address, 'not-an-address'), /line 2/],
    ['fields out of order', text.replace('Version: 1\nChain ID: solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', 'Chain ID: solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1\nVersion: 1'), /not a field in its place/],
    ['an unknown field', `${text}\nColour: blue`, /not a field in its place/],
    ['a time that is no time', text.replace('Issued At: 2026-11-22T10:00:00Z', 'Issued At: yesterday'), /issuedAt/],
    ['a two-line statement', text.replace('dashboard.', 'dashboard.\nSecond line.'), /statement/],
    ['a bad resource line', `${text}\nResources:\n* x`, /resources/],
  ])('refuses %s', (_, message, why) => {
    expect(() => parseWalletSignInMessage(message)).toThrow(SignInMessageFormatError);
    expect(() => parseWalletSignInMessage(message)).toThrow(why);
  });
});

/**
 * Interoperability with the Wallet Standard's reference helpers (`@solana/wallet-standard-util`): what a wallet
 * builds with `createSignInMessageText` from a `SolanaSignInInput` reads back field for field.
 */
type WalletStandardUtil = {
  createSignInMessageText(input: WalletSignInFields): string;
  parseSignInMessageText(text: string): Record<string, unknown> | null;
};
const walletStandard: WalletStandardUtil | null = (() => {
  try {
    // Resolved at run time: the package is a test-only dependency.
    return require('@solana/wallet-standard-util') as WalletStandardUtil;
  } catch {
    return null;
  }
})();
(walletStandard ? describe : describe.skip)(
  walletStandard ? 'Wallet Standard interoperability' : 'Wallet Standard interoperability (skipped: @solana/wallet-standard-util is not installed)',
  () => {
    const inputs: WalletSignInFields[] = [
      { ...fields },
      { ...fields, issuedAt: '2026-11-22T10:00:00.000Z', expirationTime: '2026-11-22T10:10:00.000Z', requestId: 'r-1', resources: ['https://app.example.com/a', 'urn:b'] },
      { domain: 'app.example.com', address: fields.address, nonce: fields.nonce, notBefore: '2026-11-22T10:00:00.000Z' },
    ];
    it.each(inputs.map((input, i) => [i, input]))('reads the text a wallet builds from input %i', (_, input) => {
      const textOfWallet = walletStandard!.createSignInMessageText(input);
      expect(parseWalletSignInMessage(textOfWallet)).toEqual(input);
      expect(walletStandard!.parseSignInMessageText(textOfWallet)).toMatchObject(input);
    });

    it('builds with buildSignInMessage exactly what a wallet builds from the same fields', () => {
      expect(walletStandard!.createSignInMessageText({ ...fields })).toBe(buildSignInMessage(fields));
    });
  },
);
