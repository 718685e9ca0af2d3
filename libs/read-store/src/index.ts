import { MongoReadStore } from './mongo-read-store';
import { NedbReadStore } from './nedb-read-store';
import type { ReadStore } from './read-store.port';

export * from './read-store.port';
export { NedbReadStore, type NedbReadStoreOptions, type NedbReadStoreLogger } from './nedb-read-store';
export { MongoReadStore, DEFAULT_MONGO_DATABASE, databaseFromUrl, type MongoReadStoreOptions } from './mongo-read-store';
export * from './projection-runner';

/** Settings `createReadStore` reads (typically the service configuration). */
export interface ReadStoreConfig {
  /** MongoDB connection string (`MONGODB_URL`); when set (non-empty) MongoDB is used. */
  mongodbUrl?: string;
  /** Data directory; the NeDB files live under `<dataDir>/read/`. */
  dataDir: string;
}

/**
 * Picks the adapter: {@link MongoReadStore} (connected and pinged) when `config.mongodbUrl` is set,
 * else {@link NedbReadStore} under `<dataDir>/read/` (checkpoint datastore loaded).
 * @throws the driver's error when MongoDB is unreachable, or a file-system error when the NeDB
 *   directory cannot be created or read.
 */
export async function createReadStore(config: ReadStoreConfig): Promise<ReadStore> {
  const url = config.mongodbUrl?.trim();
  if (url) return MongoReadStore.connect({ url });
  return NedbReadStore.open({ dataDir: config.dataDir });
}
