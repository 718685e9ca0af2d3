/**
 * The per-stream hash chain of the EventStoreDB adapter (libs/event-store/README.md, "Tamper evidence").
 *
 * Each event's metadata carries two reserved keys next to the port's {@link EventMetadata}:
 * - `$svcHash`: lowercase hex SHA-256 of the event ({@link streamEventHash}: stream, revision, id, type,
 *   RFC 8785 canonical JSON of data and of the metadata without reserved keys, previous hash);
 * - `$svcPrevHash`: the `$svcHash` of the previous event of the same stream (64 zeros at revision 0).
 * `$correlationId` and `$causationId` are also written (for the server's system projections). Every
 * `$`-prefixed key is removed from `StoredEvent.metadata` on read.
 *
 * Only the per-stream chain exists here: `$all` has no single writer (API replicas and workers append
 * concurrently) and the server assigns commit positions at commit, so no writer can know the event
 * before it in `$all` without a global lock, which would undo what EventStoreDB is chosen for.
 */
import { jsonEvent, type EventData, type JSONType, type RecordedEvent } from '@eventstore/db-client';
import canonicalize from 'canonicalize';
import { decodeEvent, integrityError, type ReadPath } from './event-decoding';
import { GENESIS_HASH, streamEventHash } from './event-hash';
import type { EventMetadata, StoredEvent } from './event-store.port';

/** Reserved metadata key holding the event's own hash. */
export const HASH_KEY = '$svcHash';
/** Reserved metadata key holding the hash of the previous event of the stream. */
export const PREV_HASH_KEY = '$svcPrevHash';

const HEX64 = /^[0-9a-f]{64}$/;

/** An event ready to append: validated, with its id. */
export interface ChainInput {
  id: string;
  type: string;
  data: object;
  metadata: EventMetadata;
}

/** A stored event after its own hash was checked, with the hashes needed to check its links. */
export interface ChainedEvent {
  stored: StoredEvent;
  /** `$svcHash` (hex). */
  hash: string;
  /** `$svcPrevHash` (hex). */
  prevHash: string;
}

function canonical(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('value has no JSON form');
  return text;
}

/**
 * Builds the events of one append, chained from `prevHash` (the stream's last hash, or genesis) with
 * revisions `firstRevision`, `firstRevision + 1`, …
 * @returns the events to send, each with its `$svcPrevHash` and `$svcHash`.
 */
export function chainEvents(
  streamId: string,
  events: readonly ChainInput[],
  firstRevision: bigint,
  prevHash: string,
): EventData[] {
  let previous = prevHash;
  return events.map((e, i) => {
    const hash = streamEventHash({
      streamId,
      revision: firstRevision + BigInt(i),
      id: e.id,
      type: e.type,
      data: canonical(e.data),
      metadata: canonical(e.metadata),
      streamPrevHash: previous,
    });
    const metadata = {
      ...e.metadata,
      $correlationId: e.metadata.correlationId,
      $causationId: e.metadata.causationId,
      [PREV_HASH_KEY]: previous,
      [HASH_KEY]: hash,
    };
    previous = hash;
    // Validated against the event's JSON Schema: JSON data by construction.
    return jsonEvent({ id: e.id, type: e.type, data: e.data as JSONType, metadata });
  });
}

/** Whether a recorded event is one of the server's own (system type or system stream). */
export function isSystemEvent(event: RecordedEvent): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

/**
 * A commit position as reported, or `-1n` when the server gave none: servers before 22.6 answer stream reads with
 * the end position (2^64 − 1 as an unsigned 64-bit number) where they have no position to give.
 */
export function knownPosition(position: bigint | undefined): bigint {
  return position === undefined || position >= 1n << 63n ? -1n : position;
}

/**
 * Checks a recorded event's own hash, then its schema, and upcasts it.
 * @param commitPosition the commit position the read reported, when the event does not carry one
 * @throws EventIntegrityError 'hash_mismatch' when the chain keys are missing or do not match the
 *   content, 'schema' when the event is not JSON or does not satisfy its schema.
 */
export function checkRecorded(event: RecordedEvent, commitPosition: bigint | undefined, path: ReadPath): ChainedEvent {
  const key = { id: event.id, streamId: event.streamId, revision: event.revision, position: knownPosition(event.position?.commit ?? commitPosition) };
  const raw = event.metadata;
  if (!event.isJson || typeof raw !== 'object' || raw === null || Array.isArray(raw) || raw instanceof Uint8Array) {
    throw integrityError(key, 'schema', 'the event or its metadata is not JSON');
  }
  const metadata: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) if (!name.startsWith('$')) metadata[name] = value;
  const hashHex = raw[HASH_KEY];
  const prevHex = raw[PREV_HASH_KEY];
  if (typeof hashHex !== 'string' || !HEX64.test(hashHex) || typeof prevHex !== 'string' || !HEX64.test(prevHex)) {
    throw integrityError(key, 'hash_mismatch', `the metadata carries no valid ${HASH_KEY} / ${PREV_HASH_KEY}`);
  }
  let computed: string;
  try {
    computed = streamEventHash({
      ...key,
      type: event.type,
      data: canonical(event.data),
      metadata: canonical(metadata),
      streamPrevHash: prevHex,
    });
  } catch (err) {
    throw integrityError(key, 'schema', (err as Error).message);
  }
  if (computed !== hashHex) throw integrityError(key, 'hash_mismatch', 'the stored content does not match its hash');
  const stored = decodeEvent({ ...key, type: event.type, data: event.data, metadata }, path);
  return { stored, hash: hashHex, prevHash: prevHex };
}

/**
 * Checks that `event` links to `previousHash`, the hash of the event before it in its stream
 * (`undefined` when that event does not exist: only revision 0 may then link, to genesis).
 * @throws EventIntegrityError 'broken_link'
 */
export function checkLink(event: ChainedEvent, previousHash: string | undefined): void {
  const expected = previousHash ?? (event.stored.revision === 0n ? GENESIS_HASH : undefined);
  if (expected !== undefined && event.prevHash === expected) return;
  throw integrityError(
    event.stored,
    'broken_link',
    `it links to ${event.prevHash} but the event before it in the stream ` +
      (expected !== undefined ? `has hash ${expected}` : 'does not exist'),
  );
}

/**
 * Checks the links between consecutive events of the same stream within one read of `$all` (the first
 * event of each stream in the page is checked for its own hash only: its predecessor lies outside).
 * @param events in log order
 * @throws EventIntegrityError 'broken_link'
 */
export function checkLinksWithinPage(events: readonly ChainedEvent[]): void {
  const last = new Map<string, ChainedEvent>();
  for (const e of events) {
    const before = last.get(e.stored.streamId);
    if (e.stored.revision === 0n) checkLink(e, undefined);
    // An earlier event of the stream in the page but not the one just before: an event is missing.
    else if (before) checkLink(e, before.stored.revision + 1n === e.stored.revision ? before.hash : undefined);
    last.set(e.stored.streamId, e);
  }
}

/**
 * The link checks of a page read for some event types only: an event is checked against the one before it in its
 * stream when the page holds that one too (or against genesis at revision 0); an event whose predecessor is of a
 * type the read passed over stays unchecked here (a subscription to that type checks it).
 * @param events in log order
 * @throws EventIntegrityError 'broken_link'
 */
export function checkLinksBetweenNeighbours(events: readonly ChainedEvent[]): void {
  const last = new Map<string, ChainedEvent>();
  for (const e of events) {
    const before = last.get(e.stored.streamId);
    if (e.stored.revision === 0n) checkLink(e, undefined);
    else if (before && before.stored.revision + 1n === e.stored.revision) checkLink(e, before.hash);
    last.set(e.stored.streamId, e);
  }
}

/**
 * Checks a run of consecutive events of one stream, in ascending revision order: the first links to
 * `predecessorHash` (the hash of the event before it, `undefined` when none exists), each next one to
 * the event before it.
 * @throws EventIntegrityError 'broken_link'
 */
export function checkStreamRun(events: readonly ChainedEvent[], predecessorHash: string | undefined): void {
  let previous: ChainedEvent | undefined;
  for (const e of events) {
    if (!previous) checkLink(e, predecessorHash);
    else checkLink(e, previous.stored.revision + 1n === e.stored.revision ? previous.hash : undefined);
    previous = e;
  }
}
