import * as path from 'node:path';
import type { ReadStore } from './read-store.port';
import { SqliteReadStore } from './sqlite/sqlite-read-store';

export * from './read-store.port';
export { SqliteReadStore, type SqliteReadStoreOptions } from './sqlite/sqlite-read-store';
export type { MongoReadStore, MongoReadStoreOptions } from './mongo-read-store';
export * from './projection';
export * from './projection-runner';
export { checkpointsBeyondHead, EventLogBehindCheckpointsError } from './checkpoints-beyond-head';

/** Where `createReadStore` puts the embedded read store, under the data directory. */
export const SQLITE_READ_FILE = 'read.sqlite';

/** Settings `createReadStore` reads (typically the service configuration). */
export interface ReadStoreConfig {
  /** MongoDB connection string (`MONGODB_URL`); when set (non-empty) MongoDB is used. */
  mongodbUrl?: string;
  /** Data directory; the embedded store is the file `<dataDir>/read.sqlite`. */
  dataDir: string;
}

/** How the caller uses the store it opens. */
export interface ReadStoreUse {
  /**
   * Whether requests are answered from the store while it is written (default true): the embedded store then builds
   * indexes of large collections in a worker thread. A command with nothing to answer meanwhile (a rebuild) passes
   * false and builds them on its own connection, sparing a second page cache and a thread per index; the embedded
   * store then also builds the key index of each collection it drops after the collection is refilled
   * (`SqliteReadStoreOptions.deferKeyIndexes`).
   */
  serving?: boolean;
}

/**
 * Picks the adapter: {@link MongoReadStore} (connected and pinged) when `config.mongodbUrl` is set,
 * else {@link SqliteReadStore} at `<dataDir>/read.sqlite` (directory created if missing).
 * @throws the driver's error when MongoDB is unreachable, or a SQLite error when the file cannot be
 *   created or opened.
 */
export async function createReadStore(config: ReadStoreConfig, use: ReadStoreUse = {}): Promise<ReadStore> {
  const url = config.mongodbUrl?.trim();
  if (url) {
    // Loaded only when used: the driver is a tenth of the embedded default's start-up otherwise.
    const { MongoReadStore } = await import('./mongo-read-store');
    return MongoReadStore.connect({ url });
  }
  return SqliteReadStore.open({
    file: path.join(config.dataDir, SQLITE_READ_FILE),
    backgroundCheckpoints: true,
    // Nothing reads a rebuild's collections while they refill: their key indexes are built after it, by sorting.
    ...(use.serving === false ? { offThreadIndexMinRows: Infinity, deferKeyIndexes: true } : {}),
  });
}
