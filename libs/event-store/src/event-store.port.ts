/**
 * The event store port: an append-only log of streams, the source of truth.
 *
 * Two adapters implement it: SQLite (embedded default, `DATA_DIR/events.sqlite`)
 * and EventStoreDB (`EVENTSTORE_URL`). Code above the port never knows which runs.
 */

/** Metadata carried by every stored event (docs/architecture.md "Events on disk"). */
export interface EventMetadata {
  /** Id of the request or process that started the chain of work. */
  correlationId: string;
  /** Id of the command or event that directly caused this event. */
  causationId: string;
  /** Who acted: `wallet:<ADDR>`, `signer:<ADDR|P256ID>`, `service:<component>`, `apikey:<id>`. */
  actor: string;
  /** Version of the event's JSON Schema (`event-schemas/<Type>.v<N>.json`). */
  schemaVersion: number;
  /** ISO 8601 UTC time at which the event was decided. */
  occurredAt: string;
}

/**
 * An event as the caller hands it to `append`. `TData` defaults to `object` so that a domain data
 * interface (which has no index signature) is assignable to the plain `NewEvent`.
 */
export interface NewEvent<TType extends string = string, TData extends object = object> {
  type: TType;
  data: TData;
  metadata: EventMetadata;
  /** Optional event id (UUID); generated when absent. */
  id?: string;
}

/** An event as read back from the store. */
export interface StoredEvent<TType extends string = string, TData = Record<string, unknown>> {
  id: string;
  type: TType;
  data: TData;
  metadata: EventMetadata;
  streamId: string;
  /** 0-based position of the event inside its stream. */
  revision: bigint;
  /** Position in the global log ($all); strictly increasing, used as a checkpoint. */
  position: bigint;
}

/**
 * Expected revision for optimistic concurrency:
 * - `'any'`: no check;
 * - `'no_stream'`: the stream must not exist (used to claim a unique thing);
 * - `'stream_exists'`: the stream must exist;
 * - a bigint: the revision of the last event in the stream must equal it.
 */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

export interface AppendResult {
  /** Revision of the last appended event in the stream. */
  nextExpectedRevision: bigint;
  /** Global position of the last appended event. */
  position: bigint;
}

export interface ReadStreamOptions {
  /** First revision to read (inclusive); default 0. */
  fromRevision?: bigint;
  /** Maximum number of events; default all. */
  maxCount?: number;
  direction?: 'forwards' | 'backwards';
}

export interface ReadAllOptions {
  /** Read events strictly after this global position; default from the start. */
  after?: bigint;
  maxCount?: number;
}

/** Handle on a running subscription. */
export interface Subscription {
  /** Stops delivery; resolves once the handler is no longer called. */
  stop(): Promise<void>;
  /**
   * Resolves once every event up to `position` has been handled. Rejects with SubscriptionStoppedError
   * when the subscription is stopped first, or with its {@link Subscription.failure} once it failed.
   */
  caughtUpTo(position: bigint): Promise<void>;
  /** Set once the subscription stopped on a bad stored event. */
  readonly failure: EventIntegrityError | undefined;
}

export interface SubscribeOptions {
  /** Deliver events strictly after this position (the subscriber's stored checkpoint). */
  after?: bigint;
  /** Only events whose type is in this list (others are skipped, the position still advances). */
  eventTypes?: readonly string[];
  /** Called once when the subscription stops for good on a bad stored event. */
  onFailure?: (err: EventIntegrityError) => void;
}

/**
 * A handler for a catch-up subscription. Called once per event, in log order,
 * never concurrently. When it rejects, the subscription retries the same event
 * with backoff (it never skips one).
 */
export type EventHandler = (event: StoredEvent) => Promise<void>;

export interface EventStore {
  /**
   * Appends events atomically to one stream.
   * @throws WrongExpectedRevisionError when the expected revision does not match.
   * @throws EventSchemaError when an event does not satisfy its JSON Schema.
   */
  append(streamId: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult>;
  /**
   * Reads one stream; an absent stream reads as `[]`.
   * @throws EventIntegrityError when a stored event was altered, a link of the chain is broken, or an
   *   event no longer satisfies its schema (nothing is returned then).
   */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]>;
  /**
   * Revision of the stream's last event, or null when the stream does not exist. Reads no event body: a probe for
   * whether a state folded from a checked read of the stream is still current (an append moves the revision).
   */
  streamRevision(streamId: string): Promise<bigint | null>;
  /**
   * Reads the global log in position order.
   * @throws EventIntegrityError as {@link EventStore.readStream}.
   */
  readAll(options?: ReadAllOptions): Promise<StoredEvent[]>;
  /**
   * The global log after `after` up to `upTo` (inclusive), in pages of `pageSize` events, read and checked on
   * another thread ahead of the consumer, each event as {@link EventStore.readAll} serves it; null when this store
   * cannot (a server, an in-memory file). For long reads of the whole log: a replay.
   * @throws EventIntegrityError from the iteration, at the page holding a bad stored event.
   */
  readAllAhead?(range: { after: bigint; upTo: bigint; pageSize: number }): AsyncIterable<StoredEvent[]> | null;
  /** Position of the last event in the log (`-1n` when empty). */
  headPosition(): Promise<bigint>;
  /**
   * Stored events this instance refused on read (any read: a command loading a stream, a subscription, a log
   * check), oldest first, one per event and reason, at most {@link MAX_INTEGRITY_FAULTS}. Readiness reports them.
   * Optional: a store without it reports its faults through the reads that throw.
   */
  integrityFaults?(): readonly EventIntegrityError[];
  /**
   * Checks the chain of every stored event up to the head (each hash and each link), without serving any (SQLite:
   * on a worker thread): an edit, removal or insertion anywhere in the log is found even where no reader goes. A
   * fault found is also kept in {@link EventStore.integrityFaults}. Optional (SQLite only: EventStoreDB has no
   * global chain).
   * @returns events found good (the event before a broken link is not: it may be the edited one), the last good
   *   position, and the bad events in log order (none when every event is good): the check goes on past each bad
   *   event, checking the next against its stored hash, and stops at the {@link MAX_INTEGRITY_FAULTS}th.
   * @throws Error when the log cannot be read at all (a damaged database page, an I/O error): no verdict on any
   *   event, and not a pass; the signal's reason when `options.signal` aborts the check.
   */
  checkLog?(options?: {
    /** Called after each page with the events found good so far and the last one's position. */
    onProgress?: (checked: number, through: bigint) => void;
    /** Run flat out (an offline command) rather than as a background task that gives way to the service. */
    flatOut?: boolean;
    /** Stops the check (at shutdown). */
    signal?: AbortSignal;
  }): Promise<{ checked: number; through: bigint; faults: readonly EventIntegrityError[] }>;
  /**
   * Durable catch-up subscription: delivers every event after `options.after`,
   * then live events as they are appended. Stops for good (see {@link Subscription.failure}) when a
   * stored event fails its integrity check; never skips it.
   */
  subscribeToAll(handler: EventHandler, options?: SubscribeOptions): Subscription;
  /** Whether the backing server answers (readiness). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Injection token of the event store port. */
export const EVENT_STORE = Symbol('EVENT_STORE');

export class WrongExpectedRevisionError extends Error {
  override readonly name = 'WrongExpectedRevisionError';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

export class EventSchemaError extends Error {
  override readonly name = 'EventSchemaError';
  constructor(readonly eventType: string, readonly problems: string) {
    super(`event ${eventType} does not satisfy its schema: ${problems}`);
  }
}

/**
 * The store refused an append for its size: EventStoreDB's `MaxAppendSize` (1 MiB unless the server is configured
 * otherwise; README "Production topology" sets 16 MiB). Nothing was written. The HTTP edge answers it with
 * `413 invalid_request`. `limitBytes` is the server's limit when it says.
 */
export class AppendTooLargeError extends Error {
  override readonly name = 'AppendTooLargeError';
  constructor(readonly streamId: string, readonly limitBytes: number | undefined, options?: ErrorOptions) {
    super(`the event log refused a write to ${streamId} larger than its append limit${limitBytes !== undefined ? ` of ${limitBytes} bytes` : ''}`, options);
  }
}

/** Most integrity faults a store keeps for readiness (the first ones met; later ones are only logged). */
export const MAX_INTEGRITY_FAULTS = 16;

/** Why a stored event is refused on read (see libs/event-store/README.md, "Tamper evidence"). */
export type EventIntegrityReason = 'hash_mismatch' | 'broken_link' | 'schema';

/**
 * A stored event that must not be served: its content no longer matches its hash (`hash_mismatch`), it
 * does not link to the event read before it (`broken_link`: an event was removed, inserted or reordered),
 * or it does not satisfy its JSON Schema (`schema`). `position` is `-1n` when the backend did not report it.
 */
export class EventIntegrityError extends Error {
  override readonly name = 'EventIntegrityError';
  /**
   * Events of the same read that come before this one in log order, each checked: a subscription or a replay
   * applies them before it stops, so one bad event does not take the good ones read with it (SQLite reads).
   */
  declare checkedBefore?: StoredEvent[];
  constructor(
    readonly streamId: string,
    readonly position: bigint,
    readonly revision: bigint,
    readonly eventId: string,
    readonly reason: EventIntegrityReason,
    readonly detail: string,
  ) {
    super(
      `stored event ${eventId} (stream ${streamId}, revision ${String(revision)}, position ${String(position)}) ` +
        `refused: ${reason}: ${detail}`,
    );
  }
}

/**
 * Turns stored event data of any older schema version into the current shape (pure; no I/O).
 * Returns the data and the version it now has; the same version when nothing applies.
 * @throws Error when no upcast path exists (the stores report it as an EventIntegrityError 'schema').
 */
export type EventUpcaster = (
  type: string,
  schemaVersion: number,
  data: Readonly<Record<string, unknown>>,
  metadata: Readonly<EventMetadata>,
) => { data: Record<string, unknown>; schemaVersion: number };

/** Raised by `Subscription.caughtUpTo` when the subscription stops before reaching the position. */
export class SubscriptionStoppedError extends Error {
  override readonly name = 'SubscriptionStoppedError';
  constructor(readonly position: bigint) {
    super(`subscription stopped before reaching position ${String(position)}`);
  }
}

/**
 * Optional log sink of the adapters (library code never writes to the console).
 * `details` carries structured context (e.g. `eventId`, `position`, `attempt`, `err`).
 * Maps directly onto a pino logger: `(level, msg, details) => logger[level](details ?? {}, msg)`.
 */
export type EventStoreLogger = (
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  details?: Record<string, unknown>,
) => void;

/** Backoff of a subscription when its handler rejects (the same event is retried, never skipped). */
export interface SubscriptionRetryOptions {
  /** Delay before the first retry, in milliseconds; default 100. Doubles on every failure. */
  initialDelayMs?: number;
  /** Upper bound of the delay, in milliseconds; default 30 000. */
  maxDelayMs?: number;
}
