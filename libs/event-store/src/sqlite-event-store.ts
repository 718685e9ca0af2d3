import type Database from 'better-sqlite3';
import { AppendBatcher } from './append-batcher';
import { prepareAppend, type PreparedEvent } from './append-preparation';
import { IntegrityFaults } from './integrity-faults';
import { RecentEvents } from './recent-events';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer';
import { canReadLogAhead, readLogAhead, verifyLogOnThread, type LogCheckOptions, type LogCheckOutcome } from './log-read-ahead';
import { SubscriptionGroup, type CatchUpSource } from './catch-up-subscription';
import { decodeEvent, type ReadPath } from './event-decoding';
import { GENESIS_HASH, sqliteRowHash } from './event-hash';
import type { EventSchemaRegistry } from './event-schema-registry';
import {
  EventIntegrityError,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventHandler,
  type EventStore,
  type EventStoreLogger,
  type EventUpcaster,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type StoredEvent,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionRetryOptions,
} from './event-store.port';
import { checkedRun, checkLogChain, predecessorLookups, selectChainColumns, selectEvents, type EventRow, type PredecessorLookups } from './sqlite-rows';
import { EVENTS_AUTOCHECKPOINT_PAGES, openEventsDatabase } from './sqlite-schema';
import { TypedReads } from './sqlite-typed-reads';
import { expectationHolds, firstRevisionFits } from './expected-revision';
import { resolveRetry } from './subscription-support';

/** Options of {@link SqliteEventStore}. */
export interface SqliteEventStoreOptions {
  /** Path of the SQLite file (its directory is created if missing), or `:memory:`. */
  file: string;
  /** Schemas checked on append and on read. */
  schemas: EventSchemaRegistry;
  /** Brings events stored with an older schema version to the current shape on read (default: none). */
  upcast?: EventUpcaster;
  /** Optional log sink (subscription retries, integrity failures). */
  logger?: EventStoreLogger;
  /**
   * Interval of the slow poll that lets subscriptions see appends made by another process on the
   * same file, in milliseconds; default 500. Appends of this instance are delivered at once.
   */
  pollIntervalMs?: number;
  /**
   * While a subscription runs: how often this instance asks SQLite whether another connection (another process)
   * has committed to the file since the last check (`PRAGMA data_version`, which reads no table), and wakes
   * the subscriptions when one has, in milliseconds; default 20. 0 leaves only the slow poll.
   */
  foreignCommitCheckMs?: number;
  /** Backoff when a subscription handler rejects. */
  retry?: SubscriptionRetryOptions;
  /** Events read per page by subscriptions during catch-up; default 500. */
  pageSize?: number;
  /** How long a write waits for another process's lock, in milliseconds; default 5000. */
  busyTimeoutMs?: number;
  /** SQLite page cache of this connection, in KiB; default 32 768 (32 MiB). */
  cacheSizeKiB?: number;
  /**
   * WAL checkpoints from a worker thread instead of inside commits (wal-checkpointer.ts); default off (the
   * service's `createEventStore` turns it on). Ignored for `:memory:`.
   */
  backgroundCheckpoints?: boolean;
}

type Int = number | bigint;

/** SQLite's LIMIT for "no limit". */
const NO_LIMIT = -1;


/**
 * Embedded event store on one SQLite file (better-sqlite3, WAL, synchronous=NORMAL); the table and its
 * migration are in sqlite-schema.ts. `position` is the rowid: 1, 2, 3… in commit order, so
 * `headPosition()` is `-1n` when empty and the first event has position `1n`.
 *
 * Every row carries a SHA-256 hash of its content linked to the previous row of the log and of its
 * stream; reads recompute and compare them and refuse a bad row with EventIntegrityError
 * (libs/event-store/README.md, "Tamper evidence"). Appends run synchronously inside one `BEGIN IMMEDIATE`
 * transaction; several processes may share the file (their appends wake subscriptions through a check of
 * SQLite's `data_version` every 20 ms, with the slow poll behind it). Every process writing the file must run this
 * version (a row written without its hash is refused on read).
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly schemas: EventSchemaRegistry;
  private readonly readPath: ReadPath;
  private readonly file: string;
  private readonly logger?: EventStoreLogger;
  private readonly pollIntervalMs: number;
  private readonly foreignCommitCheckMs: number;
  /** Checks for other connections' commits while subscriptions run (see `foreignCommitCheckMs`). */
  private foreignCommitTimer: NodeJS.Timeout | undefined;
  private readonly stmtDataVersion: Database.Statement<[], number>;
  private readonly retry: Required<SubscriptionRetryOptions>;
  private readonly pageSize: number;
  private readonly subscriptions = new SubscriptionGroup();
  private readonly typedReads: TypedReads;
  private closed = false;

  private readonly stmtStreamTail: Database.Statement<[string], { revision: Int; hash: string | null }>;
  private readonly stmtLogTail: Database.Statement<[], { position: Int; hash: string | null }>;
  private readonly stmtInsert: Database.Statement<[Int, string, Int, string, string, string, string, string, string, string, string]>;
  private readonly stmtReadForwards: Database.Statement<[string, Int, number], EventRow>;
  private readonly stmtReadBackwards: Database.Statement<[string, Int, number], EventRow>;
  private readonly stmtReadAll: Database.Statement<[Int, number], EventRow>;
  private readonly stmtById: Database.Statement<[string], { position: Int; stream_id: string; revision: Int; type: string; data: string }>;
  private readonly stmtPing: Database.Statement<[], unknown>;
  private readonly predecessors: PredecessorLookups;
  private readonly appendTx: (streamId: string, events: readonly PreparedEvent[], expected: ExpectedRevision) => AppendResult;
  private readonly batcher: AppendBatcher<{ streamId: string; events: readonly PreparedEvent[]; expected: ExpectedRevision }>;
  /** Events written by the open transaction, handed to {@link recent} once it commits. */
  private written: StoredEvent[] = [];
  private readonly recent = new RecentEvents();
  /**
   * Position of the last event as this instance knows it while the foreign-commit check runs: set by its own
   * commits (which hold the write lock, so their last event is the head) and re-read whenever the check sees another
   * connection's commit. Its subscriptions read it instead of querying the file at every wake-up; another process's
   * appends then reach them within `foreignCommitCheckMs`, as its wake-ups always did. Undefined otherwise.
   */
  private knownHead: bigint | undefined;
  private readonly checkpointer: WalCheckpointer | undefined;
  /** Stored events refused by reads of this instance ({@link integrityFaults}). */
  private readonly faults = new IntegrityFaults();

  /**
   * Opens (or creates, or migrates) the file and its table.
   * @throws Error when the file cannot be opened or is not an event store database.
   */
  constructor(options: SqliteEventStoreOptions) {
    this.schemas = options.schemas;
    this.readPath = { schemas: options.schemas, upcast: options.upcast };
    this.file = options.file;
    this.logger = options.logger;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.foreignCommitCheckMs = options.foreignCommitCheckMs ?? 20;
    this.retry = resolveRetry(options.retry);
    this.pageSize = options.pageSize ?? 500;
    this.db = openEventsDatabase(options.file, {
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      cacheSizeKiB: options.cacheSizeKiB ?? 32_768,
    });
    if (options.backgroundCheckpoints && options.file !== ':memory:') {
      this.checkpointer = startWalCheckpointer(this.db, options.file, {
        fallbackAutocheckpoint: EVENTS_AUTOCHECKPOINT_PAGES,
        onError: (message) => this.logger?.('warn', message),
      });
    }
    this.stmtStreamTail = this.db.prepare('SELECT revision, hash FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1');
    this.stmtLogTail = this.db.prepare('SELECT position, hash FROM events ORDER BY position DESC LIMIT 1');
    this.stmtDataVersion = this.db.prepare<[], number>('PRAGMA data_version').pluck();
    this.stmtInsert = this.db.prepare(
      'INSERT INTO events (position, stream_id, revision, id, type, data, metadata, created_at, hash, prev_hash, stream_prev_hash) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.stmtReadForwards = this.db.prepare(
      selectEvents('WHERE e.stream_id = ? AND e.revision >= ? ORDER BY e.revision ASC LIMIT ?'),
    );
    this.stmtReadBackwards = this.db.prepare(
      selectEvents('WHERE e.stream_id = ? AND e.revision <= ? ORDER BY e.revision DESC LIMIT ?'),
    );
    this.stmtReadAll = this.db.prepare(selectChainColumns('WHERE e.position > ? ORDER BY e.position ASC LIMIT ?'));
    this.stmtById = this.db.prepare('SELECT position, stream_id, revision, type, data FROM events WHERE id = ?');
    this.stmtPing = this.db.prepare('SELECT 1');
    this.predecessors = predecessorLookups(this.db);
    this.typedReads = new TypedReads(this.db);
    const tx = this.db.transaction(
      (streamId: string, events: readonly PreparedEvent[], expected: ExpectedRevision): AppendResult =>
        this.appendInTransaction(streamId, events, expected),
    );
    this.appendTx = (streamId, events, expected) => this.committing(() => tx.immediate(streamId, events, expected));
    this.batcher = new AppendBatcher(
      this.db,
      (r: { streamId: string; events: readonly PreparedEvent[]; expected: ExpectedRevision }) => {
        const mark = this.written.length;
        try {
          return this.appendInTransaction(r.streamId, r.events, r.expected);
        } catch (err) {
          this.written.length = mark;
          throw err;
        }
      },
      (ok) => this.settleWritten(ok),
    );
  }

  /**
   * Appends `events` to `streamId` atomically (all or none) after checking `expectedRevision`, each
   * event hashed and linked to the previous one of the log and of the stream.
   * Idempotent like EventStoreDB: when every event carries a caller-given id and those events are
   * already stored, in order, in this stream at the place `expectedRevision` names (anywhere for
   * `'any'`/`'stream_exists'`), nothing is written and the original result is returned, also when
   * `expectedRevision` no longer holds because the first attempt succeeded.
   * @throws EventSchemaError (`append-preparation.ts`) when an event (or its metadata, or its id if given, a UUID)
   *   is invalid; nothing is written.
   * @throws WrongExpectedRevisionError on an optimistic concurrency conflict; nothing is written.
   * @throws DuplicateEventIdError when a caller-given id is stored already, not as this same append.
   * @throws Error when the store is closed or `events` is empty.
   */
  async append(streamId: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    const prepared = this.prepare(streamId, events);
    try {
      return await this.batcher.submit({ streamId, events: prepared, expected: expectedRevision });
    } catch (err) {
      return this.recover(err, streamId, prepared, expectedRevision);
    }
  }

  /**
   * Synchronous {@link append} in a transaction of its own (same contract, no group commit; for batch tools and
   * benchmarks).
   */
  appendSync(streamId: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision): AppendResult {
    const prepared = this.prepare(streamId, events);
    let result: AppendResult;
    try {
      result = this.appendTx(streamId, prepared, expectedRevision);
    } catch (err) {
      return this.recover(err, streamId, prepared, expectedRevision);
    }
    return result;
  }

  /** Validates and serializes the events of an append. @throws as {@link append} for bad input. */
  private prepare(streamId: string, events: readonly NewEvent[]): PreparedEvent[] {
    this.assertOpen();
    return prepareAppend(streamId, events, this.schemas);
  }

  /**
   * Turns a refused write into the append's answer: a unique-index violation is an idempotent retry (the original
   * result), a duplicate id or a revision race; anything else is rethrown.
   */
  private recover(err: unknown, streamId: string, prepared: readonly PreparedEvent[], expectedRevision: ExpectedRevision): AppendResult {
    if (!isUniqueViolation(err)) throw err;
    // The write rolled back: an event id already stored (a retry, or a reuse), or (in theory only, the
    // IMMEDIATE lock serialises writers) a (stream_id, revision) race with another connection.
    const replay = this.idempotentReplay(streamId, prepared, expectedRevision);
    if (replay) return replay;
    if (err.message.includes('events.id')) {
      throw new DuplicateEventIdError(streamId, prepared.filter((e) => e.callerId).map((e) => e.id));
    }
    const last = this.stmtStreamTail.get(streamId);
    throw new WrongExpectedRevisionError(streamId, expectedRevision, last ? BigInt(last.revision) : 'no_stream');
  }

  /**
   * Reads one stream. Forwards (default) from `fromRevision` (default 0) ascending; backwards from
   * `fromRevision` (default: the last event) descending. An absent stream reads as `[]`. Each event is
   * checked against its hash and its link to the previous event of the stream, then upcast.
   * @throws EventIntegrityError on the first bad event (nothing is returned).
   */
  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    const limit = options.maxCount ?? NO_LIMIT;
    if (limit === 0) return [];
    return this.noted(() => {
      if (options.direction === 'backwards') {
        const rows = this.stmtReadBackwards.all(streamId, options.fromRevision ?? BigInt(Number.MAX_SAFE_INTEGER), limit);
        return checkedRun(rows, 'stream', this.readPath, this.predecessors, true);
      }
      return checkedRun(this.stmtReadForwards.all(streamId, options.fromRevision ?? 0n, limit), 'stream', this.readPath, this.predecessors);
    });
  }

  /** Revision of the stream's last event (null when the stream does not exist), from the stream index alone. */
  async streamRevision(streamId: string): Promise<bigint | null> {
    this.assertOpen();
    const tail = this.stmtStreamTail.get(streamId);
    return tail === undefined ? null : BigInt(tail.revision);
  }

  /**
   * Reads the global log in position order, strictly after `options.after` (default: from the start).
   * Each event is checked against its hash and its link to the previous event of the log, then upcast.
   * @throws EventIntegrityError on the first bad event (nothing is returned).
   */
  async readAll(options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    const limit = options.maxCount ?? NO_LIMIT;
    if (limit === 0) return [];
    return this.readLog(options.after ?? -1n, limit);
  }

  /** {@link EventStore.readAllAhead} on a worker thread with its own read-only connection (log-read-ahead.ts). */
  readAllAhead(range: { after: bigint; upTo: bigint; pageSize: number }): AsyncIterable<StoredEvent[]> | null {
    this.assertOpen();
    if (this.file === ':memory:' || !canReadLogAhead()) return null;
    return this.notedPages(readLogAhead(this.file, this.readPath, range));
  }

  /** `pages`, keeping a stored event they refuse for {@link integrityFaults}. */
  private async *notedPages(pages: AsyncGenerator<StoredEvent[], void, undefined>): AsyncGenerator<StoredEvent[], void, undefined> {
    try {
      yield* pages;
    } catch (err) {
      if (err instanceof EventIntegrityError) this.faults.note(err);
      throw err;
    }
  }

  /** Position of the last event (`-1n` when the log is empty). */
  async headPosition(): Promise<bigint> {
    return this.headSync();
  }

  /**
   * Starts a catch-up subscription (catch-up-subscription.ts): pages through the log after
   * `options.after`, then delivers live events (woken by this instance's appends at once, by other processes'
   * commits within `foreignCommitCheckMs`, and by the poll every `pollIntervalMs`). With `eventTypes`, only rows of those
   * types are read. Stops for good on a bad stored event (see {@link Subscription.failure}).
   */
  subscribeToAll(handler: EventHandler, options: SubscribeOptions = {}): Subscription {
    this.assertOpen();
    const since = this.recent.lastCommit;
    const source: CatchUpSource = {
      readPage: async (after, max, types) => {
        this.assertOpen();
        const fromMemory = this.recent.page(after, max, types && new Set(types), this.subscriptionHead(), since);
        if (fromMemory) return fromMemory;
        if (!types) return this.readLog(after, max);
        if (types.length === 0) return [];
        return this.noted(() => this.typedReads.read(types, after, max, this.readPath));
      },
      head: async () => this.subscriptionHead(),
      isClosed: () => this.closed,
    };
    const sub = this.subscriptions.start(source, handler, options, {
      pageSize: this.pageSize,
      idleMs: this.pollIntervalMs,
      retry: this.retry,
      logger: this.logger,
    });
    this.watchForeignCommits();
    return sub;
  }

  /**
   * Starts the check for commits of other connections (once per instance): SQLite's `data_version` changes when
   * another connection commits to the file, never for this one's own commits (which wake subscriptions already).
   */
  private watchForeignCommits(): void {
    if (this.foreignCommitTimer || this.foreignCommitCheckMs <= 0) return;
    let seen = this.stmtDataVersion.get();
    this.knownHead = this.headSync();
    this.foreignCommitTimer = setInterval(() => {
      if (this.closed) return;
      const now = this.stmtDataVersion.get();
      if (now === seen) return;
      seen = now;
      this.knownHead = this.headSync();
      this.subscriptions.wakeSoon();
    }, this.foreignCommitCheckMs);
    this.foreignCommitTimer.unref();
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
    this.batcher.flush();
    await this.subscriptions.stopAll();
    this.batcher.flush();
    this.closed = true;
    clearInterval(this.foreignCommitTimer);
    await this.checkpointer?.stop();
    this.db.close();
  }

  /** The head for subscriptions: {@link knownHead} while the foreign-commit check runs, else read from the file. */
  private subscriptionHead(): bigint {
    return this.knownHead ?? this.headSync();
  }

  /** @internal position of the last event (`-1n` when empty), synchronously. */
  headSync(): bigint {
    this.assertOpen();
    const row = this.stmtLogTail.get();
    return row ? BigInt(row.position) : -1n;
  }

  private readLog(after: bigint, limit: number): StoredEvent[] {
    return this.noted(() => checkedRun(this.stmtReadAll.all(after, limit), 'log', this.readPath, this.predecessors));
  }

  /** {@link EventStore.integrityFaults}. */
  integrityFaults(): readonly EventIntegrityError[] {
    return this.faults.list();
  }

  /**
   * {@link EventStore.checkLog}: on a worker thread with its own read-only connection when the build has one
   * (log-read-ahead.ts), else here in pages with a turn of the event loop between them.
   */
  async checkLog(options: LogCheckOptions = {}): Promise<LogCheckOutcome> {
    this.assertOpen();
    const head = this.headSync();
    let outcome: LogCheckOutcome = { checked: 0, through: -1n, faults: [] };
    if (this.file !== ':memory:' && canReadLogAhead()) {
      outcome = await verifyLogOnThread(this.file, this.readPath, head, options);
    } else {
      const pages = checkLogChain(this.db, head, 1_000);
      for (;;) {
        options.signal?.throwIfAborted();
        const step = pages.next();
        if (step.done) {
          outcome = { ...outcome, faults: step.value };
          break;
        }
        outcome = { checked: step.value.checked, through: step.value.through, faults: [] };
        options.onProgress?.(outcome.checked, outcome.through);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    for (const fault of outcome.faults) this.faults.note(fault);
    return outcome;
  }

  /** Runs a read of the file; a stored event it refuses is kept for {@link integrityFaults} before it is thrown. */
  private noted<T>(read: () => T): T {
    return this.faults.noted(read);
  }

  /** Runs a one-append transaction, then hands its events to the recent window (or drops them on failure). */
  private committing<T>(run: () => T): T {
    let ok = false;
    try {
      const result = run();
      ok = true;
      return result;
    } finally {
      this.settleWritten(ok);
    }
  }

  /** After a commit (`ok`) the written events join the recent window and subscriptions wake; else they are dropped. */
  private settleWritten(ok: boolean): void {
    const written = this.written;
    this.written = [];
    if (!ok) return;
    if (this.knownHead !== undefined && written.length > 0) this.knownHead = written[written.length - 1]!.position;
    this.recent.add(written);
    this.subscriptions.wakeSoon();
  }

  private appendInTransaction(streamId: string, events: readonly PreparedEvent[], expected: ExpectedRevision): AppendResult {
    const last = this.stmtStreamTail.get(streamId);
    const current: bigint | 'no_stream' = last ? BigInt(last.revision) : 'no_stream';
    if (!expectationHolds(expected, current)) {
      const replay = this.idempotentReplay(streamId, events, expected);
      if (replay) return replay;
      throw new WrongExpectedRevisionError(streamId, expected, current);
    }
    const tail = this.stmtLogTail.get();
    let position = tail ? BigInt(tail.position) : 0n;
    let prevHash = tail?.hash ?? GENESIS_HASH;
    let revision = current === 'no_stream' ? -1n : current;
    let streamPrevHash = last?.hash ?? GENESIS_HASH;
    const createdAt = new Date().toISOString();
    for (const e of events) {
      position += 1n;
      revision += 1n;
      const hash = sqliteRowHash({ position, streamId, revision, ...e, createdAt, prevHash, streamPrevHash });
      this.stmtInsert.run(position, streamId, revision, e.id, e.type, e.data, e.metadata, createdAt, hash, prevHash, streamPrevHash);
      this.written.push(decodeEvent({ id: e.id, type: e.type, data: JSON.parse(e.data), metadata: JSON.parse(e.metadata), streamId, revision, position }, this.readPath));
      prevHash = hash;
      streamPrevHash = hash;
    }
    return { nextExpectedRevision: revision, position };
  }

  /**
   * When every event carries a caller-given id and those events (same type and data) are already
   * stored, consecutively, in this stream, starting where `expected` says the append goes, returns the
   * result of the original append (an idempotent retry); otherwise undefined.
   */
  private idempotentReplay(streamId: string, events: readonly PreparedEvent[], expected: ExpectedRevision): AppendResult | undefined {
    if (!events.every((e) => e.callerId)) return undefined;
    let previous: { position: Int; revision: Int } | undefined;
    for (const e of events) {
      const row = this.stmtById.get(e.id);
      if (!row || row.stream_id !== streamId || row.type !== e.type || row.data !== e.data) return undefined;
      const revision = BigInt(row.revision);
      const inPlace = previous ? revision === BigInt(previous.revision) + 1n : firstRevisionFits(expected, revision);
      if (!inPlace) return undefined;
      previous = row;
    }
    return previous ? { nextExpectedRevision: BigInt(previous.revision), position: BigInt(previous.position) } : undefined;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('SqliteEventStore is closed');
  }
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
