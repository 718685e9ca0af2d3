import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getBase58Decoder, signBytes } from '@solana/kit';
import { generateKeypairFile, loadKeypairSigner, loadOrCreateKeypairSigner } from './keypair-file';

const dir = mkdtempSync(join(tmpdir(), 'keypair-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('key pair files (Solana CLI format)', () => {
  test('generate writes 64 bytes (seed ‖ public key) with mode 0600 and never overwrites', async () => {
    const path = join(dir, 'nested', 'id.json');
    const address = await generateKeypairFile(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const bytes = JSON.parse(readFileSync(path, 'utf8')) as number[];
    expect(bytes).toHaveLength(64);
    const seed = Buffer.from(bytes.slice(0, 32));
    const priv = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
    const pub = createPublicKey(priv).export({ format: 'der', type: 'spki' }).subarray(12);
    expect(Buffer.from(bytes.slice(32)).equals(pub)).toBe(true);
    expect(getBase58Decoder().decode(pub)).toBe(address);
    await expect(generateKeypairFile(path)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(sign(null, Buffer.from('x'), priv)).toHaveLength(64);
  });

  test('load gives a signer whose signatures verify under the file public key', async () => {
    const path = join(dir, 'signer.json');
    const address = await generateKeypairFile(path);
    const signer = await loadKeypairSigner(path);
    expect(signer.address).toBe(address);
    const message = new TextEncoder().encode('hello');
    const signature = await signBytes(signer.keyPair.privateKey, message);
    const pub = Buffer.from((JSON.parse(readFileSync(path, 'utf8')) as number[]).slice(32));
    const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), pub]), format: 'der', type: 'spki' });
    expect(verify(null, message, key, signature)).toBe(true);
  });

  test('loadOrCreate creates once then loads the same key', async () => {
    const path = join(dir, 'relayer.json');
    const [a, b] = await Promise.all([loadOrCreateKeypairSigner(path), loadOrCreateKeypairSigner(path)]);
    expect(a.address).toBe(b.address);
    expect((await loadOrCreateKeypairSigner(path)).address).toBe(a.address);
  });

  test('invalid files are rejected', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify([1, 2, 3]));
    await expect(loadKeypairSigner(bad)).rejects.toThrow(/64 bytes/);
    const mismatch = join(dir, 'mismatch.json');
    writeFileSync(mismatch, JSON.stringify(Array.from({ length: 64 }, (_, i) => i)));
    await expect(loadKeypairSigner(mismatch)).rejects.toThrow(/invalid/);
    await expect(loadKeypairSigner(join(dir, 'missing.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
