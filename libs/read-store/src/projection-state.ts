/**
 * Mutable state of one projection inside the runner (internal to the library): its subscription, the
 * events delivered but not yet applied, the applied and saved positions with their waiters, faults.
 */
import type { StoredEvent, Subscription } from '@svc/event-store';
import { checkpointKey, type Projection, type ProjectionFault } from './projection';
import type { Collection, Doc, ReadStore } from './read-store.port';

export interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

export function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

export class ProjectionState {
  readonly key: string;
  readonly types: ReadonlySet<string>;
  /** Bumped whenever the subscription is stopped (stop, rebuild): stale callbacks compare it. */
  generation = 0;
  sub: Subscription | undefined;
  /** Resolved (and replaced) whenever `sub` changes or a fault is recorded, to wake `waitFor`. */
  changed = deferred();
  /** Events delivered by the subscription and not yet applied, in log order. */
  buffer: StoredEvent[] = [];
  /** Position of the last event delivered into `buffer` in this generation. */
  delivered: bigint | undefined;
  /** Highest position applied (or skipped while caught up) and checkpointed. */
  applied: bigint | undefined;
  /** Chain of batch applications and checkpoint moves (never rejects). */
  applying: Promise<void> = Promise.resolve();
  /** Whether a drain is scheduled for the next turn of the event loop. */
  drainScheduled = false;
  /** Set while the subscription is being stopped: retries give up instead of sleeping. */
  halting = false;
  /** Ends a retry's sleep early (stop, rebuild). */
  wake = deferred();
  /** Releases a delivery parked while the subscription is being stopped. */
  haltGate = deferred();
  /** The subscription stopped on a bad stored event. */
  fault: ProjectionFault | undefined;
  /** The handler keeps failing on an event (cleared once it applies). */
  handlerFault: ProjectionFault | undefined;
  /** The index build that follows a rebuild's replay (never rejects; resolved when none runs). */
  indexing: Promise<void> = Promise.resolve();
  /** Chain of start/stop/rebuild steps of this projection (never rejects). */
  lock: Promise<void> = Promise.resolve();
  /** Collections the handler opened that `indexes` does not declare (warned once, dropped on rebuild). */
  readonly undeclared = new Set<string>();
  readonly store: ReadStore;
  private waiters: { position: bigint; resolve: () => void }[] = [];
  /** The handler's view of the last transaction store seen (the SQLite store hands out the same one each time). */
  private txView: { inner: ReadStore; scoped: ReadStore } | undefined;

  constructor(
    readonly projection: Projection,
    private readonly readStore: ReadStore,
    private readonly onUndeclared: (state: ProjectionState, collection: string) => void,
  ) {
    this.key = checkpointKey(projection);
    this.types = new Set(projection.eventTypes);
    this.store = scopedStore(readStore, this, onUndeclared);
  }

  /** The handler's view of `store`: of the read store itself, or of the store a transaction's work received. */
  storeFor(store: ReadStore): ReadStore {
    if (store === this.readStore) return this.store;
    if (this.txView?.inner !== store) this.txView = { inner: store, scoped: scopedStore(store, this, this.onUndeclared) };
    return this.txView.scoped;
  }

  setSub(sub: Subscription | undefined): void {
    this.sub = sub;
    this.notify();
  }

  /** Wakes everything waiting on this projection (`waitFor` re-examines the state). */
  notify(): void {
    const old = this.changed;
    this.changed = deferred();
    old.resolve();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.resolve();
  }

  /** Records that everything up to `position` is applied and resolves the waiters it satisfies. */
  markApplied(position: bigint): void {
    if (this.applied !== undefined && position <= this.applied) return;
    this.applied = position;
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (w.position <= position) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  /** Resolves once `position` is applied, or when `notify()` runs (the caller then looks again). */
  whenApplied(position: bigint): Promise<void> {
    if (this.applied !== undefined && this.applied >= position) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ position, resolve }));
  }

  /** Forgets everything of the current subscription (after it stopped). */
  reset(position: bigint | undefined): void {
    this.buffer = [];
    this.delivered = undefined;
    this.applied = position;
    this.notify();
  }

  collections(): string[] {
    return [...new Set([...Object.keys(this.projection.indexes), ...this.undeclared])];
  }

  faults(): ProjectionFault[] {
    if (this.fault) return [this.fault];
    return this.handlerFault ? [this.handlerFault] : [];
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
 * undeclared ones); checkpoints, transactions and `close` are the runner's business.
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
    removeCollection: forbidden('removeCollection'),
    ping: () => inner.ping(),
    close: forbidden('close'),
  };
}
