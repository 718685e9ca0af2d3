import { getBase58Decoder, getBase58Encoder, isAddress } from '@solana/kit';
import { base58ToBytes, bytesToBase58, isBase58Address, isBase58Signature } from './base58';

/** Same results as `@solana/kit`'s base58 codecs, which these helpers replaced. */
describe('base58', () => {
  const kitEncode = getBase58Decoder();
  const kitDecode = getBase58Encoder();
  let x = 12345;
  const random = () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x >>> 8;
  };

  it('encodes and decodes like kit, leading zeros included', () => {
    for (let n = 0; n < 2000; n++) {
      const length = [0, 1, 2, 31, 32, 33, 64, 65][n % 8]!;
      const bytes = new Uint8Array(length).map(() => random() & 0xff);
      const zeros = random() % 4;
      for (let i = 0; i < Math.min(zeros, length); i++) bytes[i] = 0;
      const text = bytesToBase58(bytes);
      expect(text).toBe(kitEncode.decode(bytes));
      if (text.length > 0) {
        expect(base58ToBytes(text)).toEqual(new Uint8Array(kitDecode.encode(text)));
        expect(Object.getPrototypeOf(base58ToBytes(text))).toBe(Uint8Array.prototype);
      }
      expect(isBase58Address(text)).toBe(text.length >= 32 && text.length <= 44 && isAddress(text));
      expect(isBase58Signature(text)).toBe(length === 64);
    }
    expect(bytesToBase58(new Uint8Array(3))).toBe('111');
    expect(base58ToBytes('111')).toEqual(new Uint8Array(3));
  });

  it('refuses text outside the alphabet', () => {
    for (const bad of ['', '0', 'O', 'I', 'l', 'abc+', ' abc', 'abc\n']) expect(() => base58ToBytes(bad)).toThrow('not base58');
    expect(isBase58Address('1'.repeat(31))).toBe(false);
    expect(isBase58Address('0'.repeat(32))).toBe(false);
    expect(isBase58Address('z'.repeat(44))).toBe(false);
    expect(isBase58Address(42)).toBe(false);
    expect(isBase58Signature('1'.repeat(64))).toBe(true);
    expect(isBase58Signature('1'.repeat(63))).toBe(false);
  });

  it('answers the same for a text checked again, as an address or as a signature', () => {
    const address = bytesToBase58(new Uint8Array(32).fill(7));
    const signature = bytesToBase58(new Uint8Array(64).fill(9));
    for (let round = 0; round < 3; round++) {
      expect(isBase58Address(address)).toBe(true);
      expect(isBase58Signature(address)).toBe(false);
      expect(isBase58Signature(signature)).toBe(true);
      expect(isBase58Address(signature)).toBe(false);
      // Same length as an address, one byte short once decoded: never remembered as valid.
      expect(isBase58Address(bytesToBase58(new Uint8Array(31).fill(255)))).toBe(false);
    }
  });
});

