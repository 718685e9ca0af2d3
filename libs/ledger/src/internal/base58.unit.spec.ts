import { randomBytes } from 'node:crypto';
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import { decodeBase58, encodeBase58, tryDecodeBase58Fixed } from './base58';

describe('base58', () => {
  test('matches kit on random inputs, leading zeros included', () => {
    const kitText = getBase58Decoder();
    const kitBytes = getBase58Encoder();
    for (let i = 0; i < 500; i++) {
      const bytes = randomBytes(i % 3 === 0 ? 64 : 32);
      if (i % 5 === 0) bytes.fill(0, 0, i % 7);
      const text = encodeBase58(bytes);
      expect(text).toBe(kitText.decode(bytes));
      expect(Buffer.from(decodeBase58(text)).equals(bytes)).toBe(true);
      expect(Buffer.from(kitBytes.encode(text)).equals(bytes)).toBe(true);
    }
    expect(encodeBase58(new Uint8Array(32))).toBe('11111111111111111111111111111111');
    expect(encodeBase58(new Uint8Array(0))).toBe('');
  });

  test('rejects invalid text and wrong sizes', () => {
    expect(() => decodeBase58('0OIl')).toThrow(/Invalid base58/);
    expect(tryDecodeBase58Fixed('11111111111111111111111111111111', 32)).toEqual(new Uint8Array(32));
    expect(tryDecodeBase58Fixed('11111111111111111111111111111111', 64)).toBeNull();
    expect(tryDecodeBase58Fixed('not base58!', 32)).toBeNull();
    expect(tryDecodeBase58Fixed(42, 32)).toBeNull();
  });
});
