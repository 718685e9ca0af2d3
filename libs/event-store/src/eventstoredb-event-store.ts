import { randomUUID } from 'node:crypto';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type JSONType,
  type Position,
  type ReadPosition,
  type RecordedEvent,
} from '@eventstore/db-client';
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

/** Options of {@link EventStoreDbEventStore}. */
export interface EventStoreDbEventStoreOptions {
  /** Connection string, e.g. `esdb://localhost:2113?tls=false` (the `EVENTSTORE_URL` setting). */
  connectionString: string;
  /** Schemas checked on append and on read. */
  schemas: EventSchemaRegistry;
  /** Optional log sink (subscription retries and reconnects). */
  logger?: EventStoreLogger;
  /** Backoff when a subscription handler rejects or the subscription drops. */
  retry?: SubscriptionRetryOptions;
  /** Deadline of `ping()`, in milliseconds; default 2000. */
  pingTimeoutMs?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Stream read by `ping()`: a user stream that is never written (reading it needs no admin rights). */
const PING_STREAM = 'svc-event-store-ping';

function isSystemType(type: string): boolean {
  return type.startsWith('$');
}

function toEsdbExpected(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return expected;
  }
}

/** `after` as an ESDB read position (single-node logs have commit = prepare for every event). */
function positionAfter(after: bigint | undefined): ReadPosition {
  return after === undefined || after < 0n ? START : ({ commit: after, prepare: after } satisfies Position);
}

/**
 * Event store over EventStoreDB (gRPC client `@eventstore/db-client`).
 *
 * Events are JSON with JSON metadata (our {@link EventMetadata} plus `$correlationId`/`$causationId`
 * for the server's system projections; those two are removed again on read). `position` is the
 * event's commit position in `$all` (bigint). System events (`$`-prefixed types) are never returned.
 */
export class EventStoreDbEventStore implements EventStore {
  private readonly client: EventStoreDBClient;
  private readonly schemas: EventSchemaRegistry;
  private readonly logger?: EventStoreLogger;
  private readonly retry: Required<SubscriptionRetryOptions>;
  private readonly pingTimeoutMs: number;
  private readonly subscriptions = new Set<EsdbSubscription>();
  private closed = false;

  /**
   * Creates the client (connection is lazy: nothing is contacted before the first call).
   * @throws Error when the connection string cannot be parsed.
   */
  constructor(options: EventStoreDbEventStoreOptions) {
    this.client = EventStoreDBClient.connectionString(options.connectionString);
    this.schemas = options.schemas;
    this.logger = options.logger;
    this.retry = resolveRetry(options.retry);
    this.pingTimeoutMs = options.pingTimeoutMs ?? 2000;
  }

  /**
   * Appends `events` atomically to `streamId` after the server checked `expectedRevision`.
   * @throws EventSchemaError when an event, its metadata or its id (must be a UUID) is invalid; nothing is sent.
   * @throws WrongExpectedRevisionError when the server reports a wrong expected version.
   * @throws Error (client errors: unavailable, access denied, …) otherwise.
   */
  async append(streamId: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    if (typeof streamId !== 'string' || streamId.length === 0) throw new Error('streamId must be a non-empty string');
    if (streamId.startsWith('$')) throw new Error(`append to ${streamId}: system streams are not writable here`);
    if (events.length === 0) throw new Error(`append to ${streamId}: no events`);
    const payload = events.map((e) => {
      this.schemas.validateEvent(e);
      if (e.id !== undefined && !UUID.test(e.id)) throw new EventSchemaError(e.type, `id must be a UUID, got ${JSON.stringify(e.id)}`);
      return jsonEvent({
        id: e.id ?? randomUUID(),
        type: e.type,
        data: e.data as JSONType,
        metadata: {
          ...e.metadata,
          $correlationId: e.metadata.correlationId,
          $causationId: e.metadata.causationId,
        },
      });
    });
    try {
      const result = await this.client.appendToStream(streamId, payload, { expectedRevision: toEsdbExpected(expectedRevision) });
      const position = result.position?.commit ?? (await this.lastPositionOf(streamId));
      return { nextExpectedRevision: result.nextExpectedRevision, position };
    } catch (err) {
      if (err instanceof WrongExpectedVersionError) {
        const actual = err.actualVersion;
        throw new WrongExpectedRevisionError(streamId, expectedRevision, typeof actual === 'bigint' ? actual : 'no_stream');
      }
      throw err;
    }
  }

  /**
   * Reads one stream (forwards from `fromRevision` or 0; backwards from `fromRevision` or the end).
   * An absent stream reads as `[]`. `position` is the commit position when the server reports it
   * (EventStoreDB >= 22.6), else `-1n`.
   * @throws EventSchemaError when a stored event does not satisfy its schema.
   */
  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    if (options.maxCount === 0) return [];
    const backwards = options.direction === 'backwards';
    const out: StoredEvent[] = [];
    try {
      const read = this.client.readStream(streamId, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision: options.fromRevision ?? (backwards ? END : START),
        ...(options.maxCount !== undefined ? { maxCount: options.maxCount } : {}),
      });
      for await (const resolved of read) {
        const stored = this.toStored(resolved.event, resolved.commitPosition);
        if (stored) out.push(stored);
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  /**
   * Reads `$all` forwards, strictly after `options.after`, skipping system events; at most `maxCount`
   * non-system events.
   * @throws EventSchemaError when a stored event does not satisfy its schema.
   */
  async readAll(options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    const maxCount = options.maxCount ?? Number.POSITIVE_INFINITY;
    if (maxCount <= 0) return [];
    const after = options.after ?? -1n;
    const out: StoredEvent[] = [];
    const read = this.client.readAll({ direction: FORWARDS, fromPosition: positionAfter(options.after) });
    let complete = true;
    try {
      for await (const resolved of read) {
        const stored = this.toStored(resolved.event, resolved.commitPosition);
        if (!stored || stored.position <= after) continue;
        out.push(stored);
        if (out.length >= maxCount) {
          complete = false;
          break;
        }
      }
    } finally {
      if (!complete) await read.cancel().catch(() => undefined);
    }
    return out;
  }

  /** Commit position of the last non-system event in `$all` (`-1n` when there is none). */
  async headPosition(): Promise<bigint> {
    this.assertOpen();
    const read = this.client.readAll({ direction: BACKWARDS, fromPosition: END });
    let found: bigint = -1n;
    try {
      for await (const resolved of read) {
        const ev = resolved.event;
        if (!ev || isSystemType(ev.type)) continue;
        found = ev.position?.commit ?? resolved.commitPosition ?? -1n;
        break;
      }
    } finally {
      await read.cancel().catch(() => undefined);
    }
    return found;
  }

  /**
   * Catch-up subscription to `$all` from `options.after` (server-side filter excluding system events;
   * `eventTypes` filtered client-side so that the checkpoint still advances). Serial delivery; a handler
   * rejection retries the same event with backoff; a dropped subscription resubscribes from the last
   * handled position.
   */
  subscribeToAll(handler: EventHandler, options: SubscribeOptions = {}): Subscription {
    this.assertOpen();
    const sub = new EsdbSubscription(this.client, handler, options, {
      retry: this.retry,
      logger: this.logger,
      convert: (event, commitPosition) => this.toStored(event, commitPosition),
      onStopped: (s) => this.subscriptions.delete(s),
    });
    this.subscriptions.add(sub);
    sub.start();
    return sub;
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

  /** Stops every subscription (waiting for in-flight handlers), then disposes the client. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    this.closed = true;
    await this.client.dispose();
  }

  private async lastPositionOf(streamId: string): Promise<bigint> {
    const [last] = await this.readStream(streamId, { direction: 'backwards', maxCount: 1 });
    return last?.position ?? -1n;
  }

  /**
   * Converts and validates a recorded event; `undefined` for system events and unresolved links.
   * @throws EventSchemaError when the event is not JSON or does not satisfy its schema.
   */
  private toStored(event: RecordedEvent | undefined, commitPosition: bigint | undefined): StoredEvent | undefined {
    if (!event || isSystemType(event.type) || event.streamId.startsWith('$')) return undefined;
    if (!event.isJson) throw new EventSchemaError(event.type, `stored event ${event.id} is not JSON`);
    const raw = event.metadata;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || raw instanceof Uint8Array) {
      throw new EventSchemaError(event.type, `stored event ${event.id} has no JSON metadata object`);
    }
    const metadata: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(raw)) if (!key.startsWith('$')) metadata[key] = value;
    this.schemas.validateEvent({ type: event.type, data: event.data, metadata });
    return {
      id: event.id,
      type: event.type,
      data: event.data as Record<string, unknown>,
      metadata: metadata as unknown as EventMetadata,
      streamId: event.streamId,
      revision: event.revision,
      position: event.position?.commit ?? commitPosition ?? -1n,
    };
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('EventStoreDbEventStore is closed');
  }
}

interface EsdbSubscriptionConfig {
  retry: Required<SubscriptionRetryOptions>;
  logger?: EventStoreLogger;
  convert: (event: RecordedEvent | undefined, commitPosition: bigint | undefined) => StoredEvent | undefined;
  onStopped: (s: EsdbSubscription) => void;
}

/** Catch-up subscription over `$all`, resubscribing from the last handled position after a drop. */
class EsdbSubscription implements Subscription {
  private readonly tracker: CheckpointTracker;
  private readonly backoffSleep = new WakeableSleep();
  private readonly types?: ReadonlySet<string>;
  private current: AllStreamSubscription | undefined;
  private stopped = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly handler: EventHandler,
    options: SubscribeOptions,
    private readonly config: EsdbSubscriptionConfig,
  ) {
    this.tracker = new CheckpointTracker(options.after ?? -1n);
    this.types = options.eventTypes ? new Set(options.eventTypes) : undefined;
  }

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.backoffSleep.wake();
      const sub = this.current;
      if (sub) {
        await sub.unsubscribe().catch(() => undefined);
        // Ends a pending `for await` (the client does not end the readable on cancel).
        sub.destroy();
      }
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
    let failures = 0;
    try {
      while (!this.stopped) {
        const sub = this.client.subscribeToAll({
          fromPosition: positionAfter(this.tracker.current),
          filter: excludeSystemEvents(),
        });
        this.current = sub;
        try {
          for await (const resolved of sub) {
            if (this.stopped) break;
            const event = this.config.convert(resolved.event, resolved.commitPosition);
            if (!event || event.position <= this.tracker.current) continue;
            failures = 0;
            if (this.types && !this.types.has(event.type)) {
              this.tracker.advance(event.position);
              continue;
            }
            const handled = await deliverWithRetry(event, ctx);
            if (!handled) break;
            this.tracker.advance(event.position);
          }
          if (!this.stopped) throw new Error('subscription ended by the server');
        } catch (err) {
          if (this.stopped) break;
          failures++;
          const delay = backoffDelay(failures, this.config.retry);
          this.config.logger?.(failures >= 5 ? 'error' : 'warn', 'subscription to $all dropped; resubscribing', {
            after: this.tracker.current.toString(),
            attempt: failures,
            retryInMs: delay,
            err,
          });
          await sub.unsubscribe().catch(() => undefined);
          sub.destroy();
          await this.backoffSleep.sleep(delay);
        }
      }
    } finally {
      const sub = this.current;
      this.current = undefined;
      if (sub && !sub.destroyed) {
        await sub.unsubscribe().catch(() => undefined);
        sub.destroy();
      }
      this.tracker.stop();
      this.config.onStopped(this);
    }
  }
}
