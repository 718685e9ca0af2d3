import 'reflect-metadata';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { LoggerModule, Logger as PinoLogger } from 'nestjs-pino';
import { claimDataDir, loadConfig, refuseDuringOfflineWork, refuseSecondProcessorRunner, secureDataDir, type AppConfig } from '@svc/config';
import { checkKeyFiles, InfrastructureModule, ProcessorsModule, RunnerLeaseHeldError, STARTUP_LOG_OPTIONS, startupFailureLine, type StoreSettings } from '@svc/application';
import { EventLogBehindCheckpointsError } from '@svc/read-store';
import { LedgerError, LedgerErrorCode } from '@svc/ledger';

/**
 * The worker of the scaled-out topology: runs the projections and the process managers alone, with no HTTP
 * server, so that API replicas (started with `RUN_PROJECTIONS=false`) only serve requests.
 */
@Module({})
class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        LoggerModule.forRoot({ pinoHttp: { level: config.logLevel } }),
        CqrsModule.forRoot(),
        InfrastructureModule.forRoot(config, { runProjections: true }),
        ProcessorsModule,
      ],
    };
  }
}

/** Where the stores of the configuration loaded live, named by start-up failures. */
let stores: StoreSettings = { dataDir: '' };

async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
    stores = config;
    await checkKeyFiles(config);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
  secureDataDir(config.dataDir);
  // Claimed before anything starts (released when the process exits): offline tools refuse a data directory in use,
  // and one process at a time may run the projections and processors on it.
  const release = claimDataDir(config.dataDir, { processors: true });
  try {
    refuseDuringOfflineWork(config.dataDir, release);
    refuseSecondProcessorRunner({ dataDir: config.dataDir, runProjections: true }, release);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), STARTUP_LOG_OPTIONS);
  app.useLogger(app.get(PinoLogger));
  app.flushLogs();
  // On SIGTERM or SIGINT: close everything (processors and projections stop with their checkpoints saved, the stores
  // close), remove the claim, then end by the same signal. The claim's fallback on 'exit' does not run then.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void app.close().finally(() => {
        release();
        process.kill(process.pid, signal);
      });
    });
  }
  await app.init();
  process.stdout.write(`worker running projections and process managers (data in ${config.dataDir})\n`);
}

void main().catch((err) => {
  // Another process holds the runner lease on the shared stores, or the log ends before the checkpoints: a line
  // naming it and its remedy, not a stack trace.
  if (err instanceof RunnerLeaseHeldError || err instanceof EventLogBehindCheckpointsError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  // The ledger out of reach is an operator's matter, said in a line: start its owner first, or fix the address.
  if (err instanceof LedgerError && err.code === LedgerErrorCode.Unavailable) {
    process.stderr.write(`worker start-up failed: ${err.message}: start the process that owns the ledger first, or check LEDGER_RPC_URL\n`);
    process.exit(2);
  }
  // A store file that is not a database it can use: which file holds what, in a line, exit 2.
  const unusable = startupFailureLine(err, stores);
  if (unusable) {
    process.stderr.write(`worker ${unusable}\n`);
    process.exit(2);
  }
  process.stderr.write(`worker start-up failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
