/**
 * The decider pattern: every stream type has one pure decider (docs/architecture.md, "Streams and deciders").
 *
 * - `initialState`: the state of a stream that does not exist yet;
 * - `evolve(state, event)`: folds one stored event into the state (total: never throws);
 * - `decide(command, state)`: the events the command produces, or a thrown {@link DomainError} carrying the
 *   spec's error code (spec §7). An empty array means "nothing to do" (an idempotent repeat).
 *
 * Deciders do no I/O and read no clock: time and every fact from outside the stream arrive inside the command,
 * so a rule is tested by giving events, sending a command and checking the events or the error.
 */
import type { DomainEvent } from './events';

/** One event as a decider produces it: the `{type, data}` of the union, without metadata. */
export type DecidedEvent = DomainEvent;

export interface Decider<Command, Event extends DomainEvent, State> {
  /** The event types the decider's stream holds (a stored event of another type is a corrupted stream). */
  readonly eventTypes: readonly Event['type'][];
  readonly initialState: State;
  evolve(state: State, event: Event): State;
  /** @throws DomainError with the code of the refused rule. */
  decide(command: Command, state: State): readonly Event[];
}

/** Folds `events` from the decider's initial state. */
export function fold<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, events: readonly E[]): S {
  let state = decider.initialState;
  for (const event of events) state = decider.evolve(state, event);
  return state;
}
