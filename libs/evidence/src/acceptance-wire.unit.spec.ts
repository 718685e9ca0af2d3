import { generateKeyPairSync, sign as edSign } from 'node:crypto';
import { createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit';
import { encodeAcceptanceTransaction, nodeEd25519Signer } from './acceptance-wire';
import { bytesToBase58 } from './base58';
import { buildAcceptanceTransaction, parseEvidenceTransaction } from './transactions';

function rawKey() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const seed = new Uint8Array(privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32));
  const address = bytesToBase58(new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32)));
  return { seed, address, privateKey };
}

describe('encodeAcceptanceTransaction (the relayer hot path)', () => {
  it('produces exactly the bytes of the reference builder for the same key and input', async () => {
    for (const length of [40, 400, 650]) {
      const relayer = rawKey();
      const signer = rawKey();
      const message = `svc/1 acceptance\n${'m'.repeat(length)}`;
      const signature = new Uint8Array(edSign(null, Buffer.from(message), signer.privateKey));
      const input = {
        signer: signer.address,
        signature,
        message,
        acceptanceId: 'ab'.repeat(32),
        versionAddress: signer.address,
        lifetime: { blockhash: relayer.address, lastValidBlockHeight: 150n },
      };
      const reference = await buildAcceptanceTransaction({ ...input, feePayer: await createKeyPairSignerFromPrivateKeyBytes(relayer.seed) });
      const fast = encodeAcceptanceTransaction({ ...input, feePayer: nodeEd25519Signer(relayer.seed, relayer.address) });
      expect(Buffer.from(fast.wire).toString('hex')).toBe(Buffer.from(reference.wire).toString('hex'));
      expect(fast.signature).toBe(reference.signature);
      const parsed = parseEvidenceTransaction(fast.wire);
      expect(parsed.feePayer).toBe(relayer.address);
      expect(Buffer.from(parsed.ed25519[0].message).toString('utf8')).toBe(message);
    }
  });

  it('refuses a seed that does not belong to the address', () => {
    const a = rawKey();
    const b = rawKey();
    expect(() => nodeEd25519Signer(a.seed, b.address)).toThrow(/does not belong/);
  });
});
