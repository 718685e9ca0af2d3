/**
 * Given / when / then over a pure decider (docs/architecture.md, "Streams and deciders"): given the events of
 * a stream, when a command is decided, then either the events it produces or the code of the refusal.
 *
 * The outcome is a plain value so that a test compares it with one deep equality and its failure message shows
 * both sides: `{ events: [...] }` for a decision (an empty list is the idempotent no-op), `{ refused: code }`
 * for a {@link DomainError}. Any other error is a defect of the decider and is thrown as is.
 */
import { fold, type Decider } from '../decider';
import { DomainError, type ErrorCode } from '../errors';
import type { DomainEvent } from '../events';

/** What a decision came to: the events to append, or the spec code it was refused with (spec §7). */
export type Outcome<E extends DomainEvent> = { events: readonly E[] } | { refused: ErrorCode };

/** The events given to a decider, waiting for the command to decide. */
export interface Given<C, E extends DomainEvent, S> {
  /** The state the given events fold to (`fold` from `initialState`). */
  readonly state: S;
  /** Decides `command` against the folded state. @throws any error other than a DomainError, unchanged. */
  when(command: C): Outcome<E>;
}

/**
 * Folds `events` (the stream as stored, oldest first) with `decider`, ready for a command.
 * @throws whatever `evolve` throws (it should not: `evolve` is total).
 */
export function given<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, events: readonly E[] = []): Given<C, E, S> {
  const state = fold(decider, events);
  return {
    state,
    when(command) {
      try {
        return { events: decider.decide(command, state) };
      } catch (err) {
        if (err instanceof DomainError) return { refused: err.code };
        throw err;
      }
    },
  };
}

/** The outcome of a decision that produced `events` (none: the command was an idempotent repeat). */
export const decided = <E extends DomainEvent>(...events: E[]): Outcome<E> => ({ events });

/** The outcome of a decision refused with `code`. */
export const refused = (code: ErrorCode): { refused: ErrorCode } => ({ refused: code });
