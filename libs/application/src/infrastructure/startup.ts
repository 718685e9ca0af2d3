/**
 * How the API and the worker create their Nest application: start-up logs are held until the service's own logger
 * (JSON lines at `LOG_LEVEL`) takes them over, and a provider that throws while the application is created (a store
 * file that is not a database) rejects the creation instead of Nest printing its
 * held start-up lines and a stack trace and exiting with status 1 by itself. The entry point then says what failed
 * in one line ({@link startupFailureLine}). After `useLogger`, call `flushLogs()` to hand the held lines over.
 */
export const STARTUP_LOG_OPTIONS = { bufferLogs: true, autoFlushLogs: false, abortOnError: false } as const;

/** SQLite's result codes that say a file is not a database it can use (https://sqlite.org/rescode.html). */
const UNUSABLE_FILE_CODES = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PERM', 'SQLITE_IOERR', 'SQLITE_FULL']);

/** Where the stores of a start live: the data directory, and the production engines when configured. */
export interface StoreSettings {
  dataDir: string;
  /** `MONGODB_URL`, when the read models are in MongoDB (never repeated: it may carry a password). */
  mongodbUrl?: string;
  /** `EVENTSTORE_URL`, when the event log is in EventStoreDB (never repeated: it may carry a password). */
  eventStoreUrl?: string;
}

/** The EventStoreDB client's error types that say the server cannot be reached or will not serve this client. */
const EVENTSTORE_UNREACHABLE = new Set(['unavailable', 'deadline-exceeded', 'timeout', 'access-denied', 'not-leader', 'cancelled']);

/**
 * One line for a start-up that failed on a store, in place of a stack trace; null for any other failure:
 * - a store file of the data directory that is not a database it can use (SQLite's result codes), naming the files the
 *   embedded default keeps there and what each holds;
 * - a MongoDB read store (`MONGODB_URL`) that cannot be reached or refuses the connection (the driver's `Mongo…` errors);
 * - an EventStoreDB event log (`EVENTSTORE_URL`) that cannot be reached or refuses the connection (the client's
 *   `unavailable`, `deadline-exceeded`, `timeout`, `access-denied`, `not-leader`, `cancelled` errors).
 * The connection strings are never repeated (they may carry a password); the driver's own message names the host.
 */
export function startupFailureLine(err: unknown, stores: StoreSettings): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && UNUSABLE_FILE_CODES.has(code)) {
    return (
      `start-up failed: a store file in DATA_DIR (${stores.dataDir}) cannot be used: ${(err as Error).message} (${code}); ` +
      'the files are events.sqlite (the event log), read.sqlite (read models and checkpoints) and ledger/ (the embedded ' +
      'ledger): check the disk and the files\' owner and mode, or restore the damaged one from a backup'
    );
  }
  if (!(err instanceof Error)) return null;
  if (stores.mongodbUrl && err.name.startsWith('Mongo')) {
    return (
      `start-up failed: the MongoDB read store (MONGODB_URL) cannot be used: ${err.message} (${err.name}); ` +
      'check that the server runs and is reachable from here, and the user, password and database in MONGODB_URL'
    );
  }
  const type = (err as { type?: unknown }).type;
  if (stores.eventStoreUrl && typeof type === 'string' && EVENTSTORE_UNREACHABLE.has(type)) {
    return (
      `start-up failed: the EventStoreDB event log (EVENTSTORE_URL) cannot be used: ${err.message.trim()} (${type}); ` +
      'check that the server runs and is reachable from here, its TLS setting (tls=false for a server without it), and the credentials in EVENTSTORE_URL'
    );
  }
  return null;
}
