import type { EventStore, StoredEvent, Subscription } from '@svc/event-store';
import type { Collection, Doc, IndexSpec, ReadStore } from './read-store.port';

/**
 * A projection: folds events of some types into read-model collections.
 *
 * The runner delivers each event of `eventTypes` once per run, in log order, never concurrently,
 * and saves a checkpoint after it. After a crash the events since the last saved checkpoint are
 * delivered again, so `handle` must be idempotent (use `replaceOne`, `$set`, upserts keyed by ids;
 * avoid bare `$inc`/`$push` unless guarded by the event's position or id).
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
  /** Applies one event. A rejection is logged and the same event is retried with backoff. */
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
  /** Save a projection's checkpoint at least every this many handled events; default 100. */
  checkpointEvery?: number;
  /** ...and at most this long after an unsaved event was handled, in milliseconds; default 200. */
  checkpointDelayMs?: number;
  /**
   * Period of the idle check, in milliseconds; default 1000 (0 disables). It moves the checkpoint
   * of a caught-up projection over the events it skipped, so a restart does not re-read them and
   * `waitFor` in a process that does not run the projections stays cheap.
   */
  idleCheckMs?: number;
  /** Default `timeoutMs` of `waitFor`, in milliseconds; default 10 000. */
  waitForTimeoutMs?: number;
  /** Poll period of `waitFor` in a process whose runner was never started, in milliseconds; default 50. */
  pollIntervalMs?: number;
}

/** Rejected by `waitFor` when some projection has not reached the position in time. */
export class ProjectionLagError extends Error {
  override readonly name = 'ProjectionLagError';
  constructor(
    readonly position: bigint,
    readonly lagging: readonly string[],
    readonly timeoutMs: number,
  ) {
    super(`projections ${lagging.join(', ')} did not reach position ${String(position)} within ${timeoutMs} ms`);
  }
}

/** Rejected by `waitFor` when the runner stops while it waits (or was already stopped). */
export class ProjectionRunnerStoppedError extends Error {
  override readonly name = 'ProjectionRunnerStoppedError';
  constructor() {
    super('projection runner stopped');
  }
}

/** Checkpoint key of a projection: `<name>.v<version>`, e.g. `acceptances.v1`. */
export function checkpointKey(projection: Pick<Projection, 'name' | 'version'>): string {
  return `${projection.name}.v${projection.version}`;
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function errMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Mutable state of one projection inside the runner. */
class ProjectionState {
  readonly key: string;
  readonly types: ReadonlySet<string>;
  /** Bumped whenever the subscription is stopped (stop, rebuild): stale callbacks compare it. */
  generation = 0;
  sub: Subscription | undefined;
  /** Resolved (and replaced) whenever `sub` changes, to wake `waitFor`. */
  changed = deferred();
  /** Highest position known applied (handled, or skipped while caught up) in this generation. */
  applied: bigint | undefined;
  /** Last checkpoint written (or read at start). */
  saved: bigint | undefined;
  unsaved = 0;
  timer: NodeJS.Timeout | undefined;
  /** Chain of checkpoint writes (never rejects): serializes them so they stay monotonic. */
  flushing: Promise<void> = Promise.resolve();
  /** Chain of start/stop/rebuild steps of this projection (never rejects). */
  lock: Promise<void> = Promise.resolve();
  /** Collections the handler opened that `indexes` does not declare (warned once, dropped on rebuild). */
  readonly undeclared = new Set<string>();
  readonly store: ReadStore;

  constructor(
    readonly projection: Projection,
    readStore: ReadStore,
    onUndeclared: (state: ProjectionState, collection: string) => void,
  ) {
    this.key = checkpointKey(projection);
    this.types = new Set(projection.eventTypes);
    this.store = scopedStore(readStore, this, onUndeclared);
  }

  setSub(sub: Subscription | undefined): void {
    this.sub = sub;
    const old = this.changed;
    this.changed = deferred();
    old.resolve();
  }

  collections(): string[] {
    return [...new Set([...Object.keys(this.projection.indexes), ...this.undeclared])];
  }

  async serialize<R>(step: () => Promise<R>): Promise<R> {
    const run = this.lock.then(step);
    this.lock = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }
}

/**
 * The read store as a projection's handler sees it: collections are noted (to warn about and drop
 * undeclared ones), checkpoints and `close` are the runner's business.
 */
function scopedStore(
  inner: ReadStore,
  state: ProjectionState,
  onUndeclared: (state: ProjectionState, collection: string) => void,
): ReadStore {
  const declared = new Set(Object.keys(state.projection.indexes));
  const forbidden = (what: string) => () =>
    Promise.reject(new Error(`projection ${state.key}: ${what} is reserved to the projection runner`));
  return {
    collection<T extends Doc = Doc>(name: string): Collection<T> {
      if (!declared.has(name) && !state.undeclared.has(name)) onUndeclared(state, name);
      return inner.collection<T>(name);
    },
    getCheckpoint: (projection) => inner.getCheckpoint(projection),
    listCheckpoints: () => inner.listCheckpoints(),
    saveCheckpoint: forbidden('saveCheckpoint'),
    deleteCheckpoint: forbidden('deleteCheckpoint'),
    ping: () => inner.ping(),
    close: forbidden('close'),
  };
}

type Phase = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped';

/**
 * Runs projections durably: one catch-up subscription per projection on the event store, from its
 * checkpoint (`<name>.v<version>` in the read store), writing its read models into the read store.
 *
 * Checkpoints are written after the events are applied, batched: every `checkpointEvery` events
 * (100) or `checkpointDelayMs` (200 ms) after the first unsaved one, so also once a subscription
 * goes idle; and on `stop()`. A crash replays at most the unsaved tail, which idempotent handlers
 * absorb. A handler failure is logged; the subscription retries the same event with backoff and
 * never skips it (the projection then lags and `waitFor` times out for positions after it).
 */
export class ProjectionRunner {
  private readonly states: ProjectionState[];
  private readonly byName = new Map<string, ProjectionState>();
  private readonly opts: Required<ProjectionRunnerOptions>;
  private phase: Phase = 'idle';
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private idleBusy = false;

  /**
   * @param projections distinct names; each needs a positive integer version and at least one event type.
   * @throws TypeError on an invalid projection list.
   */
  constructor(
    private readonly eventStore: EventStore,
    private readonly readStore: ReadStore,
    projections: readonly Projection[],
    private readonly logger?: ProjectionRunnerLogger,
    options: ProjectionRunnerOptions = {},
  ) {
    this.opts = {
      checkpointEvery: options.checkpointEvery ?? 100,
      checkpointDelayMs: options.checkpointDelayMs ?? 200,
      idleCheckMs: options.idleCheckMs ?? 1000,
      waitForTimeoutMs: options.waitForTimeoutMs ?? 10_000,
      pollIntervalMs: options.pollIntervalMs ?? 50,
    };
    if (!(Number.isSafeInteger(this.opts.checkpointEvery) && this.opts.checkpointEvery >= 1)) {
      throw new TypeError('checkpointEvery must be a positive integer');
    }
    const onUndeclared = (state: ProjectionState, collection: string) => {
      state.undeclared.add(collection);
      this.logger?.warn(
        `projection ${state.key} writes collection ${collection} which its \`indexes\` does not declare; ` +
          'declare it (with [] for no index) so that rebuild drops it',
      );
    };
    this.states = projections.map((p) => {
      if (!p.name || this.byName.has(p.name)) throw new TypeError(`duplicate or empty projection name ${JSON.stringify(p.name)}`);
      if (!(Number.isSafeInteger(p.version) && p.version >= 1)) throw new TypeError(`projection ${p.name}: version must be a positive integer`);
      if (p.eventTypes.length === 0) throw new TypeError(`projection ${p.name}: eventTypes is empty`);
      const state = new ProjectionState(p, readStore, onUndeclared);
      this.byName.set(p.name, state);
      return state;
    });
  }

  /** Names of the projections, in the order given. */
  get projectionNames(): string[] {
    return this.states.map((s) => s.projection.name);
  }

  /**
   * Ensures every projection's indexes, reads its checkpoint and subscribes it from there.
   * Resolves once every subscription is running (not once caught up: use `waitFor`).
   * Idempotent while running; may be called again after `stop()`.
   * @throws the read store's error (e.g. DuplicateKeyError on a unique index); nothing keeps running then.
   */
  start(): Promise<void> {
    if (this.phase === 'running') return Promise.resolve();
    if (this.phase === 'starting' && this.starting) return this.starting;
    if (this.phase === 'stopping') return Promise.reject(new Error('projection runner is stopping'));
    this.phase = 'starting';
    this.starting = this.doStart();
    return this.starting;
  }

  private async doStart(): Promise<void> {
    try {
      for (const s of this.states) {
        await s.serialize(async () => {
          await this.ensureIndexes(s);
          const checkpoint = await this.readStore.getCheckpoint(s.key);
          s.saved = checkpoint ?? undefined;
          s.applied = checkpoint ?? undefined;
          s.unsaved = 0;
          this.subscribe(s, checkpoint ?? undefined);
        });
      }
      this.phase = 'running';
      if (this.opts.idleCheckMs > 0) {
        this.idleTimer = setInterval(() => void this.idleCheck(), this.opts.idleCheckMs);
        this.idleTimer.unref();
      }
    } catch (err) {
      this.logger?.error(`projection runner failed to start: ${errMessage(err)}`, err);
      this.phase = 'stopping';
      await Promise.all(this.states.map((s) => s.serialize(() => this.halt(s))));
      this.phase = 'stopped';
      throw err;
    } finally {
      this.starting = undefined;
    }
  }

  /**
   * Stops every subscription (waiting for a handler in progress) and saves the checkpoints.
   * Pending `waitFor` calls reject with ProjectionRunnerStoppedError. Does not close the stores.
   */
  stop(): Promise<void> {
    if (this.phase === 'idle' || this.phase === 'stopped') {
      this.phase = 'stopped';
      return Promise.resolve();
    }
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    try {
      await this.starting?.catch(() => undefined);
      this.phase = 'stopping';
      if (this.idleTimer) clearInterval(this.idleTimer);
      this.idleTimer = undefined;
      await Promise.all(this.states.map((s) => s.serialize(() => this.halt(s))));
      this.phase = 'stopped';
    } finally {
      this.stopping = undefined;
    }
  }

  /**
   * Resolves once every projection has applied the log up to `position` (global position, as
   * returned by `append`), so a client reads its own writes. Positions `<= -1n` resolve at once.
   *
   * In a process that never started the runner (API replicas while a worker runs the projections),
   * it polls the stored checkpoints instead, and treats a projection as caught up when the log
   * holds no event of its types between its checkpoint and `position`.
   *
   * @param options.timeoutMs default `waitForTimeoutMs` (10 s); `Infinity` waits forever.
   * @throws ProjectionLagError after the timeout; ProjectionRunnerStoppedError if the runner stops.
   */
  async waitFor(position: bigint, options: { timeoutMs?: number } = {}): Promise<void> {
    if (position < 0n) return;
    if (this.phase === 'stopping' || this.phase === 'stopped') throw new ProjectionRunnerStoppedError();
    const timeoutMs = options.timeoutMs ?? this.opts.waitForTimeoutMs;
    const done = new Set<ProjectionState>();
    const polling = this.phase === 'idle';
    const work = polling
      ? this.pollCheckpoints(position, done)
      : Promise.all(
          this.states.map(async (s) => {
            await this.waitForState(s, position);
            done.add(s);
          }),
        );
    if (!Number.isFinite(timeoutMs)) {
      await work;
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, timeoutMs));
    });
    try {
      const outcome = await Promise.race([work, timeout]);
      if (outcome === 'timeout') {
        const lagging = this.states.filter((s) => !done.has(s)).map((s) => s.key);
        throw new ProjectionLagError(position, lagging, timeoutMs);
      }
    } finally {
      clearTimeout(timer);
      work.catch(() => undefined); // a late rejection after the timeout is not unhandled
    }
  }

  /**
   * Rebuilds one projection: stops its subscription, deletes its checkpoint, drops its collections
   * (then re-ensures their indexes) and subscribes it again from the start of the log. Resolves
   * once the new subscription runs (use `waitFor(await eventStore.headPosition())` to await the
   * replay). Readers see the read model empty, then filling, meanwhile. When the runner is not
   * running, only the reset is done (the next `start()` replays).
   * @throws Error for an unknown name; the read store's error if the reset fails (the projection
   *   is then resubscribed from its stored checkpoint, if any).
   */
  async rebuild(name: string): Promise<void> {
    const s = this.byName.get(name);
    if (!s) throw new Error(`unknown projection ${JSON.stringify(name)}`);
    await this.starting?.catch(() => undefined);
    await s.serialize(async () => {
      const resubscribe = this.phase === 'running';
      this.logger?.warn(`rebuilding projection ${s.key}`);
      await this.halt(s, false);
      try {
        // Checkpoint first: a crash between the two steps then replays into the old documents
        // (harmless, handlers are idempotent) instead of resuming over emptied collections.
        await this.readStore.deleteCheckpoint(s.key);
        s.saved = undefined;
        s.applied = undefined;
        s.unsaved = 0;
        for (const collection of s.collections()) await this.readStore.collection(collection).drop();
        await this.ensureIndexes(s);
        if (resubscribe && this.phase === 'running') this.subscribe(s, undefined);
      } catch (err) {
        this.logger?.error(`rebuild of projection ${s.key} failed: ${errMessage(err)}`, err);
        if (resubscribe && this.phase === 'running' && !s.sub) {
          const checkpoint = await this.readStore.getCheckpoint(s.key).catch(() => null);
          s.saved = checkpoint ?? undefined;
          s.applied = checkpoint ?? undefined;
          this.subscribe(s, checkpoint ?? undefined);
        }
        throw err;
      }
    });
  }

  // ---------------------------------------------------------------------------------------------

  private async ensureIndexes(s: ProjectionState): Promise<void> {
    for (const [collection, specs] of Object.entries(s.projection.indexes)) {
      const c = this.readStore.collection(collection);
      for (const spec of specs) await c.ensureIndex(spec);
    }
  }

  private subscribe(s: ProjectionState, after: bigint | undefined): void {
    const generation = s.generation;
    const p = s.projection;
    const handler = async (event: StoredEvent): Promise<void> => {
      if (generation !== s.generation) return; // a stopped subscription: never touch the store
      try {
        await p.handle(event, s.store);
      } catch (err) {
        this.logger?.error(
          `projection ${s.key} failed on event ${event.type} at position ${String(event.position)} ` +
            `(stream ${event.streamId}): ${errMessage(err)}; the event will be retried`,
          err,
        );
        throw err;
      }
      if (generation !== s.generation) return;
      s.applied = event.position;
      s.unsaved++;
      if (s.unsaved >= this.opts.checkpointEvery) await this.flush(s);
      else this.armTimer(s);
    };
    s.setSub(this.eventStore.subscribeToAll(handler, { after, eventTypes: p.eventTypes }));
    this.logger?.[this.logger.info ? 'info' : 'log']?.(
      `projection ${s.key} subscribed ${after === undefined ? 'from the start' : `after position ${String(after)}`}`,
    );
  }

  /** Stops the subscription of `s` and writes its checkpoint (unless `save` is false). */
  private async halt(s: ProjectionState, save = true): Promise<void> {
    s.generation++;
    const sub = s.sub;
    s.setSub(undefined);
    if (sub) await sub.stop();
    if (s.timer) clearTimeout(s.timer);
    s.timer = undefined;
    if (save) await this.flush(s);
    else await s.flushing;
  }

  private armTimer(s: ProjectionState): void {
    if (s.timer) return;
    s.timer = setTimeout(() => {
      s.timer = undefined;
      void this.flush(s);
    }, this.opts.checkpointDelayMs);
    s.timer.unref();
  }

  /** Writes the checkpoint of `s` if it moved. Never rejects (a failure is logged and retried later). */
  private flush(s: ProjectionState): Promise<void> {
    if (s.timer) clearTimeout(s.timer);
    s.timer = undefined;
    const write = async () => {
      const position = s.applied;
      if (position === undefined || (s.saved !== undefined && position <= s.saved)) return;
      const generation = s.generation;
      const unsaved = s.unsaved;
      s.unsaved = 0;
      try {
        await this.readStore.saveCheckpoint(s.key, position);
        if (s.saved === undefined || position > s.saved) s.saved = position;
      } catch (err) {
        s.unsaved += unsaved;
        this.logger?.warn(`saving the checkpoint of projection ${s.key} failed: ${errMessage(err)}`, err);
        if (generation === s.generation && s.sub) this.armTimer(s);
      }
    };
    s.flushing = s.flushing.then(write, write);
    return s.flushing;
  }

  /**
   * Moves the checkpoint of caught-up projections to the log head, over the events they skipped.
   * Only when the subscription has handled everything up to the head already.
   */
  private async idleCheck(): Promise<void> {
    if (this.idleBusy || this.phase !== 'running') return;
    this.idleBusy = true;
    try {
      const head = await this.eventStore.headPosition();
      for (const s of this.states) {
        const sub = s.sub;
        if (!sub || (s.saved !== undefined && s.saved >= head) || s.unsaved > 0) continue;
        const generation = s.generation;
        if (!(await isCaughtUpNow(sub, head))) continue;
        if (generation !== s.generation || s.sub !== sub) continue;
        if (s.applied === undefined || s.applied < head) s.applied = head;
        await this.flush(s);
      }
    } catch (err) {
      this.logger?.warn(`projection idle check failed: ${errMessage(err)}`, err);
    } finally {
      this.idleBusy = false;
    }
  }

  private async waitForState(s: ProjectionState, position: bigint): Promise<void> {
    for (;;) {
      if (this.phase === 'stopping' || this.phase === 'stopped') throw new ProjectionRunnerStoppedError();
      const sub = s.sub;
      if (!sub) {
        await s.changed.promise; // being rebuilt or started: wait for the new subscription
        continue;
      }
      // No race with `changed` (that would pile callbacks on a long-lived promise): a stopped
      // subscription rejects its pending `caughtUpTo` (port contract), which ends the wait here.
      const outcome = await sub.caughtUpTo(position).then(
        () => 'reached' as const,
        (err: unknown) => ({ err }),
      );
      if (s.sub !== sub) continue; // rebuilt or stopped meanwhile: look again
      if (outcome === 'reached') return;
      throw outcome.err;
    }
  }

  /** `waitFor` of a runner that does not run the projections: polls the stored checkpoints. */
  private async pollCheckpoints(position: bigint, done: Set<ProjectionState>): Promise<void> {
    for (;;) {
      for (const s of this.states) {
        if (done.has(s)) continue;
        const checkpoint = await this.readStore.getCheckpoint(s.key);
        if (checkpoint !== null && checkpoint >= position) done.add(s);
        else if (await this.noEventOfTypes(s, checkpoint ?? undefined, position)) done.add(s);
      }
      if (done.size === this.states.length) return;
      if (this.phase === 'stopping' || this.phase === 'stopped') throw new ProjectionRunnerStoppedError();
      if (this.phase !== 'idle') {
        // The runner started meanwhile: follow its subscriptions.
        await Promise.all(
          this.states
            .filter((s) => !done.has(s))
            .map(async (s) => {
              await this.waitForState(s, position);
              done.add(s);
            }),
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, this.opts.pollIntervalMs).unref());
    }
  }

  /** Whether the log holds no event of the projection's types in (after, upTo]; scans at most 2 000 events. */
  private async noEventOfTypes(s: ProjectionState, after: bigint | undefined, upTo: bigint): Promise<boolean> {
    const pageSize = 500;
    let cursor = after;
    for (let scanned = 0; scanned < 2_000; scanned += pageSize) {
      const page = await this.eventStore.readAll({ after: cursor, maxCount: pageSize });
      for (const event of page) {
        if (event.position > upTo) return true;
        if (s.types.has(event.type)) return false;
      }
      if (page.length < pageSize) return true; // reached the head (an event <= upTo not yet visible counts as absent)
      cursor = page[page.length - 1]!.position;
    }
    return false;
  }
}

/** Whether `sub` has already handled everything up to `position` (answers without waiting). */
async function isCaughtUpNow(sub: Subscription, position: bigint): Promise<boolean> {
  let reached = false;
  const probe = sub.caughtUpTo(position).then(
    () => {
      reached = true;
    },
    () => undefined,
  );
  await Promise.race([probe, new Promise<void>((resolve) => setImmediate(resolve))]);
  return reached;
}
