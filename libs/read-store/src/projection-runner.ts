import type { EventIntegrityError, EventStore, StoredEvent } from '@svc/event-store';
import {
  ProjectionFaultedError,
  ProjectionLagError,
  ProjectionRunnerStoppedError,
  isEarlierVersionKey,
  type Projection,
  type ProjectionFault,
  type ProjectionRunnerLogger,
  type ProjectionRunnerOptions,
} from './projection';
import { BatchApplier, errMessage } from './projection-batches';
import { ensureIndexes, indexWhenCaughtUp, prepareIndexes, recordIntegrityFault } from './projection-maintenance';
import { replayTogether } from './projection-replay';
import { CheckpointFollower } from './checkpoint-follower';
import { isCaughtUpNow, yieldToEventLoop } from './projection-polling';
import { deferred, ProjectionState } from './projection-state';
import type { ReadStore } from './read-store.port';


type Phase = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped';

/**
 * Runs projections durably: one catch-up subscription per projection on the event store, from its
 * checkpoint (`<name>.v<version>` in the read store), writing its read models into the read store.
 *
 * Delivered events are applied in batches of up to `batchSize` (1000): a full batch at once, a partial
 * one on the next turn of the event loop. Each batch runs inside one read-store transaction when the
 * store has `transaction` (SQLite), its checkpoint saved in the same transaction; otherwise events are
 * written one after the other and the checkpoint follows. A failing batch is rolled back, logged and
 * retried with backoff, never skipped; after 3 failed attempts the projection is listed by `faults()`.
 * A stored event that fails its integrity check (schema or hash) stops the projection's subscription
 * for good: the runner logs an error naming the projection, stream, position and reason, `faults()`
 * lists it, and `waitFor` rejects with ProjectionFaultedError.
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
  /** The background removal of earlier projection versions' read models (`retireEarlierVersions`); never rejects. */
  private retiring: Promise<void> | undefined;
  private readonly batches: BatchApplier;
  private readonly follower: CheckpointFollower<ProjectionState>;

  /**
   * @param projections distinct names; each needs a positive integer version and at least one event type, and
   *   retires no collection a projection of the list writes.
   * @throws TypeError on an invalid projection list or option.
   */
  constructor(
    private readonly eventStore: EventStore,
    private readonly readStore: ReadStore,
    projections: readonly Projection[],
    private readonly logger?: ProjectionRunnerLogger,
    options: ProjectionRunnerOptions = {},
  ) {
    this.opts = {
      batchSize: options.batchSize ?? 1000,
      idleCheckMs: options.idleCheckMs ?? 1000,
      waitForTimeoutMs: options.waitForTimeoutMs ?? 10_000,
      pollIntervalMs: options.pollIntervalMs ?? 10,
      retryDelayMs: options.retryDelayMs ?? 100,
      replayCommitEvents: options.replayCommitEvents ?? options.batchSize ?? 1000,
      replayReadAhead: options.replayReadAhead ?? false,
    };
    if (!(Number.isSafeInteger(this.opts.batchSize) && this.opts.batchSize >= 1)) throw new TypeError('batchSize must be a positive integer');
    if (!(Number.isSafeInteger(this.opts.replayCommitEvents) && this.opts.replayCommitEvents >= 1)) throw new TypeError('replayCommitEvents must be a positive integer');
    this.batches = new BatchApplier(readStore, this.opts, logger);
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
    const written = new Set(projections.flatMap((p) => Object.keys(p.indexes)));
    for (const p of projections) {
      const kept = (p.retiredCollections ?? []).filter((name) => written.has(name));
      if (kept.length > 0) throw new TypeError(`projection ${p.name}: retired collection ${kept.join(', ')} is written by a projection`);
    }
    this.follower = new CheckpointFollower(eventStore, readStore, this.states, this.opts.pollIntervalMs, () =>
      this.phase === 'idle' ? 'idle' : this.phase === 'stopping' || this.phase === 'stopped' ? 'stopped' : 'running',
    );
  }

  /** Names of the projections, in the order given. */
  get projectionNames(): string[] {
    return this.states.map((s) => s.projection.name);
  }

  /**
   * Projections that stopped on a bad stored event, or whose handler keeps failing (see the class
   * comment); empty when all is well. Each names the projection's checkpoint key, the stream, the log
   * position and the reason.
   */
  faults(): ProjectionFault[] {
    return this.states.flatMap((s) => s.faults());
  }

  /**
   * Reads every projection's checkpoint, ensures its indexes and subscribes it from there; the projections
   * without a checkpoint replay the whole log together in the background, from one read, get their indexes at its
   * end and are subscribed then (as in `rebuildTogether`).
   * Resolves once every subscription with a checkpoint is running (not once caught up: use `waitFor`).
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
      const fresh: ProjectionState[] = [];
      for (const s of this.states) {
        await s.serialize(async () => {
          const checkpoint = (await this.readStore.getCheckpoint(s.key)) ?? undefined;
          s.reset(checkpoint);
          if (checkpoint === undefined) {
            fresh.push(s);
          } else {
            await ensureIndexes(this.readStore, s);
            this.subscribe(s, checkpoint);
          }
        });
      }
      this.phase = 'running';
      this.retireEarlierVersions();
      // Nothing applied yet (a first launch on an existing log, a new projection version): they replay the log
      // together in the background, as a rebuild does, and build their indexes at its end.
      if (fresh.length > 0) {
        void this.holdingLocks(fresh, () => this.replayThenSubscribe(fresh)).catch((err: unknown) =>
          this.logger?.error(`the first replay of projections ${fresh.map((s) => s.key).join(', ')} failed: ${errMessage(err)}`, err),
        );
      }
      if (this.opts.idleCheckMs > 0) {
        this.idleTimer = setInterval(() => void this.idleCheck(), this.opts.idleCheckMs);
        this.idleTimer.unref();
      }
    } catch (err) {
      this.logger?.error(`projection runner failed to start: ${errMessage(err)}`, err);
      this.phase = 'stopping';
      await Promise.all(this.states.map((s) => s.serialize(() => this.halt(s, false))));
      this.phase = 'stopped';
      throw err;
    } finally {
      this.starting = undefined;
    }
  }

  /**
   * Stops every subscription, applies the events already delivered (one attempt) and saves their
   * checkpoints. Pending `waitFor` calls reject with ProjectionRunnerStoppedError. Does not close the stores.
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
      await Promise.all(this.states.map((s) => s.serialize(() => this.halt(s, true))));
      await this.retiring; // a removal under way ends before the caller closes the store
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
   * @throws ProjectionLagError after the timeout; ProjectionRunnerStoppedError if the runner stops;
   *   ProjectionFaultedError when a projection stopped on a bad stored event.
   */
  async waitFor(position: bigint, options: { timeoutMs?: number } = {}): Promise<void> {
    if (position < 0n) return;
    if (this.phase === 'stopping' || this.phase === 'stopped') throw new ProjectionRunnerStoppedError();
    const timeoutMs = options.timeoutMs ?? this.opts.waitForTimeoutMs;
    const done = new Set<ProjectionState>();
    const work =
      this.phase === 'idle'
        ? this.pollCheckpoints(position, done)
        : Promise.all(this.states.map((s) => this.waitForState(s, position).then(() => void done.add(s))));
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
   * Rebuilds one projection: {@link rebuildTogether} with its name alone. Its subscription is stopped, its
   * checkpoint deleted and its collections dropped; then it replays the log (`waitFor` waits for that replay and
   * the index build after it), and is subscribed again. Readers see the read model empty, then filling, meanwhile.
   * When the runner is not running, only the reset is done (the next `start()` replays).
   * @throws Error for an unknown name; the read store's error if the reset fails (the projection is then
   *   resubscribed from its stored checkpoint, if any).
   */
  rebuild(name: string): Promise<void> {
    return this.rebuildTogether([name]);
  }

  /**
   * Rebuilds several projections with one read of the log (what `svc rebuild-projections` runs): each is reset
   * (subscription stopped, checkpoint deleted, collections dropped), then the log up to its
   * head of that moment is read once, page by page, and every page is applied by all of them in one read-store
   * transaction (projection-replay.ts). Their indexes are built after that replay, then each is subscribed from its
   * checkpoint for the events appended meanwhile. Resolves once they are subscribed again; `waitFor` waits for the
   * replay meanwhile. A page that cannot be read or applied ends the shared replay: each projection then goes on
   * from its checkpoint on its own subscription, which reports a bad stored event or retries a failing handler as
   * usual. When the runner is not running, only the resets are done: the next `start()` replays them together
   * and builds their indexes after the replay.
   * @throws Error for an unknown name (nothing is reset); the read store's error if a reset fails (those already
   *   stopped are then resubscribed from their stored checkpoints).
   */
  async rebuildTogether(names: readonly string[]): Promise<void> {
    const chosen = [...new Set(names)].map((name) => {
      const s = this.byName.get(name);
      if (!s) throw new Error(`unknown projection ${JSON.stringify(name)}`);
      return s;
    });
    await this.starting?.catch(() => undefined);
    await this.holdingLocks(chosen, async () => {
      const resubscribe = this.phase === 'running';
      try {
        for (const s of chosen) {
          this.logger?.warn(`rebuilding projection ${s.key}`);
          await this.halt(s, false);
          // Checkpoint first: a crash between the two steps then replays into the old documents (harmless,
          // handlers are idempotent) instead of resuming over emptied collections.
          await this.readStore.deleteCheckpoint(s.key);
          s.reset(undefined);
          for (const collection of s.collections()) await this.readStore.collection(collection).drop();
        }
      } catch (err) {
        this.logger?.error(`rebuild of projections ${chosen.map((s) => s.key).join(', ')} failed: ${errMessage(err)}`, err);
        // Those already stopped go on from what their stored checkpoint says.
        for (const s of chosen) {
          if (!resubscribe || this.phase !== 'running' || s.sub) continue;
          const checkpoint = (await this.readStore.getCheckpoint(s.key).catch(() => null)) ?? undefined;
          s.reset(checkpoint);
          this.subscribe(s, checkpoint);
        }
        throw err;
      }
      // Not running: the next `start()` finds them without a checkpoint, replays them together and builds their indexes.
      if (resubscribe && this.phase === 'running') await this.replayThenSubscribe(chosen);
    });
  }

  /** Runs `step` while holding the lock of every state of `states` (a stop or rebuild of one of them waits). */
  private async holdingLocks(states: readonly ProjectionState[], step: () => Promise<void>): Promise<void> {
    const release = deferred();
    const holding = (s: ProjectionState) =>
      new Promise<void>((entered) => {
        void s.serialize(() => {
          entered();
          return release.promise;
        });
      });
    await Promise.all(states.map(holding));
    try {
      await step();
    } finally {
      release.resolve();
    }
  }

  /**
   * The shared replay (projection-replay.ts) of projections without a checkpoint and without a subscription, up to
   * the log head of now; then their indexes, then each one's subscription from where the replay got. When the
   * replay stopped early, each one's own subscription goes on from there and builds the indexes once caught up.
   * The caller holds their locks. Nothing is subscribed when the runner stops or one of them is reset meanwhile.
   */
  private async replayThenSubscribe(chosen: readonly ProjectionState[]): Promise<void> {
    for (const s of chosen) await prepareIndexes(this.readStore, s);
    const head = await this.eventStore.headPosition();
    const generations = chosen.map((s) => s.generation);
    const unchanged = () => this.phase === 'running' && chosen.every((s, i) => s.generation === generations[i]);
    const reached = await replayTogether(this.eventStore, this.readStore, chosen, head, {
      pageSize: this.opts.batchSize,
      commitEvents: this.opts.replayCommitEvents,
      readAhead: this.opts.replayReadAhead,
      proceed: unchanged,
      logger: this.logger,
    });
    if (!unchanged()) return;
    for (const s of chosen) {
      if (reached === head) {
        await ensureIndexes(this.readStore, s);
        this.subscribe(s, reached);
      } else {
        this.subscribe(s, reached);
        s.indexing = indexWhenCaughtUp(this.readStore, s, s.generation, head, this.logger);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------

  private subscribe(s: ProjectionState, after: bigint | undefined): void {
    const generation = s.generation;
    s.fault = undefined;
    s.handlerFault = undefined;
    s.halting = false;
    const handler = async (event: StoredEvent): Promise<void> => {
      if (generation !== s.generation) return; // a stopped subscription: never touch the store
      s.buffer.push(event);
      s.delivered = event.position;
      if (s.halting) {
        await s.haltGate.promise; // parked until `halt` has asked the subscription to stop
      } else if (s.buffer.length >= this.opts.batchSize) {
        await this.batches.drain(s, generation);
        await yieldToEventLoop(); // a long catch-up lets HTTP requests through between batches
      } else {
        this.batches.scheduleDrain(s, generation);
      }
    };
    const onFailure = (err: EventIntegrityError) => recordIntegrityFault(s, generation, err, this.logger);
    s.setSub(this.eventStore.subscribeToAll(handler, { after, eventTypes: s.projection.eventTypes, onFailure }));
    this.logger?.[this.logger.info ? 'info' : 'log']?.(
      `projection ${s.key} subscribed ${after === undefined ? 'from the start' : `after position ${String(after)}`}`,
    );
  }

  /**
   * Stops the subscription of `s`. With `apply`, the events already delivered are applied first (one
   * attempt: a failing batch is left to the replay after restart); without, they are dropped.
   */
  private async halt(s: ProjectionState, apply: boolean): Promise<void> {
    const sub = s.sub;
    s.halting = true; // from here a delivered event is buffered and its delivery parked
    const wake = s.wake;
    s.wake = deferred();
    wake.resolve();
    // A caught-up projection saves the log head as its checkpoint on stop, so that the next start does
    // not scan again the events of other types it skipped (the idle check does the same while running).
    const head = apply && sub && !s.fault ? await this.eventStore.headPosition().catch(() => undefined) : undefined;
    const caughtUp = head !== undefined && sub !== undefined && (await isCaughtUpNow(sub, head));
    if (!apply) s.generation++;
    s.setSub(undefined);
    const stopping = sub?.stop();
    const gate = s.haltGate;
    s.haltGate = deferred();
    gate.resolve();
    await stopping;
    if (apply) await this.batches.drain(s, s.generation);
    if (caughtUp && s.buffer.length === 0 && !s.handlerFault && (s.applied === undefined || s.applied < head)) {
      await this.readStore.saveCheckpoint(s.key, head).then(
        () => s.markApplied(head),
        (err: unknown) => this.logger?.warn(`saving the checkpoint of projection ${s.key} failed: ${errMessage(err)}`, err),
      );
    }
    s.generation++;
    await s.applying;
    s.buffer = [];
    s.notify();
    await s.indexing;
  }

  /**
   * Moves the checkpoint of caught-up projections to the log head, over the events they skipped.
   * Only when the subscription has handled everything up to the head and nothing waits to be applied.
   */
  private async idleCheck(): Promise<void> {
    if (this.idleBusy || this.phase !== 'running') return;
    this.idleBusy = true;
    try {
      const head = await this.eventStore.headPosition();
      for (const s of this.states) {
        const sub = s.sub;
        if (!sub || s.fault || (s.applied !== undefined && s.applied >= head) || s.buffer.length > 0) continue;
        const generation = s.generation;
        if (!(await isCaughtUpNow(sub, head))) continue;
        s.applying = s.applying.then(async () => {
          if (generation !== s.generation || s.buffer.length > 0 || (s.applied !== undefined && s.applied >= head)) return;
          try {
            await this.readStore.saveCheckpoint(s.key, head);
            s.markApplied(head);
          } catch (err) {
            this.logger?.warn(`saving the checkpoint of projection ${s.key} failed: ${errMessage(err)}`, err);
          }
        });
        await s.applying;
      }
    } catch (err) {
      this.logger?.warn(`projection idle check failed: ${errMessage(err)}`, err);
    } finally {
      this.idleBusy = false;
    }
  }

  private async waitForState(s: ProjectionState, position: bigint): Promise<void> {
    await this.waitApplied(s, position);
    await s.indexing; // a rebuilt projection is ready once its indexes are built
  }

  private async waitApplied(s: ProjectionState, position: bigint): Promise<void> {
    for (;;) {
      if (this.phase === 'stopping' || this.phase === 'stopped') throw new ProjectionRunnerStoppedError();
      if (s.fault) throw new ProjectionFaultedError(s.fault, position);
      const sub = s.sub;
      if (!sub) {
        await s.changed.promise; // being rebuilt or started: wait for the new subscription
        continue;
      }
      // A stopped or failed subscription rejects its pending `caughtUpTo` (port contract).
      const outcome = await sub.caughtUpTo(position).then(
        () => 'reached' as const,
        (err: unknown) => ({ err }),
      );
      if (s.sub !== sub) continue; // rebuilt or stopped meanwhile: look again
      if (outcome !== 'reached') {
        if (s.fault) throw new ProjectionFaultedError(s.fault, position);
        throw outcome.err;
      }
      // Every event up to `position` is delivered; wait until the batches holding them are applied.
      const target = s.delivered;
      if (target === undefined || (s.applied !== undefined && s.applied >= target)) return;
      await s.whenApplied(target);
      if (s.sub === sub && s.applied !== undefined && s.applied >= target) return;
    }
  }

  /**
   * In the background: for each projection an earlier version of which left its checkpoint, waits until this
   * version has applied the log up to the current head, then removes its `retiredCollections` and the earlier
   * versions' checkpoints (in that order: a crash between them repeats the removal at the next start). Stopping
   * the runner meanwhile leaves both for the next start; any other failure is logged.
   */
  private retireEarlierVersions(): void {
    const retire = async () => {
      const stored = (await this.readStore.listCheckpoints()).map((c) => c.projection);
      const due = this.states
        .map((s) => ({ s, earlier: stored.filter((key) => isEarlierVersionKey(key, s.projection)) }))
        .filter(({ earlier }) => earlier.length > 0);
      if (due.length === 0) return;
      const head = await this.eventStore.headPosition();
      for (const { s, earlier } of due) {
        await this.waitForState(s, head);
        const collections = s.projection.retiredCollections ?? [];
        for (const name of collections) await this.readStore.removeCollection(name);
        for (const key of earlier) await this.readStore.deleteCheckpoint(key);
        this.logger?.[this.logger.info ? 'info' : 'log']?.(
          `projection ${s.key} retired ${earlier.join(', ')}` + (collections.length > 0 ? ` and removed ${collections.join(', ')}` : ''),
        );
      }
    };
    this.retiring = retire().catch((err: unknown) => {
      if (err instanceof ProjectionRunnerStoppedError) return;
      this.logger?.warn(`retiring earlier projection versions failed: ${errMessage(err)}`, err);
    });
  }

  /** Waits of a runner that was never started: answered from the stored checkpoints (see CheckpointFollower). */
  private async pollCheckpoints(position: bigint, done: Set<ProjectionState>): Promise<void> {
    if ((await this.follower.wait(position, done)) === 'handover') {
      await Promise.all(this.states.filter((s) => !done.has(s)).map((s) => this.waitForState(s, position).then(() => void done.add(s))));
    }
  }

}
