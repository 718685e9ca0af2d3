import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { CLOCK, type Clock } from '@svc/application';
import { currentProcessIdentity, processRuns } from '@svc/config';
import { DomainError } from '@svc/domain';
import { DuplicateKeyError, READ_STORE, type ReadStore } from '@svc/read-store';

/** Collection of stored idempotent responses in the read store (shared by every API replica). */
export const IDEMPOTENCY_COLLECTION = 'idempotency_keys';

/** How long a response is kept and replayed (spec §8: 24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/**
 * How long a request holds its key while it runs. A request that waits on a key held longer (its process died)
 * takes the key over and runs itself. Longer than any request the API answers (a submit waits at most 30 s).
 */
export const IDEMPOTENCY_LEASE_MS = 120_000;

/** A response as it is stored and replayed: status, the headers a client needs, and the body's exact text. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface IdempotencyDoc {
  _id: string;
  fingerprint: string;
  state: 'pending' | 'done';
  /** The request holding the key while it runs. */
  owner: string;
  /** Unix milliseconds: the holder's lease ends. */
  lockedUntil: number;
  /** Unix milliseconds: the row is forgotten (24 h after the response was stored). */
  expiresAt: number;
  /** Unix milliseconds: the row was made, by the key's first run (kept when another request takes the key over). */
  createdAt?: number;
  /** The process running the holder (pid space, pid, start time): a waiting request of the same pid space takes over from a dead one at once. */
  process?: { pidSpace: string | null; pid: number; startTicks: string | null };
  /**
   * Given up without a response (a 5xx): the next request with the key runs at once, as the same run (`createdAt`
   * kept), so that it finds what this one recorded before it failed; a different request with the key runs anew.
   */
  released?: boolean;
  response?: StoredResponse;
  [key: string]: unknown;
}

/** The right to run a request under a key, until it is completed or released. */
export interface IdempotencyClaim {
  id: string;
  owner: string;
  /**
   * Names the claimed row's run of the request, the same for a request that takes the key over from a holder that
   * died: what the run creates may be named from it, so that the retry finds what the dead run recorded.
   */
  run: string;
}

/** This process, as claim rows name their holder's. */
const OWN_PROCESS = (() => {
  const own = currentProcessIdentity();
  return { pidSpace: own.pidSpace, pid: process.pid, startTicks: own.startTicks };
})();

/** Run the request under `claim`, or answer `response`, stored in the row `rowId` (the claim's `id` when it ran). */
export type IdempotencyOutcome = { kind: 'execute'; claim: IdempotencyClaim } | { kind: 'replay'; response: StoredResponse; rowId: string };

/**
 * Stored responses of authenticated writes sent with `Idempotency-Key` (spec §7 rule 4, §8 "Idempotency key",
 * docs/api.md "Idempotency"). One row per caller scope and key (`_id` is the SHA-256 of both): the first request
 * inserts it as `pending` (the insert is the lock: a unique `_id` in the shared read store, so across replicas
 * too), runs, then stores its response; a request with the same key waits for it and replays that response.
 */
@Injectable()
export class IdempotencyStore implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Idempotency');
  /** Keys claimed by this process: waiters here are woken when they settle, without polling the store. */
  private readonly local = new Map<string, { settled: Promise<void>; settle: () => void }>();
  private cleanup: NodeJS.Timeout | undefined;

  constructor(
    @Inject(READ_STORE) private readonly store: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.rows().ensureIndex({ fields: { expiresAt: 1 } });
    this.cleanup = setInterval(() => void this.expire().catch((err: Error) => this.logger.warn(`expiring stored responses failed: ${err.message}`)), 600_000);
    this.cleanup.unref();
  }

  onModuleDestroy(): void {
    if (this.cleanup) clearInterval(this.cleanup);
  }

  /** The row id of a key: SHA-256 of the caller scope and the key (hex). */
  static idOf(scope: string, key: string): string {
    return createHash('sha256').update(scope).update('\n').update(key).digest('hex');
  }

  /**
   * Claims `key` for the request of `fingerprint`, or answers the response stored under it. A request holding
   * the key is waited for (at most its lease) and then replayed.
   * @throws DomainError idempotency_key_reused (422) when the key was used for another request.
   */
  async begin(scope: string, key: string, fingerprint: string): Promise<IdempotencyOutcome> {
    const id = IdempotencyStore.idOf(scope, key);
    let pollMs = 10;
    for (;;) {
      const now = this.clock.now().getTime();
      const owner = randomUUID();
      try {
        await this.rows().insertOne({ _id: id, fingerprint, state: 'pending', owner, lockedUntil: now + IDEMPOTENCY_LEASE_MS, expiresAt: now + IDEMPOTENCY_TTL_MS, createdAt: now, process: OWN_PROCESS });
        return { kind: 'execute', claim: this.hold(id, owner, now) };
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
      }
      const row = await this.rows().findOne({ _id: id });
      if (!row) continue;
      if (row.expiresAt <= now) {
        await this.rows().deleteMany({ _id: id, expiresAt: row.expiresAt });
        continue;
      }
      if (row.fingerprint !== fingerprint) {
        // A key given up without a response belongs to no answer: another request may have it.
        if (row.released && row.state === 'pending') {
          await this.rows().deleteMany({ _id: id, owner: row.owner, released: true });
          continue;
        }
        throw new DomainError('idempotency_key_reused', 'Idempotency-Key: this key was used for a different request (method, route, path parameters or body)');
      }
      if (row.state === 'done' && row.response) return { kind: 'replay', response: row.response, rowId: id };
      if ((row.released || row.lockedUntil <= now || holderDied(row)) && (await this.takeOver(row, owner, now))) return { kind: 'execute', claim: this.hold(id, owner, row.createdAt ?? row.expiresAt) };
      const holder = this.local.get(id);
      const wait = new Promise<void>((resolve) => setTimeout(resolve, pollMs));
      await (holder ? Promise.race([holder.settled, wait]) : wait);
      pollMs = Math.min(pollMs * 2, 200);
    }
  }

  /** Stores the response of a claimed request (kept 24 hours) and wakes the requests waiting on its key. */
  async complete(claim: IdempotencyClaim, response: StoredResponse): Promise<void> {
    try {
      const expiresAt = this.clock.now().getTime() + IDEMPOTENCY_TTL_MS;
      await this.rows().updateOne({ _id: claim.id, owner: claim.owner }, { $set: { state: 'done', response, expiresAt } });
    } finally {
      this.settle(claim);
    }
  }

  /**
   * Gives a claimed key up without a response (5xx, or none that can be stored): the next request with the key runs
   * again, as the same run (its `run`, and the ids named from it, are the same), so that a request that recorded
   * something before it failed (a webhook endpoint, an API key, a draft) is found by its retry rather than made
   * twice. A different request with the key runs anew.
   */
  async release(claim: IdempotencyClaim): Promise<void> {
    try {
      await this.rows().updateOne({ _id: claim.id, owner: claim.owner, state: 'pending' }, { $set: { released: true, lockedUntil: 0 } });
    } finally {
      this.settle(claim);
    }
  }

  /** Removes the rows whose 24 hours are over. @returns how many. */
  async expire(): Promise<number> {
    return this.rows().deleteMany({ expiresAt: { $lt: this.clock.now().getTime() } });
  }

  private rows() {
    return this.store.collection<IdempotencyDoc>(IDEMPOTENCY_COLLECTION);
  }

  private hold(id: string, owner: string, createdAt: number): IdempotencyClaim {
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    this.local.set(id, { settled, settle });
    return { id, owner, run: `${id}.${createdAt}` };
  }

  private settle(claim: IdempotencyClaim): void {
    const holder = this.local.get(claim.id);
    this.local.delete(claim.id);
    holder?.settle();
  }

  /**
   * Takes over a key whose holder's lease ran out, died or gave it up (one taker wins: the update is conditional on
   * the old holder).
   */
  private async takeOver(row: IdempotencyDoc, owner: string, now: number): Promise<boolean> {
    const swap = (store: ReadStore) =>
      store.collection<IdempotencyDoc>(IDEMPOTENCY_COLLECTION).updateOne({ _id: row._id, owner: row.owner, state: 'pending' }, { $set: { owner, lockedUntil: now + IDEMPOTENCY_LEASE_MS, process: OWN_PROCESS, released: false } });
    const result = this.store.transaction ? await this.store.transaction(swap) : await swap(this.store);
    return result.matched === 1;
  }
}

/**
 * Whether the holder of a pending row is a process of this pid space (this machine and pid namespace) that no longer
 * runs: a request that was running when its process was killed. Its lease need not run out before another takes over.
 */
function holderDied(row: IdempotencyDoc): boolean {
  const holder = row.process;
  if (!holder || holder.pidSpace === null || holder.pidSpace !== OWN_PROCESS.pidSpace) return false;
  if (holder.pid === OWN_PROCESS.pid) return holder.startTicks !== OWN_PROCESS.startTicks;
  return !processRuns(holder.pid, holder.startTicks);
}
