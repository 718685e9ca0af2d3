/**
 * The EventStoreDB adapter's chain checks that need no server: links of pages read for some event types only,
 * and positions older servers do not report.
 */
import { randomUUID } from 'node:crypto';
import { EventIntegrityError } from './event-store.port';
import { chainEvents, checkLinksBetweenNeighbours, checkLinksWithinPage, HASH_KEY, knownPosition, PREV_HASH_KEY, type ChainedEvent } from './eventstoredb-chain';
import { GENESIS_HASH } from './event-hash';

const metadata = { correlationId: randomUUID(), causationId: randomUUID(), actor: 'service:test', schemaVersion: 1, occurredAt: '2026-11-27T00:00:00.000Z' };

/** One stream's events as a read returns them, chained as the adapter writes them. */
function stream(streamId: string, types: string[]): ChainedEvent[] {
  const inputs = types.map((type, i) => ({ id: randomUUID(), type, data: { n: i }, metadata }));
  return chainEvents(streamId, inputs, 0n, GENESIS_HASH).map((sent, i) => {
    const meta = sent.metadata as Record<string, string>;
    return {
      stored: { id: inputs[i]!.id, type: types[i]!, data: { n: i }, metadata, streamId, revision: BigInt(i), position: BigInt(100 + i) },
      hash: meta[HASH_KEY]!,
      prevHash: meta[PREV_HASH_KEY]!,
    };
  });
}

describe('EventStoreDB chain checks', () => {
  it('checks a type-filtered page between neighbours only, where the whole-page check would call the gap a missing event', () => {
    const [a0, b1, a2, a3] = stream('thing-1', ['A', 'B', 'A', 'A']);
    const filtered = [a0!, a2!, a3!];
    expect(() => checkLinksWithinPage(filtered)).toThrow(EventIntegrityError);
    expect(() => checkLinksBetweenNeighbours(filtered)).not.toThrow();
    expect(() => checkLinksWithinPage([a0!, b1!, a2!, a3!])).not.toThrow();
  });

  it('still refuses a broken link between neighbours, and a first event that does not link to genesis', () => {
    const [a0, a1, a2] = stream('thing-2', ['A', 'A', 'A']);
    const forged = { ...a2!, prevHash: a0!.hash };
    expect(() => checkLinksBetweenNeighbours([a0!, a1!, forged])).toThrow(/links to/);
    expect(() => checkLinksBetweenNeighbours([{ ...a0!, prevHash: a1!.hash }])).toThrow(EventIntegrityError);
  });

  it('reads the end position older servers give for "no position" as none', () => {
    expect(knownPosition((1n << 64n) - 1n)).toBe(-1n);
    expect(knownPosition(undefined)).toBe(-1n);
    expect(knownPosition(0n)).toBe(0n);
    expect(knownPosition(9_007_199_254_740_993n)).toBe(9_007_199_254_740_993n);
  });
});
