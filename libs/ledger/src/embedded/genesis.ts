/**
 * Genesis of the embedded ledger: `<dataDir>/ledger/genesis.json` (mode 0600) holds the genesis
 * hash, the creation time (slot 0) and the secret from which the per-slot blockhashes and the
 * faucet key are derived. It is written once, atomically, and never changes.
 */
import { createHash, createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeBase58 } from '../internal/base58';

export interface GenesisFile {
  version: 1;
  /** Base58 of 32 random bytes. */
  genesisHash: string;
  /** Unix milliseconds of slot 0. */
  createdAtMs: number;
  /** Hex of 32 random bytes; never leaves this file. */
  secret: string;
}

/** The faucet that funds airdrops: an Ed25519 key derived from the genesis secret. */
export interface Faucet {
  key: KeyObject;
  /** 32-byte public key. */
  pubkey: Uint8Array;
}

const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * Reads `<dir>/genesis.json`, or creates it when absent and the journal is empty.
 * @throws Error when the file is unreadable, or missing while the journal holds transactions.
 */
export function loadOrCreateGenesis(dir: string, journalHasTransactions: boolean): GenesisFile {
  const path = join(dir, 'genesis.json');
  if (existsSync(path)) {
    const g = JSON.parse(readFileSync(path, 'utf8')) as GenesisFile;
    if (g.version !== 1 || typeof g.genesisHash !== 'string' || !/^[0-9a-f]{64}$/.test(g.secret)) {
      throw new Error(`Unreadable ledger genesis file ${path}`);
    }
    return g;
  }
  if (journalHasTransactions) throw new Error(`Ledger journal has transactions but ${path} is missing`);
  const g: GenesisFile = { version: 1, genesisHash: encodeBase58(randomBytes(32)), createdAtMs: Date.now(), secret: randomBytes(32).toString('hex') };
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, JSON.stringify(g, null, 2), { mode: 0o600 });
  renameSync(tmp, path);
  return g;
}

/** The faucet key pair: seed = sha256("faucet" ‖ secret). */
export function faucetOf(secret: Buffer): Faucet {
  return derivedKey('faucet', secret);
}

/** The node identity (getIdentity, the leader of every slot): seed = sha256("identity" ‖ secret). */
export function identityOf(secret: Buffer): Faucet {
  return derivedKey('identity', secret);
}

function derivedKey(label: string, secret: Buffer): Faucet {
  const seed = createHash('sha256').update(label).update(secret).digest();
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const pubkey = new Uint8Array(createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(12));
  return { key, pubkey };
}
