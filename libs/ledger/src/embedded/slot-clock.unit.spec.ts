import { BlockhashQueue, SlotClock } from './slot-clock';

describe('SlotClock', () => {
  test('slots follow the latest anchor; block times come from the anchor of the slot', () => {
    const clock = new SlotClock([
      { slot: 0, timeMs: 1_000_000, slotMs: 400 },
      { slot: 1000, timeMs: 2_000_000, slotMs: 100 },
    ]);
    expect(clock.slotAt(2_000_000)).toBe(1000);
    expect(clock.slotAt(2_000_950)).toBe(1009);
    expect(clock.slotAt(1_500_000)).toBe(1000); // clock behind the anchor: never goes back
    expect(clock.blockTimeOf(10)).toBe(Math.floor((1_000_000 + 4_000) / 1000));
    expect(clock.blockTimeOf(1010)).toBe(Math.floor((2_000_000 + 1_000) / 1000));
  });
});

describe('BlockhashQueue', () => {
  test('keeps the last 151 slots, is deterministic per secret', () => {
    const q = new BlockhashQueue(Buffer.alloc(32, 7));
    q.advanceTo(10);
    const h10 = q.hashOf(10);
    expect(q.slotOf(h10)).toBe(10);
    q.advanceTo(160);
    expect(q.slotOf(h10)).toBe(10); // 160 - 150 = 10: still valid
    q.advanceTo(161);
    expect(q.slotOf(h10)).toBeUndefined();
    expect(q.slotOf(q.hashOf(11))).toBe(11);
    q.advanceTo(100_000);
    expect(q.slotOf(q.hashOf(99_849))).toBeUndefined();
    expect(q.slotOf(q.hashOf(99_850))).toBe(99_850);
    const other = new BlockhashQueue(Buffer.alloc(32, 7));
    other.advanceTo(100_000);
    expect(other.latest()).toBe(q.latest());
    expect(new BlockhashQueue(Buffer.alloc(32, 8)).hashOf(5).equals(q.hashOf(5))).toBe(false);
  });
});
