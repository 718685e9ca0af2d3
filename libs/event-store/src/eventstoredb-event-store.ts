import { randomUUID } from 'node:crypto';
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  MaxAppendSizeExceededError,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type Position,
  type ReadPosition,
} from '@eventstore/db-client';
import { SubscriptionGroup } from './catch-up-subscription';
import type { ReadPath } from './event-decoding';
import { GENESIS_HASH } from './event-hash';
import type { EventSchemaRegistry } from './event-schema-registry';
import {
  AppendTooLargeError,
  EventSchemaError,
  type EventIntegrityError,
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
import {
  chainEvents,
  checkLinksBetweenNeighbours,
  checkLinksWithinPage,
  checkRecorded,
  checkStreamRun,
  isSystemEvent,
  knownPosition,
  type ChainInput,
  type ChainedEvent,
} from './eventstoredb-chain';
import { EsdbLiveWake } from './eventstoredb-wake';
import { IntegrityFaults } from './integrity-faults';
import { expectationHolds, firstRevisionFits } from './expected-revision';
import { resolveRetry } from './subscription-support';

/** Options of {@link EventStoreDbEventStore}. */
export interface EventStoreDbEventStoreOptions {
  /** Connection string, e.g. `esdb://localhost:2113?tls=false` (the `EVENTSTORE_URL` setting). */
  connectionString: string;
  /** Schemas checked on append and on read. */
  schemas: EventSchemaRegistry;
  /** Brings events stored with an older schema version to the current shape on read (default: none). */
  upcast?: EventUpcaster;
  /** Optional log sink (subscription retries, reconnects, integrity failures). */
  logger?: EventStoreLogger;
  /** Backoff when a subscription handler rejects or a read fails. */
  retry?: SubscriptionRetryOptions;
  /** Deadline of `ping()`, in milliseconds; default 2000. */
  pingTimeoutMs?: number;
  /** Longest wait of a caught-up subscription before it reads again, in milliseconds; default 1000. */
  pollIntervalMs?: number;
  /** Events read per page by subscriptions; default 500. */
  pageSize?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Stream read by `ping()`: a user stream that is never written (reading it needs no admin rights). */
const PING_STREAM = 'svc-event-store-ping';
/** Appends with `'any'` / `'stream_exists'` retried when another writer extended the stream meanwhile. */
const MAX_APPEND_ATTEMPTS = 5;

/** `after` as an ESDB read position (single-node logs have commit = prepare for every event). */
function positionAfter(after: bigint | undefined): ReadPosition {
  return after === undefined || after < 0n ? START : ({ commit: after, prepare: after } satisfies Position);
}

/**
 * Event store over EventStoreDB (gRPC client `@eventstore/db-client`).
 *
 * Events are JSON with JSON metadata: the port's metadata plus reserved `$`-prefixed keys, among them
 * the per-stream hash chain (eventstoredb-chain.ts), all removed again on read. `position` is the
 * event's commit position in `$all`. System events (`$`-prefixed types or streams) are never returned.
 *
 * An append first reads the stream's last event (to chain to its hash) and then appends at exactly that
 * revision, so the server refuses it if another writer came first. Retries are idempotent by event id
 * (see {@link EventStoreDbEventStore.append}). Subscriptions use the shared catch-up loop, woken by this
 * instance's appends and by one live subscription to `$all` (eventstoredb-wake.ts), polling meanwhile.
 */
export class EventStoreDbEventStore implements EventStore {
  private readonly client: EventStoreDBClient;
  private readonly schemas: EventSchemaRegistry;
  private readonly readPath: ReadPath;
  private readonly logger?: EventStoreLogger;
  private readonly retry: Required<SubscriptionRetryOptions>;
  private readonly pingTimeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly pageSize: number;
  private readonly subscriptions = new SubscriptionGroup();
  private readonly liveWake: EsdbLiveWake;
  /** Stored events refused by reads of this instance ({@link integrityFaults}). */
  private readonly faults = new IntegrityFaults();
  private closed = false;

  /**
   * Creates the client (connection is lazy: nothing is contacted before the first call).
   * @throws Error when the connection string cannot be parsed.
   */
  constructor(options: EventStoreDbEventStoreOptions) {
    this.client = EventStoreDBClient.connectionString(options.connectionString);
    this.schemas = options.schemas;
    this.readPath = { schemas: options.schemas, upcast: options.upcast };
    this.logger = options.logger;
    this.retry = resolveRetry(options.retry);
    this.pingTimeoutMs = options.pingTimeoutMs ?? 2000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.pageSize = options.pageSize ?? 500;
    this.liveWake = new EsdbLiveWake(this.client, () => this.subscriptions.wakeSoon(), this.retry, this.logger);
  }

  /**
   * Appends `events` atomically to `streamId`, chained to the stream's last event, after checking
   * `expectedRevision` (the server re-checks it: the append goes at the revision that was read).
   *
   * Idempotence: when every event has a caller-given id and those events are already stored in this
   * stream where `expectedRevision` puts them (for `'any'`/`'stream_exists'`: as the stream's last
   * events), nothing is written and the original result is returned, also when `expectedRevision` no
   * longer holds because the first attempt succeeded. Two identical retries racing each other are
   * deduplicated by the server (same ids at the same expected revision). Limit: with `'any'` or
   * `'stream_exists'`, a retry made after someone else appended to the stream writes the events again
   * (the server's own id cache is not relied upon); command handlers append at an exact revision.
   * @throws EventSchemaError when an event, its metadata or its id (must be a UUID) is invalid; nothing is sent.
   * @throws WrongExpectedRevisionError on a conflict (also after {@link MAX_APPEND_ATTEMPTS} lost races with `'any'`).
   * @throws EventIntegrityError when the stream's last event fails its hash check (nothing is chained to it).
   * @throws AppendTooLargeError when the server refuses the events' size (`MaxAppendSize`); nothing is written.
   * @throws Error (client errors: unavailable, access denied, …) otherwise.
   */
  async append(streamId: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    if (typeof streamId !== 'string' || streamId.length === 0) throw new Error('streamId must be a non-empty string');
    if (streamId.startsWith('$')) throw new Error(`append to ${streamId}: system streams are not writable here`);
    if (events.length === 0) throw new Error(`append to ${streamId}: no events`);
    const inputs: ChainInput[] = events.map((e) => {
      this.schemas.validateEvent(e);
      if (e.id !== undefined && !UUID.test(e.id)) throw new EventSchemaError(e.type, `id must be a UUID, got ${JSON.stringify(e.id)}`);
      // The server gives ids back in lower case: hashed and compared as it will return them.
      return { id: (e.id ?? randomUUID()).toLowerCase(), type: e.type, data: e.data, metadata: e.metadata };
    });
    const callerIds = events.every((e) => e.id !== undefined);
    for (let attempt = 1; ; attempt++) {
      const tail = await this.streamTail(streamId);
      const current = tail ? tail.stored.revision : 'no_stream';
      const holds = expectationHolds(expectedRevision, current);
      const maybeRetry = !holds || (tail !== undefined && tail.stored.id === inputs[inputs.length - 1]!.id);
      if (callerIds && maybeRetry) {
        const replay = await this.idempotentReplay(streamId, inputs, expectedRevision, current);
        if (replay) return replay;
      }
      if (!holds) throw new WrongExpectedRevisionError(streamId, expectedRevision, current);
      const payload = chainEvents(streamId, inputs, current === 'no_stream' ? 0n : current + 1n, tail?.hash ?? GENESIS_HASH);
      try {
        const result = await this.client.appendToStream(streamId, payload, {
          expectedRevision: current === 'no_stream' ? NO_STREAM : current,
        });
        this.subscriptions.wakeSoon();
        const reported = knownPosition(result.position?.commit);
        const position = reported >= 0n ? reported : await this.lastPositionOf(streamId);
        return { nextExpectedRevision: result.nextExpectedRevision, position };
      } catch (err) {
        if (err instanceof MaxAppendSizeExceededError) throw new AppendTooLargeError(streamId, Number.isFinite(err.maxAppendSize) ? err.maxAppendSize : undefined, { cause: err });
        if (!(err instanceof WrongExpectedVersionError)) throw err;
        if (attempt >= MAX_APPEND_ATTEMPTS) {
          const actual = err.actualVersion;
          throw new WrongExpectedRevisionError(streamId, expectedRevision, typeof actual === 'bigint' ? actual : 'no_stream');
        }
        // Another writer extended the stream between the read and the write: read its tail again.
      }
    }
  }

  /**
   * Reads one stream (forwards from `fromRevision` or 0; backwards from `fromRevision` or the end).
   * An absent stream reads as `[]`. `position` is the commit position when the server reports it
   * (EventStoreDB >= 22.6), else `-1n`. Every event's hash and link are checked; when the read does not
   * start at revision 0, the event before it is read too (one more call) to check the first link.
   * @throws EventIntegrityError on the first bad event (nothing is returned).
   */
  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    return this.faults.notedAsync(() => this.readStreamChecked(streamId, options));
  }

  private async readStreamChecked(streamId: string, options: ReadStreamOptions): Promise<StoredEvent[]> {
    if (options.maxCount === 0) return [];
    const backwards = options.direction === 'backwards';
    const read = await this.readChained(streamId, {
      direction: backwards ? BACKWARDS : FORWARDS,
      fromRevision: options.fromRevision ?? (backwards ? END : START),
      ...(options.maxCount !== undefined ? { maxCount: options.maxCount } : {}),
    });
    const ascending = backwards ? [...read].reverse() : read;
    const first = ascending[0];
    if (!first) return [];
    const predecessor =
      first.stored.revision === 0n ? undefined : await this.readChained(streamId, { fromRevision: first.stored.revision - 1n, maxCount: 1 });
    const before = predecessor?.[0];
    checkStreamRun(ascending, before && before.stored.revision + 1n === first.stored.revision ? before.hash : undefined);
    return read.map((e) => e.stored);
  }

  /** Revision of the stream's last event (null when the stream does not exist); the event's body is not checked. */
  async streamRevision(streamId: string): Promise<bigint | null> {
    this.assertOpen();
    try {
      for await (const resolved of this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 })) {
        if (resolved.event) return resolved.event.revision;
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return null;
      throw err;
    }
    return null;
  }

  /**
   * Reads `$all` forwards, strictly after `options.after`, skipping system events; at most `maxCount`
   * non-system events. Every event's own hash is checked, and the links between events of one stream
   * that the read returns together.
   * @throws EventIntegrityError on the first bad event (nothing is returned).
   */
  async readAll(options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    return this.readAllOf(options);
  }

  /**
   * {@link readAll}, or when `types` are given, the events of those types only (at most `maxCount` of them): the
   * others are passed over without being checked or decoded, so that a subscription is neither stopped by an event
   * it does not read (a type this build does not know, written by a newer replica) nor pays for checking it. Links
   * are then checked between neighbouring events the page returns ({@link checkLinksBetweenNeighbours}).
   */
  private async readAllOf(options: ReadAllOptions, types?: readonly string[]): Promise<StoredEvent[]> {
    this.assertOpen();
    return this.faults.notedAsync(() => this.readAllChecked(options, types));
  }

  private async readAllChecked(options: ReadAllOptions, types?: readonly string[]): Promise<StoredEvent[]> {
    const maxCount = options.maxCount ?? Number.POSITIVE_INFINITY;
    if (maxCount <= 0) return [];
    const after = options.after ?? -1n;
    const wanted = types ? new Set(types) : undefined;
    const out: ChainedEvent[] = [];
    const read = this.client.readAll({ direction: FORWARDS, fromPosition: positionAfter(options.after) });
    let complete = true;
    try {
      for await (const resolved of read) {
        if (!resolved.event || isSystemEvent(resolved.event)) continue;
        if (wanted && !wanted.has(resolved.event.type)) continue;
        const chained = checkRecorded(resolved.event, resolved.commitPosition, this.readPath);
        if (chained.stored.position <= after) continue;
        out.push(chained);
        if (out.length >= maxCount) {
          complete = false;
          break;
        }
      }
    } finally {
      if (!complete) await read.cancel().catch(() => undefined);
    }
    if (wanted) checkLinksBetweenNeighbours(out);
    else checkLinksWithinPage(out);
    return out.map((e) => e.stored);
  }

  /** {@link EventStore.integrityFaults}: the stored events this instance's reads refused (readiness lists them). */
  integrityFaults(): readonly EventIntegrityError[] {
    return this.faults.list();
  }

  /** Commit position of the last non-system event in `$all` (`-1n` when there is none). */
  async headPosition(): Promise<bigint> {
    this.assertOpen();
    const read = this.client.readAll({ direction: BACKWARDS, fromPosition: END });
    let found: bigint = -1n;
    try {
      for await (const resolved of read) {
        const ev = resolved.event;
        if (!ev || isSystemEvent(ev)) continue;
        found = knownPosition(ev.position?.commit ?? resolved.commitPosition);
        break;
      }
    } finally {
      await read.cancel().catch(() => undefined);
    }
    return found;
  }

  /**
   * Catch-up subscription to `$all` (catch-up-subscription.ts) through pages of {@link readAll}. With
   * `eventTypes`, a page holds those types only, read client-side (the other events are passed over unchecked),
   * and the checkpoint passes the others by the log's head read before each page. Woken at once by this
   * instance's appends and by the live subscription to `$all`; polls every `pollIntervalMs` meanwhile.
   * Stops for good on a bad stored event of the types it reads (see {@link Subscription.failure}).
   */
  subscribeToAll(handler: EventHandler, options: SubscribeOptions = {}): Subscription {
    this.assertOpen();
    this.liveWake.start();
    return this.subscriptions.start(
      {
        readPage: (after, max, types) => this.readAllOf({ after, maxCount: max }, types),
        head: () => this.headPosition(),
        isClosed: () => this.closed,
      },
      handler,
      options,
      { pageSize: this.pageSize, idleMs: this.pollIntervalMs, retry: this.retry, logger: this.logger },
    );
  }

  /** True when the server answers a read within `pingTimeoutMs`. */
  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      const read = this.client.readStream(PING_STREAM, { maxCount: 1, deadline: this.pingTimeoutMs });
      for await (const _ of read) break;
      return true;
    } catch (err) {
      return err instanceof StreamNotFoundError;
    }
  }

  /** Stops every subscription (waiting for in-flight handlers) and the live wake-up, then disposes the client. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.subscriptions.stopAll();
    await this.liveWake.stop();
    this.closed = true;
    await this.client.dispose();
  }

  /** Reads a stream and checks each event's own hash (links are the caller's); `[]` when absent. */
  private async readChained(
    streamId: string,
    options: { direction?: typeof FORWARDS | typeof BACKWARDS; fromRevision: bigint | typeof START | typeof END; maxCount?: number },
  ): Promise<ChainedEvent[]> {
    const out: ChainedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, options)) {
        if (resolved.event && !isSystemEvent(resolved.event)) out.push(checkRecorded(resolved.event, resolved.commitPosition, this.readPath));
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  /** The stream's last event, its own hash checked (`undefined` when the stream does not exist). */
  private async streamTail(streamId: string): Promise<ChainedEvent | undefined> {
    const [last] = await this.faults.notedAsync(() => this.readChained(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 }));
    return last;
  }

  /**
   * When `inputs` are already stored (same ids and types, in order) where an append with `expected`
   * would have put them, the result of that append; else undefined. `current` is the stream's last revision.
   */
  private async idempotentReplay(
    streamId: string,
    inputs: readonly ChainInput[],
    expected: ExpectedRevision,
    current: bigint | 'no_stream',
  ): Promise<AppendResult | undefined> {
    if (current === 'no_stream') return undefined;
    const count = BigInt(inputs.length);
    const first = typeof expected === 'bigint' ? expected + 1n : expected === 'no_stream' ? 0n : current - count + 1n;
    if (first < 0n || first + count - 1n > current || !firstRevisionFits(expected, first)) return undefined;
    const stored = await this.readStream(streamId, { fromRevision: first, maxCount: inputs.length });
    if (stored.length !== inputs.length || stored.some((e, i) => e.id !== inputs[i]!.id || e.type !== inputs[i]!.type)) return undefined;
    const last = stored[stored.length - 1]!;
    return { nextExpectedRevision: last.revision, position: last.position };
  }

  private async lastPositionOf(streamId: string): Promise<bigint> {
    const [last] = await this.readStream(streamId, { direction: 'backwards', maxCount: 1 });
    return last?.position ?? -1n;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('EventStoreDbEventStore is closed');
  }
}
