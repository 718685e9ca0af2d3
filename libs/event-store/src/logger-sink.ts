import type { EventStoreLogger } from './event-store.port';

/** The part of a line logger the adapters need (Nest's `Logger` has this shape). */
export interface LineLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
}

function formatValue(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(`${value.name}: ${value.message}`);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return JSON.stringify(value);
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * An {@link EventStoreLogger} writing one line per entry to `target`: the message, then the details as
 * `key=value` pairs (errors as their name and message, bigints as decimals). `info` goes to `log`.
 */
export function eventStoreLogger(target: LineLogger): EventStoreLogger {
  return (level, message, details) => {
    const pairs = details ? Object.entries(details).map(([k, v]) => `${k}=${formatValue(v)}`) : [];
    const line = pairs.length > 0 ? `${message} ${pairs.join(' ')}` : message;
    if (level === 'info') target.log(line);
    else target[level](line);
  };
}
