/** The audit log's hash chain (docs/api.md "Audit log"), with the test vector of docs/protocol.md §11.10. */
import { AUDIT_GENESIS_HASH, auditEntryHash, verifyAuditChain, type AuditEntry, type AuditEntryFields } from './audit-chain';

const FIRST: AuditEntryFields = {
  organizationId: '8fc47f29-9ca7-409c-8480-64f3da4cd423',
  sequence: 1,
  occurredAt: '2025-03-14T09:27:30.000Z',
  actor: 'wallet:Bb2G2bg9bZJnThiMnJtaYFFwrLS6McrinDnRwn91NDRo',
  action: 'api_key.created',
  subject: '0c5bd3a4-2f8e-4a61-9d7b-3e2f1a0b9c8d',
  details: { name: 'Checkout server', scopes: ['acceptances:read'], prefix: 'svc_test_Qm9v', expiresAt: null },
  sourceEventId: '3f1c2a6e-0000-4000-9000-000000000001',
  previousHash: AUDIT_GENESIS_HASH,
};

function chain(length: number): AuditEntry[] {
  const out: AuditEntry[] = [];
  for (let i = 1; i <= length; i++) {
    const fields = { ...FIRST, sequence: i, sourceEventId: `3f1c2a6e-0000-4000-9000-${String(i).padStart(12, '0')}`, previousHash: out.at(-1)?.hash ?? AUDIT_GENESIS_HASH };
    out.push({ ...fields, hash: auditEntryHash(fields) });
  }
  return out;
}

describe('audit chain', () => {
  it('hashes the canonical JSON of the fields (test vector)', () => {
    // SHA-256 of the UTF-8 text {"action":"api_key.created","actor":"wallet:Bb2G…","details":{"expiresAt":null,…},…}
    // with keys sorted as RFC 8785 sorts them (docs/protocol.md §11.10).
    expect(auditEntryHash(FIRST)).toBe('47fe711166325728100b372f0dddd54f29f687aa290dd1e2179ca6f3a7e6db9b');
    // Key order of the details does not matter; any value does.
    expect(auditEntryHash({ ...FIRST, details: { expiresAt: null, prefix: 'svc_test_Qm9v', scopes: ['acceptances:read'], name: 'Checkout server' } })).toBe(auditEntryHash(FIRST));
    expect(auditEntryHash({ ...FIRST, details: { ...FIRST.details, name: 'Checkout' } })).not.toBe(auditEntryHash(FIRST));
    expect(auditEntryHash({ ...FIRST, actor: 'wallet:someone-else' })).not.toBe(auditEntryHash(FIRST));
  });

  it('accepts an intact chain and reports its head', () => {
    const entries = chain(5);
    expect(verifyAuditChain(entries)).toEqual({ sequence: 5, head: entries[4]!.hash, firstBreak: null });
    expect(verifyAuditChain([])).toEqual({ sequence: 0, head: AUDIT_GENESIS_HASH, firstBreak: null });
  });

  it('names the first broken entry: altered fields, altered hash, a removed entry', () => {
    const altered = chain(5);
    altered[2] = { ...altered[2]!, details: { name: 'tampered' } };
    expect(verifyAuditChain(altered).firstBreak).toEqual({ sequence: 3, reason: 'hash_mismatch' });

    const rehashed = chain(5);
    const fields = { ...rehashed[2]!, details: { name: 'tampered' } };
    rehashed[2] = { ...fields, hash: auditEntryHash(fields) };
    expect(verifyAuditChain(rehashed).firstBreak).toEqual({ sequence: 4, reason: 'previous_hash_mismatch' });

    const removed = chain(5);
    removed.splice(1, 1);
    expect(verifyAuditChain(removed).firstBreak).toEqual({ sequence: 2, reason: 'sequence_gap' });
  });
});
