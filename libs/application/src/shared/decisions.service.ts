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

const MAX_ATTEMPTS = 4;

/**
 * Runs deciders against the event store (docs/architecture.md "Deciders"): load the stream, fold it, decide,
 * append at the loaded revision.
 */
@Injectable()
export class Decisions {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  /**
   * Reads `streamId` and folds it with `decider`.
   * @throws Error when the stream holds an event type the decider does not know (a corrupted stream).
   */
  async load<C, E extends DomainEvent, S>(streamId: string, decider: Decider<C, E, S>): Promise<LoadedState<S>> {
    const stored = await this.store.readStream(streamId);
    const events: E[] = [];
    for (const event of stored) {
      if (!isEventOf<E>(event, decider.eventTypes)) throw new Error(`stream ${streamId} holds an unexpected ${event.type} at revision ${event.revision}`);
      events.push(event);
    }
    return { state: fold(decider, events), revision: stored.length === 0 ? 'no_stream' : stored[stored.length - 1]!.revision };
  }

  /**
   * Loads, folds, decides and appends with the expected revision. On a revision conflict (someone appended to the
   * stream meanwhile) it reloads and decides again, up to 4 attempts: this is safe because every decider re-judges
   * the command against the newer state (a second submission then sees the first and is refused, an at-least-once
   * outcome sees it was recorded and decides nothing). The command source is called again on each attempt.
   * @throws DomainError from the decider, with the spec's code.
   * @throws WrongExpectedRevisionError when the stream kept changing through every attempt.
   */
  async handle<C, E extends DomainEvent, S>(
    streamId: string,
    decider: Decider<C, E, S>,
    source: CommandSource<C, S>,
    ctx: CommandContext,
  ): Promise<Decided<E, S>> {
    for (let attempt = 1; ; attempt++) {
      const loaded = await this.load(streamId, decider);
      const command = typeof source === 'function' ? await (source as (state: S) => C | Promise<C>)(loaded.state) : source;
      const events = decider.decide(command, loaded.state);
      if (events.length === 0) return { state: loaded.state, events, appended: null };
      try {
        const appended = await this.store.append(
          streamId,
          events.map((e) => newEvent(e.type, e.data, ctx)),
          loaded.revision,
        );
        let state = loaded.state;
        for (const e of events) state = decider.evolve(state, e);
        return { state, events, appended };
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw err;
      }
    }
  }
}
