/**
 * The audit log's hash chain (docs/api.md "Audit log"): each entry of an organization's log commits to the hash of
 * the entry before it. An entry's hash is the SHA-256 of the RFC 8785 canonical JSON of its fields (below), the
 * first entry's `previousHash` being 64 zeros. Anyone holding the entries (the API's pages, an export) recomputes
 * the chain with {@link verifyAuditChain}, and compares its head with an anchor on the ledger (`svc/1 audit`).
 */
import canonicalize from 'canonicalize';
import { sha256Hex } from './hash';

/** `previousHash` of entry 1. */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);

/** What an entry's hash covers. */
export interface AuditEntryFields {
  organizationId: string;
  /** 1, 2, 3… without gaps, per organization. */
  sequence: number;
  /** ISO 8601 time of the action. */
  occurredAt: string;
  /** Who acted: `wallet:<address>`, `api-key:<id>`, `service:<component>`… */
  actor: string;
  /** What happened, e.g. `api_key.created` (docs/api.md "Audit log" lists them). */
  action: string;
  /** What it happened to (a key id, a member address, a domain…), or null. */
  subject: string | null;
  /** JSON details of the action (never a secret). */
  details: Record<string, unknown>;
  /** Id of the stored event the entry records (one entry per event and organization). */
  sourceEventId: string;
  /** Hash of entry `sequence - 1`, or {@link AUDIT_GENESIS_HASH}. */
  previousHash: string;
}

/** An entry with its own hash. */
export interface AuditEntry extends AuditEntryFields {
  hash: string;
}

/** Lower-case hex SHA-256 of the canonical JSON (RFC 8785) of the entry's fields. */
export function auditEntryHash(fields: AuditEntryFields): string {
  const { organizationId, sequence, occurredAt, actor, action, subject, details, sourceEventId, previousHash } = fields;
  const text = canonicalize({ organizationId, sequence, occurredAt, actor, action, subject, details, sourceEventId, previousHash });
  if (text === undefined) throw new TypeError('audit entry fields are not JSON');
  return sha256Hex(new TextEncoder().encode(text));
}

/** The first entry where the chain breaks, and why. */
export interface AuditChainBreak {
  sequence: number;
  reason: 'sequence_gap' | 'previous_hash_mismatch' | 'hash_mismatch';
}

/**
 * Recomputes a log from its first entry: sequences 1, 2, 3…, each `previousHash` equal to the hash before it,
 * each `hash` equal to the hash of its fields.
 * @param entries oldest first, starting at sequence 1.
 * @returns the head (last hash and sequence) and the first break, or null when the chain holds.
 */
export function verifyAuditChain(entries: readonly AuditEntry[]): { sequence: number; head: string; firstBreak: AuditChainBreak | null } {
  let previous = AUDIT_GENESIS_HASH;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const expectedSequence = i + 1;
    if (entry.sequence !== expectedSequence) return { sequence: i, head: previous, firstBreak: { sequence: expectedSequence, reason: 'sequence_gap' } };
    if (entry.previousHash !== previous) return { sequence: i, head: previous, firstBreak: { sequence: entry.sequence, reason: 'previous_hash_mismatch' } };
    if (auditEntryHash(entry) !== entry.hash) return { sequence: i, head: previous, firstBreak: { sequence: entry.sequence, reason: 'hash_mismatch' } };
    previous = entry.hash;
  }
  return { sequence: entries.length, head: previous, firstBreak: null };
}
