import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import type { EventSchemaRegistry } from './event-schema-registry';
import {
  EventSchemaError,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventHandler,
  type EventMetadata,
  type EventStore,
  type EventStoreLogger,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type StoredEvent,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionRetryOptions,
} from './event-store.port';
import { CheckpointTracker, WakeableSleep, backoffDelay, deliverWithRetry, resolveRetry } from './subscription-support';

/** Options of {@link SqliteEventStore}. */
export interface SqliteEventStoreOptions {
  /** Path of the SQLite file (its directory is created if missing), or `:memory:`. */
  file: string;
  /** Schemas checked on append and on read. */
  schemas: EventSchemaRegistry;
  /** Optional log sink (subscription retries, poll errors). */
  logger?: EventStoreLogger;
  /**
   * Interval of the slow poll that lets subscriptions see appends made by another process on the
   * same file, in milliseconds; default 500. Appends of this instance are delivered at once.
   */
  pollIntervalMs?: number;
  /** Backoff when a subscription handler rejects. */
  retry?: SubscriptionRetryOptions;
  /** Events read per page by subscriptions during catch-up; default 500. */
  pageSize?: number;
  /** How long a write waits for another process's lock, in milliseconds; default 5000. */
  busyTimeoutMs?: number;
  /** SQLite page cache of this connection, in KiB; default 32 768 (32 MiB). */
  cacheSizeKiB?: number;
}

interface EventRow {
  position: number | bigint;
  stream_id: string;
  revision: number | bigint;
  id: string;
  type: string;
  data: string;
  metadata: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SELECT_COLUMNS = 'position, stream_id, revision, id, type, data, metadata';
/** SQLite's LIMIT for "no limit". */
const NO_LIMIT = -1;

/**
 * Embedded event store on one SQLite file (better-sqlite3, WAL, synchronous=NORMAL).
 *
 * Table `events(position INTEGER PRIMARY KEY, stream_id, revision, id UNIQUE, type, data, metadata, created_at)`
 * with UNIQUE(stream_id, revision). `position` is the rowid: 1, 2, 3… in commit order, so `headPosition()`
 * is `-1n` when empty and the first event has position `1n`.
 *
 * Appends run synchronously inside one `BEGIN IMMEDIATE` transaction; several processes may share the
 * file (their appends are seen by subscriptions through the slow poll).
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly schemas: EventSchemaRegistry;
  private readonly logger?: EventStoreLogger;
  private readonly pollIntervalMs: number;
  private readonly retry: Required<SubscriptionRetryOptions>;
  private readonly pageSize: number;
  private readonly subscriptions = new Set<SqliteSubscription>();
  private closed = false;

  private readonly stmtLastRevision: Database.Statement<[string], { revision: number | bigint }>;
  private readonly stmtInsert: Database.Statement<[string, number | bigint, string, string, string, string, string]>;
  private readonly stmtReadForwards: Database.Statement<[string, number | bigint, number], EventRow>;
  private readonly stmtReadBackwards: Database.Statement<[string, number | bigint, number], EventRow>;
  private readonly stmtReadAll: Database.Statement<[number | bigint, number], EventRow>;
  private readonly stmtHead: Database.Statement<[], { head: number | bigint | null }>;
  private readonly stmtById: Database.Statement<[string], EventRow>;
  private readonly stmtPing: Database.Statement<[], unknown>;
  private notifyScheduled = false;
  private readonly appendTx: (streamId: string, events: readonly PreparedEvent[], expected: ExpectedRevision) => AppendResult;

  /**
   * Opens (or creates) the file and its table.
   * @throws Error when the file cannot be opened or is not an event store database.
   */
  constructor(options: SqliteEventStoreOptions) {
    this.schemas = options.schemas;
    this.logger = options.logger;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.retry = resolveRetry(options.retry);
    this.pageSize = options.pageSize ?? 500;
    if (options.file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(options.file)), { recursive: true });
    this.db = new Database(options.file);
    this.db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    if (options.file !== ':memory:') this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma(`cache_size = -${Math.max(2048, Math.floor(options.cacheSizeKiB ?? 32_768))}`);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position   INTEGER PRIMARY KEY,
        stream_id  TEXT    NOT NULL,
        revision   INTEGER NOT NULL,
        id         TEXT    NOT NULL UNIQUE,
        type       TEXT    NOT NULL,
        data       TEXT    NOT NULL,
        metadata   TEXT    NOT NULL,
        created_at TEXT    NOT NULL
      );
      CREATE UNIQUE INDEX IF NOT EXISTS events_stream_revision ON events (stream_id, revision);
    `);

    this.stmtLastRevision = this.db.prepare(
      'SELECT revision FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1',
    );
    this.stmtInsert = this.db.prepare(
      'INSERT INTO events (stream_id, revision, id, type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.stmtReadForwards = this.db.prepare(
      `SELECT ${SELECT_COLUMNS} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision ASC LIMIT ?`,
    );
    this.stmtReadBackwards = this.db.prepare(
      `SELECT ${SELECT_COLUMNS} FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`,
    );
    this.stmtReadAll = this.db.prepare(
      `SELECT ${SELECT_COLUMNS} FROM events WHERE position > ? ORDER BY position ASC LIMIT ?`,
    );
    this.stmtHead = this.db.prepare('SELECT MAX(position) AS head FROM events');
    this.stmtById = this.db.prepare(`SELECT ${SELECT_COLUMNS} FROM events WHERE id = ?`);
    this.stmtPing = this.db.prepare('SELECT 1');

    const tx = this.db.transaction(
      (streamId: string, events: readonly PreparedEvent[], expected: ExpectedRevision): AppendResult =>
        this.appendInTransaction(streamId, events, expected),
    );
    this.appendTx = (streamId, events, expected) => tx.immediate(streamId, events, expected);
  }

  /**
   * Appends `events` to `streamId` atomically (all or none) after checking `expectedRevision`.
   * Re-appending the same caller-given event ids at the same place in the same stream is idempotent
   * (returns the original result), like EventStoreDB.
   * @throws EventSchemaError when an event (or its metadata, or its id if given, which must be a UUID)
   *   is invalid; nothing is written.
   * @throws WrongExpectedRevisionError on an optimistic concurrency conflict; nothing is written.
   * @throws Error when the store is closed or `events` is empty.
   */
  async append(streamId: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    return this.appendSync(streamId, events, expectedRevision);
  }

  /** Synchronous body of {@link append} (same contract; exposed for batch tools and benchmarks). */
  appendSync(streamId: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision): AppendResult {
    this.assertOpen();
    if (typeof streamId !== 'string' || streamId.length === 0) throw new Error('streamId must be a non-empty string');
    if (events.length === 0) throw new Error(`append to ${streamId}: no events`);
    const prepared: PreparedEvent[] = new Array(events.length);
    const createdAt = new Date().toISOString();
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      this.schemas.validateEvent(e);
      if (e.id !== undefined && !UUID.test(e.id)) throw new EventSchemaError(e.type, `id must be a UUID, got ${JSON.stringify(e.id)}`);
      prepared[i] = {
        id: e.id ?? randomUUID(),
        type: e.type,
        data: JSON.stringify(e.data),
        metadata: JSON.stringify(e.metadata),
        createdAt,
        callerId: e.id !== undefined,
      };
    }
    let result: AppendResult;
    try {
      result = this.appendTx(streamId, prepared, expectedRevision);
    } catch (err) {
      if (isUniqueViolation(err)) {
        // The transaction rolled back. An event id already stored elsewhere, or (in theory only, the
        // IMMEDIATE lock serialises writers) a (stream_id, revision) race with another connection.
        const replay = this.idempotentReplay(streamId, prepared);
        if (replay) return replay;
        if (err.message.includes('events.id')) {
          throw new DuplicateEventIdError(streamId, prepared.filter((e) => e.callerId).map((e) => e.id));
        }
        const last = this.stmtLastRevision.get(streamId);
        throw new WrongExpectedRevisionError(streamId, expectedRevision, last ? BigInt(last.revision) : 'no_stream');
      }
      throw err;
    }
    this.notify();
    return result;
  }

  /**
   * Reads one stream. Forwards (default) from `fromRevision` (default 0) ascending; backwards from
   * `fromRevision` (default: the last event) descending. An absent stream reads as `[]`.
   * @throws EventSchemaError when a stored event no longer satisfies its schema.
   */
  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    const limit = options.maxCount ?? NO_LIMIT;
    if (limit === 0) return [];
    const rows =
      options.direction === 'backwards'
        ? this.stmtReadBackwards.all(streamId, options.fromRevision ?? BigInt(Number.MAX_SAFE_INTEGER), limit)
        : this.stmtReadForwards.all(streamId, options.fromRevision ?? 0n, limit);
    return rows.map((row) => this.toStored(row));
  }

  /**
   * Reads the global log in position order, strictly after `options.after` (default: from the start).
   * @throws EventSchemaError when a stored event no longer satisfies its schema.
   */
  async readAll(options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    return this.readAllSync(options.after ?? -1n, options.maxCount ?? NO_LIMIT);
  }

  /** Position of the last event (`-1n` when the log is empty). */
  async headPosition(): Promise<bigint> {
    this.assertOpen();
    const row = this.stmtHead.get();
    return row?.head == null ? -1n : BigInt(row.head);
  }

  /**
   * Starts a catch-up subscription: pages through the log after `options.after`, then delivers
   * live events (immediately for appends of this instance, within `pollIntervalMs` for other processes).
   * The handler runs serially in position order; a rejection retries the same event with backoff.
   */
  subscribeToAll(handler: EventHandler, options: SubscribeOptions = {}): Subscription {
    this.assertOpen();
    const sub = new SqliteSubscription(this, handler, options, {
      pollIntervalMs: this.pollIntervalMs,
      pageSize: this.pageSize,
      retry: this.retry,
      logger: this.logger,
      onStopped: (s) => this.subscriptions.delete(s),
    });
    this.subscriptions.add(sub);
    sub.start();
    return sub;
  }

  /** True while the database answers a trivial query. */
  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      this.stmtPing.get();
      return true;
    } catch {
      return false;
    }
  }

  /** Stops every subscription (waiting for in-flight handlers), then closes the database. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    this.closed = true;
    this.db.close();
  }

  /** @internal used by subscriptions. */
  readAllSync(after: bigint, maxCount: number): StoredEvent[] {
    this.assertOpen();
    if (maxCount === 0) return [];
    return this.stmtReadAll.all(after, maxCount).map((row) => this.toStored(row));
  }

  /**
   * @internal A reader of the events of the given types only, between two positions, for subscriptions that
   * filter by type: the other events are neither parsed nor validated.
   */
  typeFilteredReader(types: readonly string[]): (after: bigint, upTo: bigint, maxCount: number) => StoredEvent[] {
    const stmt = this.db.prepare<[number | bigint, number | bigint, ...string[], number], EventRow>(
      `SELECT ${SELECT_COLUMNS} FROM events WHERE position > ? AND position <= ? AND type IN (${types.map(() => '?').join(', ')}) ORDER BY position LIMIT ?`,
    );
    return (after, upTo, maxCount) => {
      this.assertOpen();
      return stmt.all(after, upTo, ...types, maxCount).map((row) => this.toStored(row));
    };
  }

  /** @internal position of the last event (`-1n` when empty), synchronously. */
  headSync(): bigint {
    this.assertOpen();
    const row = this.stmtHead.get();
    return row?.head === null || row?.head === undefined ? -1n : BigInt(row.head);
  }

  /** @internal whether `close()` has run. */
  get isClosed(): boolean {
    return this.closed;
  }

  private appendInTransaction(streamId: string, events: readonly PreparedEvent[], expected: ExpectedRevision): AppendResult {
    const last = this.stmtLastRevision.get(streamId);
    const current: bigint | 'no_stream' = last ? BigInt(last.revision) : 'no_stream';
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current === 'no_stream') ||
      (expected === 'stream_exists' && current !== 'no_stream') ||
      (typeof expected === 'bigint' && current !== 'no_stream' && current === expected);
    if (!ok) {
      const replay = this.idempotentReplay(streamId, events);
      if (replay) return replay;
      throw new WrongExpectedRevisionError(streamId, expected, current);
    }
    let revision = current === 'no_stream' ? -1n : current;
    let position: bigint = -1n;
    for (const e of events) {
      revision += 1n;
      const info = this.stmtInsert.run(streamId, revision, e.id, e.type, e.data, e.metadata, e.createdAt);
      position = BigInt(info.lastInsertRowid);
    }
    return { nextExpectedRevision: revision, position };
  }

  /**
   * When every event carries a caller-given id and those ids are already stored, consecutively, in this
   * stream, returns the result of the original append (idempotent retry); otherwise undefined.
   */
  private idempotentReplay(streamId: string, events: readonly PreparedEvent[]): AppendResult | undefined {
    if (!events.every((e) => e.callerId)) return undefined;
    let previous: EventRow | undefined;
    for (const e of events) {
      const row = this.stmtById.get(e.id);
      if (!row || row.stream_id !== streamId || row.type !== e.type) return undefined;
      if (previous && BigInt(row.revision) !== BigInt(previous.revision) + 1n) return undefined;
      previous = row;
    }
    return previous ? { nextExpectedRevision: BigInt(previous.revision), position: BigInt(previous.position) } : undefined;
  }

  private toStored(row: EventRow): StoredEvent {
    let data: unknown;
    let metadata: unknown;
    try {
      data = JSON.parse(row.data);
      metadata = JSON.parse(row.metadata);
    } catch (err) {
      throw new EventSchemaError(row.type, `stored event ${row.id} is not valid JSON: ${(err as Error).message}`);
    }
    this.schemas.validateEvent({ type: row.type, data, metadata });
    return {
      id: row.id,
      type: row.type,
      data: data as Record<string, unknown>,
      metadata: metadata as EventMetadata,
      streamId: row.stream_id,
      revision: BigInt(row.revision),
      position: BigInt(row.position),
    };
  }

  /**
   * Wakes the subscriptions once per event-loop turn: appends made in the same turn (concurrent commands)
   * are then read by one query per subscription instead of one each.
   */
  private notify(): void {
    if (this.notifyScheduled) return;
    this.notifyScheduled = true;
    setImmediate(() => {
      this.notifyScheduled = false;
      for (const s of this.subscriptions) s.wake();
    });
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('SqliteEventStore is closed');
  }
}

interface PreparedEvent {
  id: string;
  type: string;
  data: string;
  metadata: string;
  createdAt: string;
  /** Whether the caller gave the id (only those can make an append idempotent). */
  callerId: boolean;
}

/**
 * SQLite only: an event id given by the caller is already stored, and not as an idempotent replay of
 * the same append (event ids are globally unique in this adapter). Nothing was written.
 */
export class DuplicateEventIdError extends Error {
  override readonly name = 'DuplicateEventIdError';
  constructor(readonly streamId: string, readonly eventIds: readonly string[]) {
    super(`append to ${streamId}: an event id is already stored (${eventIds.join(', ')})`);
  }
}

function isUniqueViolation(err: unknown): err is Error & { code: string } {
  // Not `instanceof Error`: errors raised by the native addon may come from another realm (test sandboxes).
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

interface SqliteSubscriptionConfig {
  pollIntervalMs: number;
  pageSize: number;
  retry: Required<SubscriptionRetryOptions>;
  logger?: EventStoreLogger;
  onStopped: (s: SqliteSubscription) => void;
}

/** Catch-up subscription over {@link SqliteEventStore}: pages, then waits for a wake-up or the slow poll. */
class SqliteSubscription implements Subscription {
  private readonly tracker: CheckpointTracker;
  private readonly liveSleep = new WakeableSleep();
  private readonly backoffSleep = new WakeableSleep();
  private readonly types?: ReadonlySet<string>;
  private readonly filteredReader?: (after: bigint, upTo: bigint, maxCount: number) => StoredEvent[];
  private stopped = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: SqliteEventStore,
    private readonly handler: EventHandler,
    options: SubscribeOptions,
    private readonly config: SqliteSubscriptionConfig,
  ) {
    this.tracker = new CheckpointTracker(options.after ?? -1n);
    this.types = options.eventTypes ? new Set(options.eventTypes) : undefined;
    this.filteredReader = options.eventTypes && options.eventTypes.length > 0 ? store.typeFilteredReader(options.eventTypes) : undefined;
  }

  start(): void {
    this.loop = this.run();
  }

  /** Called by the store after each append of this instance. */
  wake(): void {
    this.liveSleep.wake();
  }

  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.liveSleep.wake();
      this.backoffSleep.wake();
    }
    await this.loop;
  }

  caughtUpTo(position: bigint): Promise<void> {
    return this.tracker.waitFor(position);
  }

  private async run(): Promise<void> {
    const ctx = {
      handler: this.handler,
      retry: this.config.retry,
      logger: this.config.logger,
      sleep: this.backoffSleep,
      isStopped: () => this.stopped,
    };
    let readFailures = 0;
    try {
      while (!this.stopped) {
        let scannedUpTo = -1n;
        // Forget wake-ups that arrived before this read: the read sees their events.
        this.liveSleep.clearPending();
        let page: StoredEvent[];
        try {
          if (this.store.isClosed) break;
          if (this.filteredReader) {
            // Only this subscription's types are read; once a short page shows that nothing else of
            // interest lies below the head, the position moves to the head.
            const head = this.store.headSync();
            page = head > this.tracker.current ? this.filteredReader(this.tracker.current, head, this.config.pageSize) : [];
            if (page.length < this.config.pageSize) scannedUpTo = head;
          } else {
            page = this.store.readAllSync(this.tracker.current, this.config.pageSize);
          }
          readFailures = 0;
        } catch (err) {
          readFailures++;
          const delay = backoffDelay(readFailures, this.config.retry);
          this.config.logger?.('error', 'subscription read failed; retrying', {
            after: this.tracker.current.toString(),
            attempt: readFailures,
            retryInMs: delay,
            err,
          });
          await this.backoffSleep.sleep(delay);
          continue;
        }
        let complete = true;
        for (const event of page) {
          if (this.stopped) {
            complete = false;
            break;
          }
          if (this.types && !this.types.has(event.type)) {
            this.tracker.advance(event.position);
            continue;
          }
          const handled = await deliverWithRetry(event, ctx);
          if (!handled) {
            complete = false;
            break;
          }
          this.tracker.advance(event.position);
        }
        if (complete && scannedUpTo > this.tracker.current) {
          this.tracker.advance(scannedUpTo);
          continue;
        }
        if (page.length === 0) await this.liveSleep.sleep(this.config.pollIntervalMs);
      }
    } finally {
      this.tracker.stop();
      this.config.onStopped(this);
    }
  }
}
