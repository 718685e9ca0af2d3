import { loadConfig, OfflineWorkRunningError, SecondProcessorRunnerError } from '@svc/config';
import { RunnerLeaseHeldError } from '@svc/application';
import { LedgerError, LedgerErrorCode } from '@svc/ledger';
import { createApp } from './bootstrap';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
  const app = await createApp(config);
  await app.listen({ port: config.port, host: config.host });
  process.stdout.write(`agreement evidence service listening on ${config.host}:${config.port}, serving ${config.publicBaseUrl}/api (data in ${config.dataDir})\n`);
}

void main().catch((err) => {
  // A refusal that names its own remedy is a line, not a stack trace (README "Configuration").
  if (err instanceof SecondProcessorRunnerError || err instanceof OfflineWorkRunningError || err instanceof RunnerLeaseHeldError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof LedgerError && err.code === LedgerErrorCode.Unavailable) {
    process.stderr.write(`start-up failed: ${err.message}: start the process that owns the ledger first, or check LEDGER_RPC_URL\n`);
    process.exit(2);
  }
  process.stderr.write(`start-up failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
