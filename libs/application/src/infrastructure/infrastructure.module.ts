import { DynamicModule, Global, Inject, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { KeyPairSigner } from '@solana/kit';
import { APP_CONFIG, keyFilesReadableByOthers, type AppConfig } from '@svc/config';
import { createEventStore, EVENT_STORE, EventSchemaRegistry, eventStoreLogger, type EventStore } from '@svc/event-store';
import { nodeEd25519Signer } from '@svc/evidence';
import { createLedger, LEDGER, loadOrCreateKeypairSigner, readKeypairSeed, type Ledger } from '@svc/ledger';
import { checkpointsBeyondHead, createReadStore, EventLogBehindCheckpointsError, ProjectionRunner, READ_STORE, type ReadStore } from '@svc/read-store';
import { ALL_PROJECTIONS } from '@svc/projections';
import { CLOCK, systemClock, type Clock } from './clock';
import { NetworkService } from './network.service';
import { RunnerLease } from './runner-lease';
import { INFRA_OPTIONS, PROJECTION_RUNNER, RELAYER, RELAYER_SIGNER, RUNNER_LEASE } from './tokens';

export interface InfrastructureOptions {
  /** Run the projections in this process (the embedded default; false in scaled-out API replicas). */
  runProjections: boolean;
  /** Where "now" comes from; the system clock unless a test injects one. */
  clock?: Clock;
}

/**
 * Binds the three ports to the adapters chosen by configuration, loads the service's keys and runs
 * the projections. Closes everything, in order, at shutdown.
 */
@Global()
@Module({})
export class InfrastructureModule implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Infrastructure');

  static forRoot(config: AppConfig, options: InfrastructureOptions = { runProjections: true }): DynamicModule {
    return {
      module: InfrastructureModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: INFRA_OPTIONS, useValue: options },
        { provide: CLOCK, useValue: options.clock ?? systemClock },
        {
          provide: EVENT_STORE,
          useFactory: () =>
            createEventStore(config, EventSchemaRegistry.fromDirectory(), { logger: eventStoreLogger(new Logger('EventStore')) }),
        },
        { provide: READ_STORE, useFactory: () => createReadStore(config) },
        { provide: LEDGER, useFactory: () => createLedger({ ...config, slotMs: config.ledgerSlotMs, ledgerSynchronous: config.ledgerSynchronous }) },
        { provide: RELAYER, useFactory: () => loadOrCreateKeypairSigner(config.relayerKeypairPath) },
        {
          provide: RELAYER_SIGNER,
          inject: [RELAYER],
          useFactory: async (relayer: KeyPairSigner) => nodeEd25519Signer(await readKeypairSeed(config.relayerKeypairPath), relayer.address),
        },
        {
          provide: 'ATTESTOR_ADDRESS',
          useFactory: async () => (await loadOrCreateKeypairSigner(config.attestorKeypairPath)).address,
        },
        {
          provide: PROJECTION_RUNNER,
          inject: [EVENT_STORE, READ_STORE],
          useFactory: (eventStore: EventStore, readStore: ReadStore) =>
            new ProjectionRunner(eventStore, readStore, [...ALL_PROJECTIONS], new Logger('Projections'), { replayReadAhead: true }),
        },
        { provide: RUNNER_LEASE, inject: [READ_STORE], useFactory: (readStore: ReadStore) => new RunnerLease(readStore, config.runnerHeartbeatMs) },
        NetworkService,
      ],
      exports: [APP_CONFIG, INFRA_OPTIONS, CLOCK, EVENT_STORE, READ_STORE, LEDGER, RELAYER, RELAYER_SIGNER, PROJECTION_RUNNER, RUNNER_LEASE, NetworkService],
    };
  }

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(INFRA_OPTIONS) private readonly options: InfrastructureOptions,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(LEDGER) private readonly ledger: Ledger,
    @Inject(RELAYER) readonly relayer: KeyPairSigner,
    @Inject(PROJECTION_RUNNER) private readonly projections: ProjectionRunner,
    @Inject(RUNNER_LEASE) private readonly lease: RunnerLease,
  ) {}

  async onModuleInit(): Promise<void> {
    // Keys are loaded by now (the providers above); the webhook secrets key file may still be created later, 0600.
    const loose = keyFilesReadableByOthers([this.config.relayerKeypairPath, this.config.attestorKeypairPath, this.config.webhooks.secretsKeyPath]);
    if (loose.length > 0) this.logger.warn(`key files readable by other users of this machine: ${loose.join(', ')}; make them owner-only (chmod 600)`);
    // A log that ends before the checkpoints lost events it had served: nothing runs on it. Checked by every process,
    // an API replica beside the worker included: one that appended at the lost positions would carry the head past the
    // checkpoints, and the runner would then start and skip those events (the projections never show them, the
    // processors never handle them).
    if (!this.options.runProjections) {
      const { head, beyond } = await checkpointsBeyondHead(this.eventStore, this.readStore);
      if (beyond.length > 0) throw new EventLogBehindCheckpointsError(head, beyond);
      return;
    }
    // One process over every host sharing the stores runs them (runner-lease.ts): taken before any of them starts.
    await this.lease.claim({ projectionFaults: [], processorFaults: [], eventLogFaults: [] });
    this.lease.onLost = (reason) => {
      // Two processes must not run the projections and processors: this one stops.
      this.logger.error(`runner lease lost: ${reason}; stopping`);
      process.kill(process.pid, 'SIGTERM');
    };
    // The runner checks under its lease, just before it starts.
    const { head, beyond } = await checkpointsBeyondHead(this.eventStore, this.readStore);
    if (beyond.length > 0) {
      await this.lease.release().catch(() => undefined);
      throw new EventLogBehindCheckpointsError(head, beyond);
    }
    await this.projections.start();
  }

  /** Runs last (a global module): the processors have stopped by now; the lease goes after the projections. */
  async onApplicationShutdown(): Promise<void> {
    const steps: [string, () => Promise<void>][] = [
      ['projections', () => this.projections.stop()],
      ['runner lease', () => (this.options.runProjections ? this.lease.release() : Promise.resolve())],
      ['event store', () => this.eventStore.close()],
      ['read store', () => this.readStore.close()],
      ['ledger', () => this.ledger.close()],
    ];
    for (const [name, close] of steps) {
      try {
        await close();
      } catch (err) {
        this.logger.error(`closing the ${name} failed: ${(err as Error).message}`);
      }
    }
  }
}
