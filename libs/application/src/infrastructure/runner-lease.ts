import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DuplicateKeyError, type ReadStore } from '@svc/read-store';
import { currentProcessIdentity, processRuns } from '@svc/config';

/** Collection of the runner's lease and heartbeat in the read store (one document, shared by every process on the same stores). */
export const RUNNER_HEARTBEAT_COLLECTION = 'runner_heartbeats';
/** `_id` of that document. */
export const RUNNER_HEARTBEAT_ID = 'runner';

/** The fields of the runner document that the lease reads and writes (the heartbeat adds its reports). */
export interface RunnerLeaseFields {
  _id: string;
  /** Random id of the holding process's run, new at every start. Absent in documents of older releases. */
  runnerId?: string;
  pid: number;
  host: string;
  /**
   * Who the holder is beyond pid and host, and what it does with the lease, as that holder wrote it: trusted only when
   * its `runnerId` is the document's (an older release taking the document over rewrites the fields above and leaves
   * this one behind). Absent in documents of older releases. See {@link leaseHolderOf}.
   */
  holder?: RunnerLeaseHolder;
  /** When the holder started running the projections and processors, ISO 8601. */
  startedAt: string;
  /** When the holder last wrote the document, ISO 8601 (the holder's wall clock). */
  beatAt: string;
  /** Milliseconds between the holder's beats (`RUNNER_HEARTBEAT_MS` of the holder). */
  intervalMs: number;
  [key: string]: unknown;
}

/**
 * What a lease holder does: `runner`, a service or worker running the projections and processors; `rebuild`,
 * `svc rebuild-projections` rewriting the read models.
 */
export type RunnerLeaseRole = 'runner' | 'rebuild';

/** A holder's identity and role, as it wrote them (see {@link RunnerLeaseFields.holder}). */
export interface RunnerLeaseHolder {
  /** The run that wrote this; the fields count only while it is the document's `runnerId`. */
  runnerId: string;
  /** The holder's pid space (`<boot id>/<pid namespace inode>`, process-identity.ts): processes sharing it judge each other's liveness by pid. Null off Linux. */
  pidSpace: string | null;
  /** The holder's start time in clock ticks since boot, so that a later process reusing its pid is not taken for it. Null off Linux. */
  startTicks: string | null;
  role: RunnerLeaseRole;
}

/**
 * The holder's identity and role as far as the document can be trusted on them: what the holder wrote, or for a
 * document of an older release (or one such a release took over) no pid space, no start time and `runner`.
 */
export function leaseHolderOf(doc: Pick<RunnerLeaseFields, 'runnerId' | 'holder'>): Omit<RunnerLeaseHolder, 'runnerId'> {
  const h = doc.holder;
  return h && doc.runnerId !== undefined && h.runnerId === doc.runnerId ? { pidSpace: h.pidSpace, startTicks: h.startTicks, role: h.role } : { pidSpace: null, startTicks: null, role: 'runner' };
}

/** Another live process holds the lease: this one must not run the projections and processors. */
export class RunnerLeaseHeldError extends Error {
  override readonly name = 'RunnerLeaseHeldError';
}

/** How long a beat counts as fresh: three of the holder's intervals and a second (the same rule as `/api/ready`). */
export function beatIsFresh(doc: Pick<RunnerLeaseFields, 'beatAt' | 'intervalMs'>, now: number): boolean {
  return Math.max(0, now - Date.parse(doc.beatAt)) <= 3 * doc.intervalMs + 1_000;
}

/** Runs of this process that hold a lease now: another service of the same process never takes theirs. */
const HELD_HERE = new Set<string>();

/** The holder as refusals name it. */
export function describeHolder(doc: Pick<RunnerLeaseFields, 'pid' | 'host' | 'runnerId' | 'holder'>): string {
  return leaseHolderOf(doc).role === 'rebuild' ? `svc rebuild-projections (pid ${doc.pid} on host ${doc.host}) is rebuilding the read models on these stores` : `pid ${doc.pid} on host ${doc.host}`;
}

/**
 * The lease that lets exactly one process, over every host sharing the stores, run the projections and processors
 * (README "Production topology"): two would each deliver every webhook and act on every event. It lives in the
 * runner's heartbeat document of the read store, which the holder rewrites every `RUNNER_HEARTBEAT_MS`.
 *
 * - {@link claim}, before any projection or processor starts: free when there is no document, when its beat is
 *   older than three of its holder's intervals and a second, or when its holder was a process of this pid space (this
 *   machine and pid namespace, process-identity.ts) that no longer runs: a restart after a crash takes over at once.
 *   A holder is the same process only with the same pid and start time, so a reused pid, a zombie, or a container's
 *   pid 1 seen from another container with the same host name, never counts as the holder. A fresh beat of another
 *   live process is waited out once (a holder that died on another host stops beating), then refused.
 * - `svc rebuild-projections` holds it too (role `rebuild`) while it rewrites the read models, so that no runner
 *   starts on the shared stores meanwhile, on any host.
 * - Each write is a compare-and-set on the document as last read (its `runnerId`, `pid`, `host`, `beatAt`), or an
 *   insert of a new one (a concurrent insert fails on `_id`), so two processes starting together never both win.
 * - Once taken it is renewed every interval ({@link renew}, also by the heartbeat with its reports). This run loses it
 *   ({@link onLost}) when another process took it over, or when it could not renew it for three intervals and a
 *   second (cut off from the store: another may take over by then). {@link release} removes it at a clean stop, once
 *   the projections and processors have stopped.
 */
export class RunnerLease {
  /** This run's id, written into the document. */
  readonly runnerId = randomUUID();
  readonly pid: number;
  readonly host: string;
  readonly pidSpace: string | null;
  readonly startTicks: string | null;
  readonly role: RunnerLeaseRole;
  private readonly processRuns: (pid: number, startTicks: string | null | undefined) => boolean;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private keepAlive: NodeJS.Timeout | undefined;
  private lastRenewed = 0;
  private lost = false;
  private released = false;
  /** The renewal under way, if any: a release waits for it, so that it cannot write the document back afterwards. */
  private renewing: Promise<unknown> = Promise.resolve();
  /** Called once when this run loses the lease (taken over, or not renewed for three intervals and a second). */
  onLost: (reason: string) => void = () => undefined;

  /**
   * @param intervalMs this process's `RUNNER_HEARTBEAT_MS`, written into the document
   * @param options this process's identity and role (`runner` unless given), its clock, its wait and its look at the
   *   process table (tests stand in other processes with them)
   */
  constructor(
    private readonly readStore: ReadStore,
    private readonly intervalMs: number,
    options: {
      pid?: number;
      host?: string;
      pidSpace?: string | null;
      startTicks?: string | null;
      role?: RunnerLeaseRole;
      processRuns?: (pid: number, startTicks: string | null | undefined) => boolean;
      now?: () => number;
      sleep?: (ms: number) => Promise<void>;
    } = {},
  ) {
    const own = options.pid === undefined ? currentProcessIdentity() : { pidSpace: null, startTicks: null };
    this.pid = options.pid ?? process.pid;
    this.host = options.host ?? hostname();
    this.pidSpace = options.pidSpace !== undefined ? options.pidSpace : own.pidSpace;
    this.startTicks = options.startTicks !== undefined ? options.startTicks : own.startTicks;
    this.role = options.role ?? 'runner';
    this.processRuns = options.processRuns ?? processRuns;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * Takes the lease, writing `fields` (the first beat) with this run's identity.
   * @throws RunnerLeaseHeldError naming the holder when another live process keeps it after one wait.
   * @throws Error when the read store cannot be read or written.
   */
  async claim(fields: Record<string, unknown> = {}): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.collection().findOne({ _id: RUNNER_HEARTBEAT_ID });
      if (current && !this.isFree(current)) {
        const ageMs = Math.max(0, this.now() - Date.parse(current.beatAt));
        if (attempt > 1) {
          throw new RunnerLeaseHeldError(
            leaseHolderOf(current).role === 'rebuild'
              ? `${describeHolder(current)}, its last beat ${(ageMs / 1000).toFixed(1)} s ago: start this process once it has finished`
              : `another process already runs the projections and processors on these stores: ${describeHolder(current)}, ` +
                  `its last beat ${(ageMs / 1000).toFixed(1)} s ago; run one (the worker, or an API with RUN_PROJECTIONS=true), API replicas beside it with RUN_PROJECTIONS=false`,
          );
        }
        // A holder that died on another host stops beating: wait until its beat would be stale, then look again.
        await this.sleep(Math.max(0, 3 * current.intervalMs + 1_000 - ageMs) + 250);
        continue;
      }
      if (await this.write(current, fields)) {
        this.held();
        return;
      }
      // Another process wrote between the read and the write: look again.
      if (attempt >= 5) throw new RunnerLeaseHeldError('the runner lease kept changing while this process tried to take it: another process is starting');
    }
  }

  /**
   * Rewrites the document with `fields` while this run holds the lease.
   * @returns false when another process holds it now (this run's beats went stale and it was taken over).
   */
  async renew(fields: Record<string, unknown>): Promise<boolean> {
    if (this.lost || this.released) return false;
    let kept: boolean;
    try {
      const once = this.renewOnce(fields);
      this.renewing = once.catch(() => undefined);
      kept = await once;
    } catch (err) {
      // A holder cut off from the store must not go on past the point where another may take over.
      if (this.lastRenewed > 0 && this.now() - this.lastRenewed > 3 * this.intervalMs + 1_000) this.lose(`the lease could not be renewed for too long (${(err as Error).message})`);
      throw err;
    }
    if (kept) this.lastRenewed = this.now();
    else if (!this.released) this.lose('another process took the lease over (this one did not renew it in time)');
    return kept;
  }

  private async renewOnce(fields: Record<string, unknown>): Promise<boolean> {
    const result = await this.collection().updateOne({ _id: RUNNER_HEARTBEAT_ID, runnerId: this.runnerId }, { $set: { ...fields, ...this.identity() } });
    if (result.matched > 0) return true;
    // The document is gone (removed by hand, or the store was reset): take it again if nobody else has, unless this
    // run released it meanwhile.
    const current = await this.collection().findOne({ _id: RUNNER_HEARTBEAT_ID });
    if (current && current.runnerId !== this.runnerId) return false;
    if (this.released) return false;
    return this.write(current, fields);
  }

  /** Taken: renewed every interval from now on (the heartbeat adds its reports), so no start-up step lets it go stale. */
  private held(): void {
    this.released = false;
    HELD_HERE.add(this.runnerId);
    this.lastRenewed = this.now();
    this.keepAlive = setInterval(() => void this.renew({}).catch(() => undefined), this.intervalMs);
    this.keepAlive.unref();
  }

  private lose(reason: string): void {
    if (this.lost) return;
    this.lost = true;
    clearInterval(this.keepAlive);
    HELD_HERE.delete(this.runnerId);
    this.onLost(reason);
  }

  /**
   * The process holding the lease now, as the document says, or null when it is free (for tools that must not run
   * beside it, such as `svc rebuild-projections`).
   */
  async liveHolder(): Promise<RunnerLeaseFields | null> {
    const current = await this.collection().findOne({ _id: RUNNER_HEARTBEAT_ID });
    return current && !this.isFree(current) ? current : null;
  }

  /** Removes the document if this run holds it (a clean stop: replicas see at once that no runner is left). */
  async release(): Promise<void> {
    this.released = true;
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    HELD_HERE.delete(this.runnerId);
    // A renewal already sent may land after the removal and, finding no document, write it back: wait for it first.
    await this.renewing;
    await this.collection().deleteMany({ _id: RUNNER_HEARTBEAT_ID, runnerId: this.runnerId });
  }

  private isFree(doc: RunnerLeaseFields): boolean {
    if (doc.runnerId === this.runnerId) return true;
    if (!beatIsFresh(doc, this.now())) return true;
    const holder = leaseHolderOf(doc);
    // Pids mean something only within one pid space. Both known (Linux): compare them. Neither known: the host name
    // stands in. Only one known (a holder of an older release, which may be a container of the same host name with
    // its own pid numbers): not the same, so a live holder is waited out rather than judged by another's pids.
    const samePidSpace = holder.pidSpace && this.pidSpace ? holder.pidSpace === this.pidSpace : !holder.pidSpace && !this.pidSpace && doc.host === this.host;
    if (!samePidSpace) return false;
    // The holder being this very process (same pid, same start): an earlier run of it, such as a restart, unless
    // another service of this process holds the lease now. A holder that recorded no start time while this process
    // knows its own is another process (an older release, perhaps a container's pid 1 like this one). Otherwise this
    // pid space's process table says.
    const thisProcess = doc.pid === this.pid && (this.startTicks ? holder.startTicks === this.startTicks : !holder.startTicks);
    return thisProcess ? !HELD_HERE.has(doc.runnerId ?? '') : !this.processRuns(doc.pid, holder.startTicks);
  }

  /** Compare-and-set against `current` (or insert when there is none). @returns false when another writer came first. */
  private async write(current: RunnerLeaseFields | null, fields: Record<string, unknown>): Promise<boolean> {
    const identity = this.identity();
    // A takeover starts the holder's run anew, unless the fields say when it started.
    const next = { startedAt: identity.beatAt, ...fields, ...identity };
    if (!current) {
      try {
        await this.collection().insertOne({ ...next, _id: RUNNER_HEARTBEAT_ID });
        return true;
      } catch (err) {
        if (err instanceof DuplicateKeyError) return false;
        throw err;
      }
    }
    const filter = { _id: RUNNER_HEARTBEAT_ID, pid: current.pid, host: current.host, beatAt: current.beatAt, ...(current.runnerId ? { runnerId: current.runnerId } : {}) };
    const result = await this.collection().updateOne(filter, { $set: next });
    return result.matched > 0;
  }

  private identity(): Required<Pick<RunnerLeaseFields, 'runnerId' | 'pid' | 'host' | 'holder' | 'beatAt' | 'intervalMs'>> {
    return {
      runnerId: this.runnerId,
      pid: this.pid,
      host: this.host,
      holder: { runnerId: this.runnerId, pidSpace: this.pidSpace, startTicks: this.startTicks, role: this.role },
      beatAt: new Date(this.now()).toISOString(),
      intervalMs: this.intervalMs,
    };
  }

  private collection() {
    return this.readStore.collection<RunnerLeaseFields>(RUNNER_HEARTBEAT_COLLECTION);
  }
}
