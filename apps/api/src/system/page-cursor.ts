/**
 * Page cursors (acceptance search, spec §4.5, §8; the webhook delivery log): opaque base64url text naming the
 * position after which the next page starts (a log position of the last record served, e.g. the `confirmedSeq` of
 * an acceptance) and a tag binding that position to the query it belongs to. The tag is an HMAC-SHA256 (RFC 2104,
 * first 12 bytes) of the position and the query's scope under a key derived from the deployment's secrets key, so a
 * cursor passed to another organization, another endpoint or with other filters is refused, and so is one whose
 * position was changed: a client resumes only where the service left it. Cursors do not expire and stay valid across
 * restarts while that key is kept.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { WebhookSecrets } from '@svc/application';
import { DomainError } from '@svc/domain';

const SEQ_BYTES = 8;
const TAG_BYTES = 12;

/** What a cursor is bound to: the listing, the caller's organization and every filter of the query (not the page size). */
export type CursorScope = readonly (string | null)[];

@Injectable()
export class PageCursors {
  private readonly key: Buffer;

  constructor(secrets: WebhookSecrets) {
    this.key = secrets.deriveKey('svc page cursors v1');
  }

  /** The cursor of the page after the record at `seq` (27 characters). */
  encode(seq: number, scope: CursorScope): string {
    const bytes = Buffer.alloc(SEQ_BYTES + TAG_BYTES);
    bytes.writeBigUInt64BE(BigInt(seq));
    this.tag(bytes.subarray(0, SEQ_BYTES), scope).copy(bytes, SEQ_BYTES);
    return bytes.toString('base64url');
  }

  /**
   * The position a cursor resumes before.
   * @throws DomainError invalid_cursor (400) for a malformed cursor, one of another query, or one changed by the client.
   */
  decode(cursor: string, scope: CursorScope): number {
    const bytes = Buffer.from(cursor, 'base64url');
    if (bytes.length !== SEQ_BYTES + TAG_BYTES || bytes.toString('base64url') !== cursor) {
      throw new DomainError('invalid_cursor', 'cursor: not a cursor of this service; pass nextCursor unchanged');
    }
    if (!timingSafeEqual(bytes.subarray(SEQ_BYTES), this.tag(bytes.subarray(0, SEQ_BYTES), scope))) {
      throw new DomainError('invalid_cursor', 'cursor: not a cursor of this query; pass nextCursor unchanged, with the filters it came with');
    }
    const seq = bytes.readBigUInt64BE(0);
    if (seq > BigInt(Number.MAX_SAFE_INTEGER)) throw new DomainError('invalid_cursor', 'cursor: out of range');
    return Number(seq);
  }

  private tag(seq: Buffer, scope: CursorScope): Buffer {
    return createHmac('sha256', this.key).update(seq).update(JSON.stringify(scope)).digest().subarray(0, TAG_BYTES);
  }
}
