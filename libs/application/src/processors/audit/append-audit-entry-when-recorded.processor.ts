import { Inject, Injectable } from '@nestjs/common';
import { auditLogDecider, draftDecider, sessionDecider, streams } from '@svc/domain';
import { auditEntryHash } from '@svc/evidence';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type MembershipDoc } from '@svc/projections';
import { reactionContext } from '../../infrastructure/command-context';
import { Decisions } from '../../shared/decisions.service';
import type { StoredDomainEvent } from '../../shared/stored-events';
import type { Processor } from '../processor';
import { AUDITED_EVENT_TYPES, auditActionOf, type AuditedEvent, type AuditTarget } from './audit-actions';

/**
 * Appends an entry to the organization's hash-chained audit log for every dashboard action and security-relevant
 * change (docs/api.md "Audit log"), built from the state of the log's stream: sequence = last + 1, previousHash =
 * the last hash, hash over the RFC 8785 encoding of the fields. A redelivered event appends nothing (the decider
 * remembers recent source events); two appends racing on one log are serialized by the stream's revision.
 * A sign-in is recorded in every organization the wallet belongs to at that time (memberships read model).
 */
@Injectable()
export class AppendAuditEntryWhenRecorded implements Processor<AuditedEvent> {
  readonly name = 'audit-log';
  readonly eventTypes = AUDITED_EVENT_TYPES;
  readonly concurrency = 32;

  constructor(
    private readonly decisions: Decisions,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  key(event: StoredDomainEvent<AuditedEvent>): string {
    const { target } = auditActionOf(event);
    return 'organizationId' in target ? target.organizationId : JSON.stringify(target);
  }

  async handle(event: StoredDomainEvent<AuditedEvent>): Promise<void> {
    const { target, action, subject, details } = auditActionOf(event);
    const ctx = reactionContext(event, 'service:audit');
    for (const organizationId of await this.organizationsOf(target)) {
      await this.decisions.handle(
        streams.audit(organizationId),
        auditLogDecider,
        (state) => {
          const fields = {
            organizationId,
            sequence: state.sequence + 1,
            occurredAt: event.metadata.occurredAt,
            actor: event.metadata.actor,
            action,
            subject,
            details,
            sourceEventId: event.id,
            previousHash: state.head,
          };
          return { kind: 'AppendAuditEntry' as const, entry: { ...fields, hash: auditEntryHash(fields) } };
        },
        ctx,
      );
    }
  }

  private async organizationsOf(target: AuditTarget): Promise<string[]> {
    if ('organizationId' in target) return [target.organizationId];
    if ('draftId' in target) {
      const { state } = await this.decisions.load(streams.draft(target.draftId), draftDecider);
      return state ? [state.organizationId] : [];
    }
    let wallet: string;
    if ('memberOf' in target) wallet = target.memberOf;
    else {
      const { state } = await this.decisions.load(streams.session(target.sessionId), sessionDecider);
      if (!state.started) return [];
      wallet = state.started.address;
    }
    const memberships = await this.readStore.collection<MembershipDoc>(COLLECTIONS.memberships).find({ member: wallet }, { sort: { organizationId: 1 } });
    return memberships.map((m) => m.organizationId);
  }
}
