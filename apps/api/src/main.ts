import { loadConfig, OfflineWorkRunningError, SecondProcessorRunnerError } from '@svc/config';
import { checkKeyFiles, RunnerLeaseHeldError, startupFailureLine, type StoreSettings } from '@svc/application';
import { EventLogBehindCheckpointsError } from '@svc/read-store';
import { LedgerError, LedgerErrorCode } from '@svc/ledger';
import { createApp } from './bootstrap';

/** Where the stores of the configuration loaded live, named by start-up failures. */
let stores: StoreSettings = { dataDir: '' };

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
    stores = config;
    await checkKeyFiles(config);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
  const app = await createApp(config);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app.close().catch(() => undefined);
    throw new ListenError(config.host, config.port, err as NodeJS.ErrnoException);
  }
  process.stdout.write(`agreement evidence service listening on ${config.host}:${config.port}, serving ${config.publicBaseUrl}/api (data in ${config.dataDir})\n`);
}

/** The HTTP server could not listen: a busy port, a host name that does not resolve, an address not on this machine. */
class ListenError extends Error {
  constructor(host: string, port: number, cause: NodeJS.ErrnoException) {
    const why: Record<string, string> = {
      EADDRINUSE: 'the port is in use by another process (PORT)',
      EACCES: 'this user may not listen on that port (PORT)',
      EADDRNOTAVAIL: 'that address is not one of this machine\'s (HOST)',
      ENOTFOUND: 'that host name does not resolve (HOST)',
      EAI_AGAIN: 'that host name could not be resolved now (HOST)',
    };
    super(`start-up failed: cannot listen on ${host}:${port}: ${(cause.code && why[cause.code]) ?? cause.message}`, { cause });
  }
}

void main().catch((err) => {
  if (err instanceof ListenError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  // A refusal that names its own remedy is a line, not a stack trace (README "Configuration").
  if (err instanceof SecondProcessorRunnerError || err instanceof OfflineWorkRunningError || err instanceof RunnerLeaseHeldError || err instanceof EventLogBehindCheckpointsError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof LedgerError && err.code === LedgerErrorCode.Unavailable) {
    process.stderr.write(`start-up failed: ${err.message}: start the process that owns the ledger first, or check LEDGER_RPC_URL\n`);
    process.exit(2);
  }
  // A store file that is not a database it can use: which file holds what, in a line.
  const unusable = startupFailureLine(err, stores);
  if (unusable) {
    process.stderr.write(`${unusable}\n`);
    process.exit(2);
  }
  process.stderr.write(`start-up failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
