/**
 * What the projection runner runs: the projection contract, the runner's options and logger, and the
 * errors `waitFor` raises (docs/architecture.md, "Projections").
 */
import type { StoredEvent } from '@svc/event-store';
import type { IndexSpec, ReadStore } from './read-store.port';

/**
 * A projection: folds events of some types into read-model collections.
 *
 * The runner delivers each event of `eventTypes` in log order, never concurrently, in batches: with a
 * store that supports `transaction` a batch's writes and the checkpoint commit together; otherwise the
 * checkpoint follows the batch. After a crash the events since the last checkpoint are delivered again,
 * so `handle` must be idempotent (use `replaceOne`, `$set`, upserts keyed by ids; avoid bare
 * `$inc`/`$push` unless guarded by the event's position or id).
 */
export interface Projection {
  /** Stable name, e.g. `acceptances`. */
  name: string;
  /** Bump to rebuild from the start of the log (the checkpoint key changes; use new collection names). */
  version: number;
  /** Event types delivered to `handle` (other events are skipped; the position still advances). */
  eventTypes: readonly string[];
  /**
   * Every collection the projection writes, with its indexes (`[]` for none). The runner ensures
   * the indexes on start and drops these collections on rebuild.
   */
  indexes: Record<string, IndexSpec[]>;
  /**
   * Collections that earlier versions of this projection wrote and no current projection uses. Where an earlier
   * version ran (its checkpoint `<name>.v<N>`, N < `version`, is stored), the runner removes them
   * (`ReadStore.removeCollection`) and then those checkpoints, once this version has applied the log up to the head
   * it found at start: until then a rollback to the earlier build still finds its read model.
   */
  retiredCollections?: readonly string[];
  /** Applies one event. A rejection is logged and the batch holding it is retried with backoff. */
  handle(event: StoredEvent, store: ReadStore): Promise<void>;
}

/**
 * Log sink of the runner. Works with a Nest `Logger` (`log`) or a pino logger (`info`); the runner
 * passes one message string, plus the error object for failures.
 */
export interface ProjectionRunnerLogger {
  info?(message: string, ...rest: unknown[]): void;
  log?(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  error(message: string, ...rest: unknown[]): void;
}

/** Tuning of the runner; the defaults suit production. */
export interface ProjectionRunnerOptions {
  /** Events applied per batch (one store transaction and one checkpoint each); default 1000. */
  batchSize?: number;
  /**
   * Period of the idle check, in milliseconds; default 1000 (0 disables). It moves the checkpoint
   * of a caught-up projection over the events it skipped, so a restart does not re-read them and
   * `waitFor` in a process that does not run the projections stays cheap.
   */
  idleCheckMs?: number;
  /** Default `timeoutMs` of `waitFor`, in milliseconds; default 10 000. */
  waitForTimeoutMs?: number;
  /**
   * Poll period of `waitFor` in a process whose runner was never started (one shared round of checkpoint and log
   * reads per period while anyone waits, see CheckpointFollower), in milliseconds; default 10.
   */
  pollIntervalMs?: number;
  /** Delay before the first retry of a failed batch, in milliseconds; default 100, doubling up to 30 000. */
  retryDelayMs?: number;
  /**
   * Events the shared replay (a first start or a rebuild) applies per read-store transaction, read in pages of
   * `batchSize`; default `batchSize` (one page per transaction). Larger commits write each B-tree page they touch
   * once instead of once per page of events, at the cost of memory and of other writers waiting longer: for an
   * offline rebuild, not for a serving process.
   */
  replayCommitEvents?: number;
  /**
   * Whether the shared replay reads the log on another thread, ahead of the projections applying it, when the event
   * store can (`EventStore.readAllAhead`); default false.
   */
  replayReadAhead?: boolean;
}

/**
 * A projection that stopped and will not go on by itself: a stored event failed its integrity check
 * (schema or hash, `reason` from the event store), or its handler keeps failing on an event (reported
 * after 3 failed attempts while the runner goes on retrying; cleared once the event applies).
 */
export interface ProjectionFault {
  /** Checkpoint key of the projection, e.g. `acceptances.v1`. */
  projection: string;
  streamId: string;
  /** Global log position of the event, as a decimal string (`-1` when the backend did not report it). */
  position: string;
  reason: string;
}

/** Rejected by `waitFor` when some projection has not reached the position in time. */
export class ProjectionLagError extends Error {
  override readonly name: string = 'ProjectionLagError';
  constructor(
    readonly position: bigint,
    readonly lagging: readonly string[],
    readonly timeoutMs: number,
    message = `projections ${lagging.join(', ')} did not reach position ${String(position)} within ${timeoutMs} ms`,
  ) {
    super(message);
  }
}

/** Rejected by `waitFor` when the runner stops while it waits (or was already stopped). */
export class ProjectionRunnerStoppedError extends Error {
  override readonly name = 'ProjectionRunnerStoppedError';
  constructor() {
    super('projection runner stopped');
  }
}

/**
 * Rejected by `waitFor` at once when a projection it waits for has stopped on a bad stored event. It is a
 * ProjectionLagError (that projection will not reach the position), so callers that tolerate lag
 * tolerate it too.
 */
export class ProjectionFaultedError extends ProjectionLagError {
  override readonly name: string = 'ProjectionFaultedError';
  constructor(
    readonly fault: ProjectionFault,
    position: bigint,
  ) {
    super(position, [fault.projection], 0, `projection ${fault.projection} stopped at position ${fault.position} (stream ${fault.streamId}): ${fault.reason}`);
  }
}

/** Checkpoint key of a projection: `<name>.v<version>`, e.g. `acceptances.v1`. */
export function checkpointKey(projection: Pick<Projection, 'name' | 'version'>): string {
  return `${projection.name}.v${projection.version}`;
}

/** Whether `key` is the checkpoint key of an earlier version of `projection` (`<name>.v<N>`, N < its version). */
export function isEarlierVersionKey(key: string, projection: Pick<Projection, 'name' | 'version'>): boolean {
  const prefix = `${projection.name}.v`;
  if (!key.startsWith(prefix)) return false;
  const version = key.slice(prefix.length);
  return /^[0-9]+$/.test(version) && Number(version) < projection.version;
}
