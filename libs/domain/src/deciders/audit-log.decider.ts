/**
 * Stream `audit-<organizationId>`: the organization's hash-chained audit log (docs/api.md "Audit log"). Entries are
 * appended by a processor reading the event log, one per recorded action, each naming the hash of the one before;
 * the stream's expected revision keeps their sequence without gaps or forks. The head is anchored on the ledger
 * from time to time: the anchor transaction is recorded signed before it is sent, then its outcome.
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { AuditAnchorRequestedData, AuditEntryAppendedData, AuditHeadAnchoredData, EventOf } from '../events';

export type AuditLogEvent = EventOf<'AuditEntryAppended'> | EventOf<'AuditAnchorRequested'> | EventOf<'AuditHeadAnchored'> | EventOf<'AuditAnchorFailed'>;

/** Source events remembered to make appends idempotent (redeliveries come right after the entry they repeat). */
const REMEMBERED_SOURCES = 128;

export const AUDIT_GENESIS = '0'.repeat(64);

export interface AuditLogState {
  /** Sequence of the last entry (0: none yet). */
  sequence: number;
  /** Hash of the last entry, or 64 zeros. */
  head: string;
  /** Source event ids of the latest entries, newest last. */
  recentSources: readonly string[];
  /** Sequence covered by the latest anchor the ledger recorded (0: none). */
  anchoredSequence: number;
  /** The anchor sent and not yet settled, if any. */
  pendingAnchor: AuditAnchorRequestedData | null;
}

export type AuditLogCommand =
  | { kind: 'AppendAuditEntry'; entry: AuditEntryAppendedData }
  | { kind: 'RequestAuditAnchor'; anchor: AuditAnchorRequestedData }
  | { kind: 'RecordAuditAnchored'; anchored: AuditHeadAnchoredData }
  | { kind: 'RecordAuditAnchorFailed'; transactionSignature: string; reason: string };

export const auditLogDecider: Decider<AuditLogCommand, AuditLogEvent, AuditLogState> = {
  eventTypes: ['AuditEntryAppended', 'AuditAnchorRequested', 'AuditHeadAnchored', 'AuditAnchorFailed'],
  initialState: { sequence: 0, head: AUDIT_GENESIS, recentSources: [], anchoredSequence: 0, pendingAnchor: null },
  evolve(state, event) {
    switch (event.type) {
      case 'AuditEntryAppended':
        return { ...state, sequence: event.data.sequence, head: event.data.hash, recentSources: [...state.recentSources, event.data.sourceEventId].slice(-REMEMBERED_SOURCES) };
      case 'AuditAnchorRequested':
        return { ...state, pendingAnchor: event.data };
      case 'AuditHeadAnchored':
        return { ...state, anchoredSequence: Math.max(state.anchoredSequence, event.data.sequence), pendingAnchor: null };
      case 'AuditAnchorFailed':
        return { ...state, pendingAnchor: null };
    }
  },
  /**
   * An entry for a source event already recorded, an anchor while one is pending or with nothing new to anchor,
   * and an outcome for an anchor not pending, decide nothing.
   * @throws DomainError internal_error (500) when an entry does not continue the chain (built from another state:
   *   the caller reloads and builds it again).
   */
  decide(command, state) {
    switch (command.kind) {
      case 'AppendAuditEntry': {
        const { entry } = command;
        if (state.recentSources.includes(entry.sourceEventId)) return [];
        if (entry.sequence !== state.sequence + 1 || entry.previousHash !== state.head) {
          throw new DomainError('internal_error', `audit entry ${entry.sequence} does not continue the chain at ${state.sequence}`);
        }
        return [{ type: 'AuditEntryAppended', data: entry }];
      }
      case 'RequestAuditAnchor':
        if (state.pendingAnchor !== null || state.sequence === 0 || state.sequence <= state.anchoredSequence) return [];
        if (command.anchor.sequence !== state.sequence || command.anchor.head !== state.head) {
          throw new DomainError('internal_error', `audit anchor of ${command.anchor.sequence} is not the head ${state.sequence}`);
        }
        return [{ type: 'AuditAnchorRequested', data: command.anchor }];
      case 'RecordAuditAnchored':
        if (state.pendingAnchor?.transactionSignature !== command.anchored.transactionSignature) return [];
        return [{ type: 'AuditHeadAnchored', data: command.anchored }];
      case 'RecordAuditAnchorFailed': {
        const pending = state.pendingAnchor;
        if (pending?.transactionSignature !== command.transactionSignature) return [];
        return [{ type: 'AuditAnchorFailed', data: { organizationId: pending.organizationId, sequence: pending.sequence, transactionSignature: pending.transactionSignature, reason: command.reason } }];
      }
    }
  },
};
