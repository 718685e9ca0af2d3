/**
 * The validity-window rule shared by the verifier (check `message.validity-window`, docs/protocol.md §9) and the
 * service's relay: a landing counts from `issued-at` minus 120 s through `expires-at` plus 120 s, both ends included.
 */
import { buildAcceptanceMessage, type AcceptanceMessageFields } from './acceptance-message';
import { MessageFormatError } from './errors';
import { CLOCK_TOLERANCE_SECONDS, landingAgainstWindow, lastValidLandingTime, validityWindowOf } from './validity-window';

const window = { issuedAt: '2026-11-22T10:00:00Z', expiresAt: '2026-11-22T10:05:00Z' };
const issued = Date.UTC(2026, 10, 22, 10, 0, 0) / 1000;
const expires = Date.UTC(2026, 10, 22, 10, 5, 0) / 1000;

describe('landingAgainstWindow', () => {
  it('counts a landing within the window, and up to 120 s either side of it, as within', () => {
    expect(CLOCK_TOLERANCE_SECONDS).toBe(120);
    for (const t of [issued - 120, issued, issued + 150, expires, expires + 120]) expect(landingAgainstWindow(window, t)).toBe('within');
  });

  it('says before or after one second past the tolerance', () => {
    expect(landingAgainstWindow(window, issued - 121)).toBe('before');
    expect(landingAgainstWindow(window, expires + 121)).toBe('after');
    expect(landingAgainstWindow(window, expires + 3600)).toBe('after');
  });

  it('cannot judge a landing without a block time', () => {
    expect(landingAgainstWindow(window, null)).toBe('unknown');
  });

  it('gives the last landing time that still passes', () => {
    expect(lastValidLandingTime(window)).toBe(expires + 120);
    expect(landingAgainstWindow(window, lastValidLandingTime(window))).toBe('within');
    expect(landingAgainstWindow(window, lastValidLandingTime(window) + 1)).toBe('after');
  });
});

describe('validityWindowOf', () => {
  const fields: AcceptanceMessageFields = {
    protocol: 'svc/1',
    requestDomain: 'shop.example',
    chainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    organization: 'GyGKxMyg1p9SsHfm15MkNUu1u9TN2JtTspcdmrtGUdse',
    document: 'EdmxWPmx2WH6WgFfTdu9xfkYf3k1g5wD1zccTVySEEh1',
    versionAddress: '8SFqwqnq4whPhs8icwHA2hQg3hUoN1qrCLK1SBx3WKwe',
    versionNumber: 2,
    contentHash: 'a'.repeat(64),
    fingerprint: 'b'.repeat(64),
    signer: 'AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9',
    nonce: 'fedcba9876543210fedcba9876543210',
    ...window,
  };

  it('reads the window written in an acceptance message', () => {
    expect(validityWindowOf(buildAcceptanceMessage(fields))).toEqual(window);
  });

  it('refuses a text that is not a byte-exact acceptance message', () => {
    expect(() => validityWindowOf(`${buildAcceptanceMessage(fields)}\n`)).toThrow(MessageFormatError);
  });
});
