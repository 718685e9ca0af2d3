import { Inject, Injectable } from '@nestjs/common';
import { fold, type Decider, type DomainEvent } from '@svc/domain';
import { EVENT_STORE, WrongExpectedRevisionError, type AppendResult, type EventStore, type ExpectedRevision } from '@svc/event-store';
import { newEvent, type CommandContext } from '../infrastructure/command-context';
import { isEventOf } from './stored-events';

/** A stream folded by its decider, with the revision to append at. */
export interface LoadedState<S> {
  state: S;
  /** `'no_stream'` when the stream does not exist, else the revision of its last event. */
  revision: ExpectedRevision;
}

/** Result of {@link Decisions.handle}. */
export interface Decided<E extends DomainEvent, S> {
  /** The state after the decided events. */
  state: S;
  /** The events appended (empty when the command was a no-op). */
  events: readonly E[];
  /** Position of the last appended event, or null when nothing was appended. */
  appended: AppendResult | null;
}

/** A command, or a function building it from the loaded state (to enrich it with facts the state selects). */
export type CommandSource<C, S> = C | ((state: S) => C | Promise<C>);

/** How {@link Decisions.handle} starts from a stream. */
export interface HandleOptions {
  /**
   * The caller expects the stream not to exist (a fresh random id, or a uniqueness claim such as one acceptance
   * per signer and version): decide on the initial state and append with expected revision `no_stream`, without
   * reading first. If the stream exists, the append fails and the command is decided again on the real state.
   * Only for deciders whose refusals on the initial state do not depend on the state.
   */
  expectNew?: boolean;
}

const MAX_ATTEMPTS = 4;
const noop = (): void => undefined;
/** Streams whose folded state is kept after this process appended to them (most recent first out last). */
const CACHE_SIZE = 20_000;

interface CachedStream {
  decider: object;
  state: unknown;
  revision: bigint;
}

/**
 * Runs deciders against the event store (docs/architecture.md "Deciders"): load the stream, fold it, decide,
 * append at the loaded revision.
 *
 * The state of a stream this process appended to or read is kept (up to 20,000 streams): deciding on it is safe
 * because the append still names the revision it was decided at, so a stream changed meanwhile (by another
 * process) fails the append and is read again. Reads of facts for other decisions ({@link load}) ask the store for
 * the stream's last revision (an index probe, no event read) and fold again only when it moved, unless the caller's action is idempotent and says
 * so (`cached`: no read at all). An event edited in place behind the service before the kept state's revision is
 * found by the next full read of its stream (a restart, a rebuild), not by these revision checks.
 */
@Injectable()
export class Decisions {
  private readonly cache = new Map<string, CachedStream>();
  /** The last command running or waiting on each stream, which the next one on that stream waits for. */
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  /**
   * Reads `streamId` and folds it with `decider`; a state this process holds for the stream is returned when the
   * stream's last revision is still the one it was folded to. With `cached`, a held state is returned without
   * asking the store (possibly behind another process's appends: only for idempotent reactions).
   * @throws Error when the stream holds an event type the decider does not know (a corrupted stream).
   */
  async load<C, E extends DomainEvent, S>(streamId: string, decider: Decider<C, E, S>, options: { cached?: boolean } = {}): Promise<LoadedState<S>> {
    const hit = this.cached(streamId, decider);
    if (hit) {
      if (options.cached) return hit;
      // The state held is current when the stream still ends at the revision it was folded to: the store's stream
      // index answers that without reading an event (the state itself came from a checked read).
      if ((await this.store.streamRevision(streamId)) === hit.revision) return hit;
    }
    const stored = await this.store.readStream(streamId);
    const events: E[] = [];
    for (const event of stored) {
      if (!isEventOf<E>(event, decider.eventTypes)) throw new Error(`stream ${streamId} holds an unexpected ${event.type} at revision ${event.revision}`);
      events.push(event);
    }
    const loaded: LoadedState<S> = { state: fold(decider, events), revision: stored.length === 0 ? 'no_stream' : stored[stored.length - 1]!.revision };
    if (typeof loaded.revision === 'bigint') this.remember(streamId, decider, loaded.state, loaded.revision);
    return loaded;
  }

  /**
   * Loads (or takes the state this process holds), folds, decides and appends with the expected revision.
   *
   * Commands on one stream run one after another in this process (each waits for the one before it, in arrival
   * order), so that parallel requests on one resource (forty PATCHes of one webhook) do not race each other to the
   * same revision. Across processes (API replicas, the worker) a revision conflict remains possible: the stream is
   * then read again and the command decided again, up to 4 attempts with a short random pause between them. That is
   * safe because every decider re-judges the command against the newer state (a second submission then sees the
   * first and is refused, an at-least-once outcome sees it was recorded and decides nothing). The command source is
   * called again on each attempt. The command source must not itself handle a command on the same stream.
   * @throws DomainError from the decider, with the spec's code.
   * @throws WrongExpectedRevisionError when the stream kept changing through every attempt.
   */
  handle<C, E extends DomainEvent, S>(
    streamId: string,
    decider: Decider<C, E, S>,
    source: CommandSource<C, S>,
    ctx: CommandContext,
    options: HandleOptions = {},
  ): Promise<Decided<E, S>> {
    const before = this.running.get(streamId);
    const run = before ? before.then(noop, noop).then(() => this.attempt(streamId, decider, source, ctx, options)) : this.attempt(streamId, decider, source, ctx, options);
    this.running.set(streamId, run);
    const release = () => {
      if (this.running.get(streamId) === run) this.running.delete(streamId);
    };
    run.then(release, release);
    return run;
  }

  private async attempt<C, E extends DomainEvent, S>(
    streamId: string,
    decider: Decider<C, E, S>,
    source: CommandSource<C, S>,
    ctx: CommandContext,
    options: HandleOptions,
  ): Promise<Decided<E, S>> {
    for (let attempt = 1; ; attempt++) {
      if (attempt > 2) await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
      const optimistic = attempt === 1 ? (options.expectNew ? { state: decider.initialState, revision: 'no_stream' as const } : this.cached(streamId, decider)) : undefined;
      const loaded = optimistic ?? (await this.load(streamId, decider));
      const command = typeof source === 'function' ? await (source as (state: S) => C | Promise<C>)(loaded.state) : source;
      let events: readonly E[];
      try {
        events = decider.decide(command, loaded.state);
      } catch (err) {
        // A refusal decided on a state not read from the store is confirmed on the store's state.
        if (optimistic && !options.expectNew) {
          this.cache.delete(streamId);
          continue;
        }
        throw err;
      }
      if (events.length === 0) {
        // "Nothing to do" on a possibly stale state is confirmed on the store's state.
        if (optimistic && !options.expectNew) {
          this.cache.delete(streamId);
          continue;
        }
        return { state: loaded.state, events, appended: null };
      }
      try {
        const appended = await this.store.append(
          streamId,
          events.map((e) => newEvent(e.type, e.data, ctx)),
          loaded.revision,
        );
        let state = loaded.state;
        for (const e of events) state = decider.evolve(state, e);
        this.remember(streamId, decider, state, appended.nextExpectedRevision);
        return { state, events, appended };
      } catch (err) {
        this.cache.delete(streamId);
        if (!(err instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw err;
      }
    }
  }

  private cached<C, E extends DomainEvent, S>(streamId: string, decider: Decider<C, E, S>): LoadedState<S> | undefined {
    const hit = this.cache.get(streamId);
    if (!hit || hit.decider !== decider) return undefined;
    return { state: hit.state as S, revision: hit.revision };
  }

  private remember(streamId: string, decider: object, state: unknown, revision: bigint): void {
    this.cache.delete(streamId);
    this.cache.set(streamId, { decider, state, revision });
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
  }
}
