import * as path from 'node:path';
import { upcast as domainUpcast } from '@svc/domain';
import type { EventSchemaRegistry } from './event-schema-registry';
import type { EventStore, EventStoreLogger, EventUpcaster, SubscriptionRetryOptions } from './event-store.port';
import { SqliteEventStore } from './sqlite-event-store';

export * from './event-store.port';
export { EventSchemaRegistry, EVENT_SCHEMAS_DIR_NAME, type EventSchemaSource } from './event-schema-registry';
export { SqliteEventStore, DuplicateEventIdError, type SqliteEventStoreOptions } from './sqlite-event-store';
export { startWalCheckpointer, type WalCheckpointer, type WalCheckpointerOptions } from './wal-checkpointer';
export type { EventStoreDbEventStore, EventStoreDbEventStoreOptions } from './eventstoredb-event-store';
export { GENESIS_HASH, sqliteRowHash, streamEventHash, type SqliteRowFields, type StreamEventFields } from './event-hash';
export { eventStoreLogger, type LineLogger } from './logger-sink';
export { SLICE_MS, nextTurn, timeSlices } from './time-slices';

/** Where `createEventStore` puts the embedded store. */
export const SQLITE_EVENTS_FILE = 'events.sqlite';

/** Settings `createEventStore` reads (typically from the service configuration). */
export interface EventStoreConfig {
  /** EventStoreDB connection string (`EVENTSTORE_URL`); when set (non-empty) EventStoreDB is used. */
  eventStoreUrl?: string;
  /** Data directory; the SQLite store lives at `<dataDir>/events.sqlite`. */
  dataDir: string;
}

/** Optional extras passed on to the chosen adapter. */
export interface CreateEventStoreOptions {
  logger?: EventStoreLogger;
  retry?: SubscriptionRetryOptions;
  /** Upcaster applied on read; default: the domain's (`upcast` of libs/domain/src/upcasters.ts). */
  upcast?: EventUpcaster;
}

/**
 * Picks the adapter: {@link EventStoreDbEventStore} when `config.eventStoreUrl` is set, else
 * {@link SqliteEventStore} at `<dataDir>/events.sqlite` (directory created if missing, older files
 * migrated). Reads are upcast to the domain's current schema versions unless `options.upcast` says otherwise.
 * @throws Error when the SQLite file cannot be opened or the connection string is malformed.
 */
export function createEventStore(
  config: EventStoreConfig,
  schemas: EventSchemaRegistry,
  options: CreateEventStoreOptions = {},
): EventStore {
  const settings = { schemas, ...options, upcast: options.upcast ?? domainUpcast };
  if (config.eventStoreUrl && config.eventStoreUrl.trim() !== '') {
    // Loaded only when used: its gRPC client is a tenth of the embedded default's start-up otherwise.
    const { EventStoreDbEventStore } = require('./eventstoredb-event-store') as typeof import('./eventstoredb-event-store');
    return new EventStoreDbEventStore({ connectionString: config.eventStoreUrl.trim(), ...settings });
  }
  return new SqliteEventStore({ file: path.join(config.dataDir, SQLITE_EVENTS_FILE), backgroundCheckpoints: true, ...settings });
}
