import { randomUUID } from 'node:crypto';
import type { EventMetadata, NewEvent } from '@svc/event-store';
import { CURRENT_SCHEMA_VERSION, type DataOf, type DomainEventType } from '@svc/domain';

/**
 * Who and what caused a command: carried into the metadata of every event the command appends
 * (correlation id, causation id, actor, time). Time comes in here, never from deep inside a decision.
 */
export interface CommandContext {
  correlationId: string;
  causationId: string;
  actor: string;
  now: Date;
}

export function commandContext(actor: string, requestId?: string, now: Date = new Date()): CommandContext {
  const correlationId = requestId ?? randomUUID();
  return { correlationId, causationId: correlationId, actor, now };
}

/**
 * Context of a processor reacting to a stored event: same correlation, caused by that event, decided now.
 * @param event the stored event reacted to (its id and metadata).
 */
export function reactionContext(event: { id: string; metadata: EventMetadata }, actor: string, now: Date = new Date()): CommandContext {
  return { correlationId: event.metadata.correlationId, causationId: event.id, actor, now };
}

/** Builds a typed event record with its metadata (the type's current schema version, libs/domain schema-versions). */
export function newEvent<T extends DomainEventType>(type: T, data: DataOf<T>, ctx: CommandContext): NewEvent<T, DataOf<T>> {
  const metadata: EventMetadata = {
    correlationId: ctx.correlationId,
    causationId: ctx.causationId,
    actor: ctx.actor,
    schemaVersion: CURRENT_SCHEMA_VERSION[type],
    occurredAt: ctx.now.toISOString(),
  };
  return { type, data, metadata };
}
