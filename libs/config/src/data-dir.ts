import { chmodSync, mkdirSync } from 'node:fs';

/** Mode of the data directory: owner only (read, write, search). */
export const DATA_DIR_MODE = 0o700;
/** Process umask while the service runs: files it creates are owner-only (0600), directories 0700. */
export const OWNER_ONLY_UMASK = 0o077;

/**
 * Makes the data directory private before anything is written in it: sets the process umask to 0077, so
 * every file created afterwards (event store, read store, ledger journal, keys, logs) is 0600 and every
 * directory 0700, then creates `dataDir` (0700) or tightens an existing one to 0700, which closes whatever
 * an older release left readable inside it. See README "Configuration" (`DATA_DIR`).
 * @throws Error from node:fs when the directory cannot be created or its mode changed (not its owner).
 */
export function secureDataDir(dataDir: string): void {
  process.umask(OWNER_ONLY_UMASK);
  mkdirSync(dataDir, { recursive: true, mode: DATA_DIR_MODE });
  chmodSync(dataDir, DATA_DIR_MODE);
}
