/**
 * Page cursors (acceptance search, spec §4.5, §8; the webhook delivery log): opaque base64url text naming the
 * position after which the next page starts (a log position of the last record served, e.g. the `confirmedSeq` of
 * an acceptance) and a digest of the query it belongs to. A cursor passed to another organization, another endpoint
 * or with other filters is foreign and refused, as is anything malformed.
 */
import { createHash } from 'node:crypto';
import { DomainError } from '@svc/domain';

const SEQ_BYTES = 8;
const DIGEST_BYTES = 12;

/** What a cursor is bound to: the listing, the caller's organization and every filter of the query (not the page size). */
export type CursorScope = readonly (string | null)[];

function digestOf(scope: CursorScope): Buffer {
  return createHash('sha256').update(JSON.stringify(scope)).digest().subarray(0, DIGEST_BYTES);
}

/** The cursor of the page after the record at `seq` (27 characters). */
export function encodeCursor(seq: number, scope: CursorScope): string {
  const bytes = Buffer.alloc(SEQ_BYTES + DIGEST_BYTES);
  bytes.writeBigUInt64BE(BigInt(seq));
  digestOf(scope).copy(bytes, SEQ_BYTES);
  return bytes.toString('base64url');
}

/**
 * The position a cursor resumes before.
 * @throws DomainError invalid_cursor (400) for a malformed cursor or one of another query.
 */
export function decodeCursor(cursor: string, scope: CursorScope): number {
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length !== SEQ_BYTES + DIGEST_BYTES || bytes.toString('base64url') !== cursor) {
    throw new DomainError('invalid_cursor', 'cursor: not a cursor of this service; pass nextCursor unchanged');
  }
  if (!bytes.subarray(SEQ_BYTES).equals(digestOf(scope))) {
    throw new DomainError('invalid_cursor', 'cursor: belongs to another query; pass it with the filters it came with');
  }
  const seq = bytes.readBigUInt64BE(0);
  if (seq > BigInt(Number.MAX_SAFE_INTEGER)) throw new DomainError('invalid_cursor', 'cursor: out of range');
  return Number(seq);
}
