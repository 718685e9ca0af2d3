/**
 * Solana CLI key pair files: a JSON array of 64 numbers (0–255) — the 32-byte Ed25519 secret
 * seed followed by the 32-byte public key — as written by `solana-keygen`. Files are created
 * with mode 0600 (parent directories 0700).
 */
import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createKeyPairSignerFromBytes, type KeyPairSigner } from '@solana/kit';
import { encodeBase58 } from './internal/base58';

const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function publicKeyOf(seed: Uint8Array): Uint8Array {
  const priv = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return new Uint8Array(createPublicKey(priv).export({ format: 'der', type: 'spki' }).subarray(12));
}

/**
 * Writes a new random key pair file at `path` (never overwrites: fails if it exists).
 * @returns the base58 address (public key) of the new key pair.
 * @throws Error naming the path, with code `EEXIST`, when the file already exists.
 */
export async function generateKeypairFile(path: string): Promise<string> {
  const seed = randomBytes(32);
  const pub = publicKeyOf(seed);
  const bytes = [...seed, ...pub];
  seed.fill(0);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Write aside, then hard-link into place: atomic, and fails with EEXIST instead of overwriting.
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, JSON.stringify(bytes), { mode: 0o600, flag: 'wx' });
  try {
    await link(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw Object.assign(new Error(`${path} exists already: a key pair file is never overwritten (choose another path, or remove it first)`), { code: 'EEXIST' });
    }
    throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  return encodeBase58(pub);
}

/**
 * Reads a key pair file into a kit signer (non-extractable private key).
 * @throws Error when the file is missing, not 64 bytes, or its public key does not match its secret.
 */
export async function loadKeypairSigner(path: string): Promise<KeyPairSigner> {
  const bytes = await readKeypairBytes(path);
  try {
    return await createKeyPairSignerFromBytes(bytes, false);
  } catch (e) {
    throw new Error(`Key pair file ${path} is invalid: ${(e as Error).message}`);
  } finally {
    bytes.fill(0);
  }
}

/** The 64 bytes of a key pair file (seed then public key). @throws Error when missing or malformed. */
async function readKeypairBytes(path: string): Promise<Uint8Array> {
  const text = await readFile(path, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`Key pair file ${path} is not JSON`);
  }
  if (!Array.isArray(parsed) || parsed.length !== 64 || !parsed.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) {
    throw new Error(`Key pair file ${path} must hold a JSON array of 64 bytes`);
  }
  return Uint8Array.from(parsed as number[]);
}

/**
 * The 32-byte Ed25519 seed of a key pair file, for signers that sign synchronously with `node:crypto`
 * (the relayer's hot path). Keep it in memory only.
 * @throws Error when the file is missing or malformed.
 */
export async function readKeypairSeed(path: string): Promise<Uint8Array> {
  const bytes = await readKeypairBytes(path);
  const seed = bytes.slice(0, 32);
  bytes.fill(0);
  return seed;
}

/**
 * Loads the key pair at `path`, generating it first when the file does not exist
 * (safe against concurrent creators: the first writer wins, others load its file).
 */
export async function loadOrCreateKeypairSigner(path: string): Promise<KeyPairSigner> {
  try {
    return await loadKeypairSigner(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  try {
    await generateKeypairFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return loadKeypairSigner(path);
}
