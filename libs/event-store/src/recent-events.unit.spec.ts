import type { StoredEvent } from './event-store.port';
import { RecentEvents } from './recent-events';

const event = (position: number, type = 'ThingHappened'): StoredEvent => ({
  id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
  type,
  data: { n: position },
  metadata: { correlationId: 'c', causationId: 'c', actor: 'test', schemaVersion: 1, occurredAt: '2026-11-23T00:00:00.000Z' },
  streamId: `thing-${position}`,
  revision: 0n,
  position: BigInt(position),
});
const positions = (page: StoredEvent[] | null) => page && page.map((e) => Number(e.position));

describe('the window of recently written events', () => {
  it('serves the events after a position, of the given types, when it holds everything up to the head', () => {
    const recent = new RecentEvents();
    recent.add([event(5), event(6, 'Other'), event(7)]);
    expect(positions(recent.page(4n, 10, undefined, 7n, 0))).toEqual([5, 6, 7]);
    expect(positions(recent.page(5n, 10, new Set(['ThingHappened']), 7n, 0))).toEqual([7]);
    expect(positions(recent.page(5n, 1, undefined, 7n, 0))).toEqual([6]);
    expect(positions(recent.page(7n, 10, undefined, 7n, 0))).toEqual([]);
  });

  it('answers null (read the file) before its first event, or when the log has grown past it elsewhere', () => {
    const recent = new RecentEvents();
    recent.add([event(5), event(6)]);
    expect(recent.page(3n, 10, undefined, 6n, 0)).toBeNull();
    expect(recent.page(5n, 10, undefined, 8n, 0)).toBeNull();
    expect(new RecentEvents().page(0n, 10, undefined, 0n, 0)).toBeNull();
  });

  it('restarts after a gap (events another process appended in between)', () => {
    const recent = new RecentEvents();
    recent.add([event(5), event(6)]);
    recent.add([event(9)]);
    expect(recent.page(5n, 10, undefined, 9n, 0)).toBeNull();
    expect(positions(recent.page(8n, 10, undefined, 9n, 0))).toEqual([9]);
  });

  it('serves a reader only the events committed after it started (earlier ones are read from the file, checked)', () => {
    const recent = new RecentEvents();
    recent.add([event(5)]);
    const since = recent.lastCommit;
    recent.add([event(6), event(7)]);
    expect(recent.page(4n, 10, undefined, 7n, since)).toBeNull();
    expect(positions(recent.page(5n, 10, undefined, 7n, since))).toEqual([6, 7]);
  });
});
