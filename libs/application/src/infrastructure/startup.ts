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

/**
 * One line for a start-up that failed on a store file of `dataDir`, naming the files the embedded default keeps there
 * and what each holds, in place of a stack trace. Null for any other failure.
 */
export function startupFailureLine(err: unknown, dataDir: string): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !UNUSABLE_FILE_CODES.has(code)) return null;
  return (
    `start-up failed: a store file in DATA_DIR (${dataDir}) cannot be used: ${(err as Error).message} (${code}); ` +
    'the files are events.sqlite (the event log), read.sqlite (read models and checkpoints) and ledger/ (the embedded ' +
    'ledger): check the disk and the files\' owner and mode, or restore the damaged one from a backup'
  );
}
