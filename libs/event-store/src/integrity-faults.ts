import { EventIntegrityError, MAX_INTEGRITY_FAULTS } from './event-store.port';

/**
 * The stored events an event store instance refused on read, for {@link EventStore.integrityFaults}: oldest first,
 * one per event, position and reason, at most {@link MAX_INTEGRITY_FAULTS}. Not logged here: the reader that met a
 * fault logs it (a subscription stops, a command fails, the log check ends).
 */
export class IntegrityFaults {
  private readonly faults: EventIntegrityError[] = [];

  list(): readonly EventIntegrityError[] {
    return this.faults;
  }

  note(err: EventIntegrityError): void {
    if (this.faults.length >= MAX_INTEGRITY_FAULTS) return;
    if (this.faults.some((f) => f.position === err.position && f.eventId === err.eventId && f.reason === err.reason)) return;
    this.faults.push(err);
  }

  /** Runs a read; a stored event it refuses is noted before the error goes on. */
  noted<T>(read: () => T): T {
    try {
      return read();
    } catch (err) {
      if (err instanceof EventIntegrityError) this.note(err);
      throw err;
    }
  }

  /** {@link noted} for a read that answers later. */
  async notedAsync<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      if (err instanceof EventIntegrityError) this.note(err);
      throw err;
    }
  }
}
