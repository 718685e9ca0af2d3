import type { EventStore } from '@svc/event-store';
import { ProjectionRunnerStoppedError } from './projection';
import type { ReadStore } from './read-store.port';

/** What the follower needs of a projection: its checkpoint key and the event types it handles. */
export interface FollowedProjection {
  readonly key: string;
  readonly types: ReadonlySet<string>;
}

/** Where the runner that owns the follower stands: `idle` keeps polling, `running` hands the waits over. */
export type FollowerPhase = 'idle' | 'running' | 'stopped';

/** How a wait ended: every projection reached the position, or the runner started and follows its own subscriptions. */
export type FollowOutcome = 'reached' | 'handover';

interface Waiter<S> {
  position: bigint;
  done: Set<S>;
  resolve: (outcome: FollowOutcome) => void;
  reject: (err: unknown) => void;
}

/** Events read from the log per page, and pages per round (a round reads at most 2,000 events). */
const PAGE = 500;
const PAGES_PER_ROUND = 4;

/**
 * Read-your-writes in a process that does not run the projections (an API replica started with
 * `RUN_PROJECTIONS=false`, beside a worker that does): `ProjectionRunner.waitFor` there is answered from the
 * checkpoints the worker saves in the read store.
 *
 * A projection has applied the log up to position P when its checkpoint is at P or beyond, or when the log holds
 * no event of its types between its checkpoint and P. One polling loop serves every pending wait of the
 * process: each round reads all checkpoints in one query and the log only past what earlier rounds read (at most
 * 2,000 events), remembering, per projection, the positions of its events not yet under its checkpoint. The cost
 * of a round is therefore independent of the number of waiters, and each event is read once, not once per wait
 * and projection. The loop runs only while someone waits, every `intervalMs`.
 *
 * A checkpoint that moves back (a projection rebuilt by the worker) makes the follower read the log again from
 * the lowest checkpoint. An event appended at or below P but not yet visible to this process's reads counts as
 * absent, as it would for a reader of the read model.
 */
export class CheckpointFollower<S extends FollowedProjection> {
  private readonly waiters = new Set<Waiter<S>>();
  private looping = false;
  /** Whether `scanned` holds where the log was read up to (false: read from the lowest checkpoint next). */
  private positioned = false;
  /** Log position read up to, inclusive (undefined: from the start of the log). */
  private scanned: bigint | undefined;
  private checkpoints = new Map<S, bigint | null>();
  /** Per projection: positions of its events read from the log and above its checkpoint, ascending. */
  private readonly pending = new Map<S, bigint[]>();

  constructor(
    private readonly eventStore: EventStore,
    private readonly readStore: ReadStore,
    private readonly projections: readonly S[],
    private readonly intervalMs: number,
    private readonly phase: () => FollowerPhase,
  ) {}

  /**
   * Resolves `reached` once every projection has applied the log up to `position`, adding each to `done` as it
   * gets there (so that a timeout can name the laggards), or `handover` when the runner has started meanwhile.
   * @throws ProjectionRunnerStoppedError when the runner stops; the read store's or event store's error when a
   *   round fails (every pending wait rejects with it).
   */
  wait(position: bigint, done: Set<S>): Promise<FollowOutcome> {
    return new Promise<FollowOutcome>((resolve, reject) => {
      this.waiters.add({ position, done, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.looping) return;
    this.looping = true;
    void this.loop().finally(() => {
      this.looping = false;
      if (this.waiters.size > 0) this.kick();
    });
  }

  private async loop(): Promise<void> {
    while (this.waiters.size > 0) {
      const phase = this.phase();
      if (phase !== 'idle') {
        this.settleAll((w) => (phase === 'running' ? w.resolve('handover') : w.reject(new ProjectionRunnerStoppedError())));
        return;
      }
      try {
        await this.round();
      } catch (err) {
        this.positioned = false;
        this.settleAll((w) => w.reject(err));
        return;
      }
      if (this.waiters.size === 0) return;
      await new Promise((resolve) => setTimeout(resolve, this.intervalMs).unref());
    }
  }

  private settleAll(settle: (w: Waiter<S>) => void): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const w of waiters) settle(w);
  }

  /** Reads the checkpoints and the new part of the log, then settles the waits that are reached. */
  private async round(): Promise<void> {
    const stored = new Map((await this.readStore.listCheckpoints()).map((c) => [c.projection, c.position] as const));
    const checkpoints = new Map<S, bigint | null>();
    for (const s of this.projections) {
      const now = stored.get(s.key) ?? null;
      const before = this.checkpoints.get(s);
      if (before !== undefined && before !== null && (now === null || now < before)) this.positioned = false; // rebuilt
      checkpoints.set(s, now);
    }
    this.checkpoints = checkpoints;
    const lowest = this.lowestCheckpoint();
    if (!this.positioned) {
      this.pending.clear();
      this.scanned = lowest;
      this.positioned = true;
    } else if (lowest !== undefined && (this.scanned === undefined || lowest > this.scanned)) {
      this.scanned = lowest; // every projection has applied the log up to there: nothing below is worth reading
    }
    for (const [s, positions] of this.pending) {
      const checkpoint = checkpoints.get(s) ?? null;
      if (checkpoint === null) continue;
      let applied = 0;
      while (applied < positions.length && positions[applied]! <= checkpoint) applied++;
      if (applied > 0) positions.splice(0, applied);
    }
    const atHead = await this.readAhead();
    for (const w of [...this.waiters]) {
      for (const s of this.projections) {
        if (!w.done.has(s) && this.reached(s, w.position, atHead)) w.done.add(s);
      }
      if (w.done.size === this.projections.length) {
        this.waiters.delete(w);
        w.resolve('reached');
      }
    }
  }

  /** Reads up to 2,000 events past `scanned`; @returns whether the log's head was reached. */
  private async readAhead(): Promise<boolean> {
    for (let page = 0; page < PAGES_PER_ROUND; page++) {
      const events = await this.eventStore.readAll({ after: this.scanned, maxCount: PAGE });
      for (const event of events) {
        for (const s of this.projections) {
          if (!s.types.has(event.type)) continue;
          const checkpoint = this.checkpoints.get(s) ?? null;
          if (checkpoint !== null && event.position <= checkpoint) continue;
          let positions = this.pending.get(s);
          if (!positions) this.pending.set(s, (positions = []));
          positions.push(event.position);
        }
        this.scanned = event.position;
      }
      if (events.length < PAGE) return true;
    }
    return false;
  }

  private reached(s: S, position: bigint, atHead: boolean): boolean {
    const checkpoint = this.checkpoints.get(s) ?? null;
    if (checkpoint !== null && checkpoint >= position) return true;
    const next = this.pending.get(s)?.[0];
    if (next !== undefined) return next > position;
    return atHead || (this.scanned !== undefined && this.scanned >= position);
  }

  /** The lowest checkpoint of all projections; undefined when one has none (it has applied nothing yet). */
  private lowestCheckpoint(): bigint | undefined {
    let lowest: bigint | undefined;
    for (const checkpoint of this.checkpoints.values()) {
      if (checkpoint === null) return undefined;
      if (lowest === undefined || checkpoint < lowest) lowest = checkpoint;
    }
    return lowest;
  }
}
