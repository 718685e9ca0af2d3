import { verifyEd25519 } from './signatures';
import { filledSeed, keyFromSeed } from './testing/keys';

describe('verifyEd25519', () => {
  const key = keyFromSeed(filledSeed(7));
  const other = keyFromSeed(filledSeed(8));
  const message = new TextEncoder().encode('svc/1 acceptance\nI accept');
  const signature = key.sign(message);

  it('accepts a valid signature', () => {
    expect(verifyEd25519(key.address, message, signature)).toBe(true);
  });

  it('matches RFC 8032 test vector 1 (empty message)', () => {
    const seed = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
    const k = keyFromSeed(seed);
    expect(Buffer.from(k.publicKey).toString('hex')).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
    const sig = Buffer.from(
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
      'hex',
    );
    expect(verifyEd25519(k.address, new Uint8Array(0), sig)).toBe(true);
  });

  it('rejects a tampered message, a tampered signature and another key', () => {
    const tamperedMessage = message.slice();
    tamperedMessage[0]! ^= 1;
    const tamperedSignature = signature.slice();
    tamperedSignature[10]! ^= 1;
    expect(verifyEd25519(key.address, tamperedMessage, signature)).toBe(false);
    expect(verifyEd25519(key.address, message, tamperedSignature)).toBe(false);
    expect(verifyEd25519(other.address, message, signature)).toBe(false);
  });

  it('returns false (never throws) for malformed input', () => {
    expect(verifyEd25519('not base58 0OIl', message, signature)).toBe(false);
    expect(verifyEd25519('1111', message, signature)).toBe(false);
    expect(verifyEd25519(key.address, message, signature.slice(1))).toBe(false);
    expect(verifyEd25519(key.address, message, new Uint8Array(64))).toBe(false);
  });

  it('stays correct when the key cache evicts', () => {
    const keys = Array.from({ length: 1100 }, (_, i) => keyFromSeed(new Uint8Array(32).fill(0).map((_, j) => (j === 0 ? i & 255 : j === 1 ? i >> 8 : 9))));
    for (const k of keys) expect(verifyEd25519(k.address, message, k.sign(message))).toBe(true);
    expect(verifyEd25519(keys[0]!.address, message, keys[0]!.sign(message))).toBe(true);
    expect(verifyEd25519(keys[0]!.address, message, keys[1]!.sign(message))).toBe(false);
  });
});
