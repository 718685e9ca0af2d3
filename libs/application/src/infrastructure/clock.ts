/**
 * The service's notion of "now", as a port: production reads the system clock; end-to-end tests inject a clock
 * they can move (for example past the ten-minute fresh-signature window of spec §5 without waiting ten minutes).
 * Decisions still receive time in their command (`CommandContext.now`); this is where that time comes from.
 */
export interface Clock {
  now(): Date;
}

export const CLOCK = Symbol('CLOCK');

export const systemClock: Clock = { now: () => new Date() };

/** A clock that starts at the system time and can be moved forward by tests. */
export class AdjustableClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Moves this clock `seconds` ahead of the system clock (cumulative). */
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
}
