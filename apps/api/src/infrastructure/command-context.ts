import { randomUUID } from 'node:crypto';
import type { EventMetadata, NewEvent } from '@svc/event-store';
import type { DataOf, DomainEventType } from '@svc/domain';

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

/** Builds a typed event record with its metadata (schema version 1). */
export function newEvent<T extends DomainEventType>(type: T, data: DataOf<T>, ctx: CommandContext): NewEvent<T, DataOf<T>> {
  const metadata: EventMetadata = {
    correlationId: ctx.correlationId,
    causationId: ctx.causationId,
    actor: ctx.actor,
    schemaVersion: 1,
    occurredAt: ctx.now.toISOString(),
  };
  return { type, data, metadata };
}
