/**
 * Shared pieces of the event store suites: the test-only schemas (`test-fixtures/event-schemas`),
 * event builders, and small assertions. Test code only.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { EventSchemaRegistry } from '../event-schema-registry';
import { WrongExpectedRevisionError, type EventMetadata, type EventUpcaster, type NewEvent } from '../event-store.port';

export const FIXTURE_SCHEMAS_DIR = path.join(__dirname, '..', '..', 'test-fixtures', 'event-schemas');
export const fixtureSchemas = EventSchemaRegistry.fromDirectory(FIXTURE_SCHEMAS_DIR);
export const FAST_RETRY = { initialDelayMs: 5, maxDelayMs: 20 };

/** One entry written through an adapter's logger. */
export interface LogLine {
  level: string;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * The test upcaster: `OtherThingHappened` v1 → v2 adds `label` (`v1:<thingId>`); everything else as stored.
 */
export const fixtureUpcast: EventUpcaster = (type, schemaVersion, data) =>
  type === 'OtherThingHappened' && schemaVersion === 1
    ? { data: { ...data, label: `v1:${String(data['thingId'])}` }, schemaVersion: 2 }
    : { data: { ...data }, schemaVersion };

export function meta(overrides: Partial<EventMetadata> = {}): EventMetadata {
  return {
    correlationId: randomUUID(),
    causationId: randomUUID(),
    actor: 'service:contract-test',
    schemaVersion: 1,
    occurredAt: new Date().toISOString(),
    ...overrides,
  };
}

export function thing(n: number, extra: Partial<NewEvent> = {}): NewEvent {
  return { type: 'ThingHappened', data: { thingId: `t-${n}`, n }, metadata: meta(), ...extra };
}

export function other(id: string): NewEvent {
  return { type: 'OtherThingHappened', data: { thingId: id }, metadata: meta() };
}

export const streamId = (label: string): string => `contract_${label}-${randomUUID()}`;

export async function expectConflict(
  p: Promise<unknown>,
  expected: { streamId: string; actual: bigint | 'no_stream' },
): Promise<void> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WrongExpectedRevisionError);
  const conflict = err as WrongExpectedRevisionError;
  expect(conflict.streamId).toBe(expected.streamId);
  expect(conflict.actual).toBe(expected.actual);
}

/** The rejection of `p` (fails the test when `p` resolves). */
export async function rejectionOf(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

/** Resolves with `value` after `ms` milliseconds (to check that something did not happen yet). */
export const after = <T>(ms: number, value: T): Promise<T> => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
