/**
 * The layout of a direct-mode acceptance transaction (docs/protocol.md §7.3), read the same way by the verifier
 * (its `transaction.signature-instruction` and `transaction.memo` checks) and by the service's lookup of the
 * acceptance a transaction records.
 */
import { acceptanceIdOf, type AcceptanceMessageFields, parseAcceptanceMessage } from './acceptance-message';
import { ED25519_PROGRAM_ADDRESS } from './constants';
import type { EvidenceTransaction, ParsedEd25519Signature, ParsedMemo } from './transactions';

const ACCEPT_PREFIX = /^svc\/1 accept(?: |$)/;
const SIGNED_TEXT = new TextDecoder('utf-8', { fatal: true });

/** Every memo that reads as an `svc/1 accept` record, a malformed one included (its `record` is then null). */
export function acceptMemos(tx: EvidenceTransaction): ParsedMemo[] {
  return tx.memos.filter((m) => m.record?.kind === 'accept' || (m.record === null && m.error !== null && ACCEPT_PREFIX.test(m.text)));
}

/**
 * The one signature instruction 0 checks in its own data, when instruction 0 is the Ed25519 precompile and checks
 * exactly one; otherwise a sentence saying what is wrong.
 */
export function acceptanceSignatureEntry(tx: EvidenceTransaction): ParsedEd25519Signature | string {
  const first = tx.instructions[0];
  if (!first || first.programAddress !== ED25519_PROGRAM_ADDRESS) return 'instruction 0 is not the Ed25519 precompile';
  const entries = tx.ed25519.filter((e) => e.instructionIndex === 0);
  if (entries.length !== 1) return `instruction 0 checks ${entries.length} signatures in its own data; expected exactly 1`;
  return entries[0]!;
}

/**
 * The accept record of the transaction's one accept memo, when there is exactly one, well-formed and naming no
 * account; otherwise a sentence saying what is wrong.
 */
export function acceptRecord(tx: EvidenceTransaction): { acceptanceId: string; versionAddress: string; text: string } | string {
  const accepts = acceptMemos(tx);
  if (accepts.length !== 1) return `expected exactly one svc/1 accept memo, found ${accepts.length}`;
  const memo = accepts[0]!;
  if (memo.record?.kind !== 'accept') return `the accept memo is malformed: ${memo.error}`;
  const accounts = tx.instructions[memo.instructionIndex]?.accounts.length ?? 0;
  if (accounts > 0) return `the accept memo names ${accounts} account(s); it names none`;
  return { acceptanceId: memo.record.acceptanceId, versionAddress: memo.record.versionAddress, text: memo.text };
}

/**
 * The acceptance a transaction records as §7.3 lays it out: instruction 0 the Ed25519 precompile checking exactly one
 * signature, over a well-formed acceptance message whose signer is the key it checks; exactly one well-formed accept
 * memo without accounts, naming the hash of that message and the version the message accepts. Null for any other
 * transaction (the verifier's `transaction.signature-instruction`, `message.fields` and `transaction.memo` checks
 * would fail it).
 */
export function recordedAcceptance(tx: EvidenceTransaction): { acceptanceId: string; versionAddress: string; signer: string; message: string } | null {
  const entry = acceptanceSignatureEntry(tx);
  const record = acceptRecord(tx);
  if (typeof entry === 'string' || typeof record === 'string') return null;
  let message: string;
  let fields: AcceptanceMessageFields;
  try {
    message = SIGNED_TEXT.decode(entry.message);
    fields = parseAcceptanceMessage(message);
  } catch {
    return null;
  }
  if (fields.signer !== entry.publicKey || fields.versionAddress !== record.versionAddress || acceptanceIdOf(message) !== record.acceptanceId) return null;
  return { acceptanceId: record.acceptanceId, versionAddress: record.versionAddress, signer: entry.publicKey, message };
}
