/** The audit log stream (docs/api.md "Audit log"): a gapless chain, idempotent on source events, anchored once per head. */
import type { AuditAnchorRequestedData, AuditEntryAppendedData, EventOf } from '../events';
import { A, SIG } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import { AUDIT_GENESIS, auditLogDecider } from './audit-log.decider';

const hash = (n: number) => n.toString(16).padStart(64, '0');
const entry = (sequence: number, source = `source-${sequence}`): AuditEntryAppendedData => ({
  organizationId: A.orgId,
  sequence,
  occurredAt: '2025-03-14T09:27:30.000Z',
  actor: `wallet:${A.authority}`,
  action: 'settings.changed',
  subject: null,
  details: { changes: { products: { gate: true } } },
  sourceEventId: source,
  previousHash: sequence === 1 ? AUDIT_GENESIS : hash(sequence - 1),
  hash: hash(sequence),
});
const appended = (sequence: number): EventOf<'AuditEntryAppended'> => ({ type: 'AuditEntryAppended', data: entry(sequence) });
const anchor = (sequence: number): AuditAnchorRequestedData => ({
  organizationId: A.orgId,
  organization: A.org,
  sequence,
  head: hash(sequence),
  transactionSignature: SIG.org,
  transactionWire: 'AQID',
  lastValidBlockHeight: '150',
});
const requested = (sequence: number): EventOf<'AuditAnchorRequested'> => ({ type: 'AuditAnchorRequested', data: anchor(sequence) });
const anchored = (sequence: number): EventOf<'AuditHeadAnchored'> => ({
  type: 'AuditHeadAnchored',
  data: { organizationId: A.orgId, sequence, head: hash(sequence), transactionSignature: SIG.org, slot: 90, blockTime: null },
});

describe('audit log decider', () => {
  it('appends entries that continue the chain', () => {
    expect(given(auditLogDecider).when({ kind: 'AppendAuditEntry', entry: entry(1) })).toEqual(decided(appended(1)));
    expect(given(auditLogDecider, [appended(1)]).when({ kind: 'AppendAuditEntry', entry: entry(2) })).toEqual(decided(appended(2)));
    expect(given(auditLogDecider, [appended(1), appended(2)]).state).toMatchObject({ sequence: 2, head: hash(2) });
  });

  it('refuses an entry that skips, repeats a sequence or names another previous hash (internal_error)', () => {
    expect(given(auditLogDecider, [appended(1)]).when({ kind: 'AppendAuditEntry', entry: entry(3) })).toEqual(refused('internal_error'));
    expect(given(auditLogDecider, [appended(1)]).when({ kind: 'AppendAuditEntry', entry: { ...entry(1), sourceEventId: 'other' } })).toEqual(refused('internal_error'));
    expect(given(auditLogDecider, [appended(1)]).when({ kind: 'AppendAuditEntry', entry: { ...entry(2), previousHash: hash(7) } })).toEqual(refused('internal_error'));
  });

  it('records a source event once (a redelivered event decides nothing)', () => {
    expect(given(auditLogDecider, [appended(1), appended(2)]).when({ kind: 'AppendAuditEntry', entry: { ...entry(3), sourceEventId: 'source-2' } })).toEqual(decided());
  });

  it('requests an anchor of the head once, and only when there is something new', () => {
    expect(given(auditLogDecider).when({ kind: 'RequestAuditAnchor', anchor: anchor(1) })).toEqual(decided());
    expect(given(auditLogDecider, [appended(1)]).when({ kind: 'RequestAuditAnchor', anchor: anchor(1) })).toEqual(decided(requested(1)));
    expect(given(auditLogDecider, [appended(1), requested(1)]).when({ kind: 'RequestAuditAnchor', anchor: anchor(1) })).toEqual(decided());
    expect(given(auditLogDecider, [appended(1), requested(1), anchored(1)]).when({ kind: 'RequestAuditAnchor', anchor: anchor(1) })).toEqual(decided());
    expect(given(auditLogDecider, [appended(1), requested(1), anchored(1), appended(2)]).when({ kind: 'RequestAuditAnchor', anchor: anchor(2) })).toEqual(decided(requested(2)));
    expect(given(auditLogDecider, [appended(1), appended(2)]).when({ kind: 'RequestAuditAnchor', anchor: anchor(1) })).toEqual(refused('internal_error'));
  });

  it('records the outcome of the pending anchor only', () => {
    expect(given(auditLogDecider, [appended(1), requested(1)]).when({ kind: 'RecordAuditAnchored', anchored: anchored(1).data })).toEqual(decided(anchored(1)));
    expect(given(auditLogDecider, [appended(1)]).when({ kind: 'RecordAuditAnchored', anchored: anchored(1).data })).toEqual(decided());
    expect(given(auditLogDecider, [appended(1), requested(1)]).when({ kind: 'RecordAuditAnchorFailed', transactionSignature: SIG.org, reason: 'expired' })).toEqual(
      decided({ type: 'AuditAnchorFailed', data: { organizationId: A.orgId, sequence: 1, transactionSignature: SIG.org, reason: 'expired' } }),
    );
    expect(given(auditLogDecider, [appended(1), requested(1)]).when({ kind: 'RecordAuditAnchorFailed', transactionSignature: SIG.doc, reason: 'x' })).toEqual(decided());
  });
});
