/**
 * The shared catch-up loop over a fake page source: delivery in order, wake-ups, retries of failed
 * reads, the positions passed by a type-filtering source, and the stop for good on a bad stored event.
 */
import { CatchUpSubscription, type CatchUpSource } from './catch-up-subscription';
import { SLICE_MS } from './time-slices';
import { EventIntegrityError, SubscriptionStoppedError, type StoredEvent, type SubscribeOptions } from './event-store.port';
import { FAST_RETRY, meta, rejectionOf, type LogLine } from './testing/fixtures';

function event(position: number, type = 'ThingHappened'): StoredEvent {
  return { id: `e${position}`, type, data: { n: position }, metadata: meta(), streamId: `s-${position % 2}`, revision: BigInt(position), position: BigInt(position) };
}

/** A log in memory whose reads can be made to fail. */
class FakeLog {
  events: StoredEvent[] = [];
  reads = 0;
  failNext: Error[] = [];
  filters = false;

  source(): CatchUpSource {
    return {
      readPage: async (after, max, types) => {
        this.reads++;
        const err = this.failNext.shift();
        if (err) throw err;
        return this.events.filter((e) => e.position > after && (!this.filters || !types || types.includes(e.type))).slice(0, max);
      },
      head: this.filters ? async () => this.events[this.events.length - 1]?.position ?? -1n : undefined,
    };
  }
}

function start(log: FakeLog, options: SubscribeOptions = {}, lines: LogLine[] = []) {
  const handled: bigint[] = [];
  const sub = new CatchUpSubscription(log.source(), async (e) => void handled.push(e.position), options, {
    pageSize: 2,
    idleMs: 10_000,
    retry: FAST_RETRY,
    logger: (level, message, details) => lines.push({ level, message, details }),
  });
  sub.start();
  return { sub, handled };
}

describe('CatchUpSubscription', () => {
  it('delivers every event after the checkpoint in pages, then live ones on wake()', async () => {
    const log = new FakeLog();
    log.events = [1, 2, 3, 4, 5].map((p) => event(p));
    const { sub, handled } = start(log, { after: 1n });
    try {
      await sub.caughtUpTo(5n);
      expect(handled).toEqual([2n, 3n, 4n, 5n]);
      log.events.push(event(6));
      sub.wake();
      await sub.caughtUpTo(6n);
      expect(handled).toEqual([2n, 3n, 4n, 5n, 6n]);
    } finally {
      await sub.stop();
    }
    await expect(sub.caughtUpTo(7n)).rejects.toBeInstanceOf(SubscriptionStoppedError);
  });

  it('retries a read that failed for another reason than integrity, without skipping', async () => {
    const log = new FakeLog();
    log.events = [event(1), event(2)];
    log.failNext = [new Error('disk busy'), new Error('disk busy')];
    const lines: LogLine[] = [];
    const { sub, handled } = start(log, {}, lines);
    try {
      await sub.caughtUpTo(2n);
      expect(handled).toEqual([1n, 2n]);
      expect(lines.filter((l) => l.message.includes('read failed'))).toHaveLength(2);
      expect(sub.failure).toBeUndefined();
    } finally {
      await sub.stop();
    }
  });

  it('lets the rest of the process run while it delivers a long page (at most a slice of a few milliseconds at a time)', async () => {
    const log = new FakeLog();
    log.events = Array.from({ length: 100 }, (_, i) => event(i + 1));
    const handled: bigint[] = [];
    // Each event takes 1 ms of synchronous work, as a processor's stream load and decision can.
    const busy = async (e: StoredEvent) => {
      const until = performance.now() + 1;
      while (performance.now() < until);
      handled.push(e.position);
    };
    const sub = new CatchUpSubscription(log.source(), busy, {}, { pageSize: 100, idleMs: 10_000, retry: FAST_RETRY });
    // Turns of the event loop that another part of the process (an HTTP request, a timer) gets meanwhile.
    const otherTurns: number[] = [];
    const tick = () => {
      otherTurns.push(handled.length);
      if (handled.length < 100) setImmediate(tick);
    };
    sub.start();
    setImmediate(tick);
    try {
      await sub.caughtUpTo(100n);
      const during = otherTurns.filter((n) => n > 0 && n < 100);
      // One page of 100 ms of work: the other part ran about every slice, not only once the page was done.
      expect(during.length).toBeGreaterThanOrEqual(100 / (SLICE_MS + 1) / 2);
      expect(Math.max(...during.map((n, i) => n - (during[i - 1] ?? 0)))).toBeLessThanOrEqual(SLICE_MS + 2);
    } finally {
      await sub.stop();
    }
  });

  it('with a type-filtering source, passes the positions of the other types once the page is short', async () => {
    const log = new FakeLog();
    log.filters = true;
    log.events = [event(1), event(2, 'Other'), event(3), event(4, 'Other'), event(5)];
    const { sub, handled } = start(log, { eventTypes: ['Other'] });
    try {
      await sub.caughtUpTo(5n);
      expect(handled).toEqual([2n, 4n]);
    } finally {
      await sub.stop();
    }
  });

  it('stops for good on an EventIntegrityError: no retry, failure set, onFailure once, waiters rejected, logged', async () => {
    const log = new FakeLog();
    log.events = [event(1), event(2), event(3)];
    const bad = new EventIntegrityError('s-1', 3n, 3n, 'e3', 'broken_link', 'the event before it does not exist');
    const lines: LogLine[] = [];
    const failures: EventIntegrityError[] = [];
    const { sub, handled } = start(
      log,
      {
        onFailure: (err) => {
          failures.push(err);
          throw new Error('a callback that throws does not break the stop');
        },
      },
      lines,
    );
    await sub.caughtUpTo(2n);
    const waiting = sub.caughtUpTo(3n);
    log.failNext = [bad];
    sub.wake();
    expect(await rejectionOf(waiting)).toBe(bad);
    await sub.stop();
    expect(sub.failure).toBe(bad);
    expect(failures).toEqual([bad]);
    expect(handled).toEqual([1n, 2n]);
    const readsAtFailure = log.reads;
    sub.wake();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(log.reads).toBe(readsAtFailure);
    await expect(sub.caughtUpTo(3n)).rejects.toBe(bad);
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain('s-1');
    expect(errors[0]!.details).toMatchObject({ streamId: 's-1', position: '3', reason: 'broken_link', eventId: 'e3' });
  });
});
