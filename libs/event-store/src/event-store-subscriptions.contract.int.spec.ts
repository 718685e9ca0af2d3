/**
 * Contract suite of the EventStore port's subscriptions (catch-up, live, type filters, retries, stop)
 * and of its tamper evidence, run against every adapter (testing/adapter-cases.ts).
 */
import { EventIntegrityError, SubscriptionStoppedError, type StoredEvent } from './event-store.port';
import { describeContract } from './testing/adapter-cases';
import { after, other, rejectionOf, streamId, thing, type LogLine } from './testing/fixtures';

describeContract('EventStore subscriptions contract', ({ store, logs, adapter }) => {
  it('subscription: catches up from a checkpoint, then delivers live events; caughtUpTo waits for the handler', async () => {
    const s = streamId('sub');
    const first = await store().append(s, [thing(0)], 'no_stream');
    const rest = await store().append(s, [thing(1), thing(2)], 0n);
    const seen: StoredEvent[] = [];
    const sub = store().subscribeToAll(
      async (e) => {
        if (e.streamId === s) seen.push(e);
      },
      { after: first.position },
    );
    try {
      await sub.caughtUpTo(rest.position);
      expect(seen.map((e) => e.data['n'])).toEqual([1, 2]);

      const live = await store().append(s, [thing(3)], 2n);
      await sub.caughtUpTo(live.position);
      expect(seen.map((e) => e.data['n'])).toEqual([1, 2, 3]);
      expect(seen.map((e) => e.revision)).toEqual([1n, 2n, 3n]);
      expect(seen[2]!.position).toBe(live.position);
      // Already reached: resolves at once.
      await sub.caughtUpTo(first.position);
    } finally {
      await sub.stop();
    }
  });

  it('caughtUpTo resolves only once the handler has finished the event', async () => {
    const s = streamId('caught');
    const head = await store().headPosition();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const finished: string[] = [];
    const sub = store().subscribeToAll(
      async (e) => {
        if (e.streamId !== s) return;
        await gate;
        finished.push(e.id);
      },
      { after: head },
    );
    try {
      const r = await store().append(s, [thing(0)], 'no_stream');
      const waiting = sub.caughtUpTo(r.position).then(() => 'caught up');
      expect(await Promise.race([waiting, after(150, 'still waiting')])).toBe('still waiting');
      release();
      expect(await waiting).toBe('caught up');
      expect(finished).toHaveLength(1);
    } finally {
      release();
      await sub.stop();
    }
  });

  it('eventTypes: other types are skipped but still advance caughtUpTo', async () => {
    const s = streamId('types');
    const head = await store().headPosition();
    const seen: string[] = [];
    const sub = store().subscribeToAll(
      async (e) => {
        if (e.streamId === s) seen.push(e.type);
      },
      { after: head, eventTypes: ['OtherThingHappened'] },
    );
    try {
      const skipped = await store().append(s, [thing(0)], 'no_stream');
      await sub.caughtUpTo(skipped.position);
      expect(seen).toEqual([]);
      const delivered = await store().append(s, [other('x')], 0n);
      await sub.caughtUpTo(delivered.position);
      expect(seen).toEqual(['OtherThingHappened']);
    } finally {
      await sub.stop();
    }
  });

  it('a failing handler gets the same event again (with backoff), never skips it', async () => {
    const s = streamId('retry');
    const head = await store().headPosition();
    const delivered: number[] = [];
    let failuresLeft = 2;
    const sub = store().subscribeToAll(
      async (e) => {
        if (e.streamId !== s) return;
        delivered.push(e.data['n'] as number);
        if (e.data['n'] === 1 && failuresLeft > 0) {
          failuresLeft--;
          throw new Error('projection temporarily broken');
        }
      },
      { after: head },
    );
    try {
      const r = await store().append(s, [thing(0), thing(1), thing(2)], 'no_stream');
      await sub.caughtUpTo(r.position);
      expect(delivered).toEqual([0, 1, 1, 1, 2]);
      const retries = logs.filter((l) => l.details?.['eventId'] !== undefined && l.message.includes('retrying'));
      expect(retries.length).toBeGreaterThanOrEqual(2);
    } finally {
      await sub.stop();
    }
  });

  it('stop(): the handler is no longer called and pending caughtUpTo rejects', async () => {
    const s = streamId('stop');
    const head = await store().headPosition();
    const seen: StoredEvent[] = [];
    const sub = store().subscribeToAll(
      async (e) => {
        if (e.streamId === s) seen.push(e);
      },
      { after: head },
    );
    const r = await store().append(s, [thing(0)], 'no_stream');
    await sub.caughtUpTo(r.position);
    const never = sub.caughtUpTo(r.position + 1_000_000n);
    await sub.stop();
    await expect(never).rejects.toBeInstanceOf(SubscriptionStoppedError);
    await store().append(s, [thing(1)], 0n);
    await after(100, undefined);
    expect(seen).toHaveLength(1);
    await sub.stop(); // idempotent
  });

  it('a stored event that no longer matches its hash is refused by readStream, readAll and subscriptions', async () => {
    const lines: LogLine[] = [];
    const own = adapter.open((level, message, details) => lines.push({ level, message, details }), 'forged');
    try {
      const s = streamId('forged');
      const head = await own.headPosition();
      await own.append(s, [thing(0), thing(1)], 'no_stream');
      await adapter.forge(s, 'forged');
      const refused = (err: unknown) => {
        expect(err).toBeInstanceOf(EventIntegrityError);
        const e = err as EventIntegrityError;
        expect(e.streamId).toBe(s);
        expect(e.reason).toBe('hash_mismatch');
        expect(e.message).toContain(s);
        return e;
      };
      const fromStream = refused(await rejectionOf(own.readStream(s)));
      refused(await rejectionOf(own.readAll({ after: head })));

      const failures: EventIntegrityError[] = [];
      const handled: string[] = [];
      const sub = own.subscribeToAll(async (e) => void handled.push(e.id), { after: head, onFailure: (err) => failures.push(err) });
      const err = refused(await rejectionOf(sub.caughtUpTo(head + 1_000_000n)));
      expect(sub.failure).toBe(err);
      expect(failures).toEqual([err]);
      expect(err.revision).toBe(fromStream.revision);
      expect(err.message).toContain(String(err.position));
      expect(handled.length).toBeLessThan(3);
      // Stopped for good: later waits reject with the same error, and stop() still resolves.
      await expect(sub.caughtUpTo(head + 2_000_000n)).rejects.toBe(err);
      await sub.stop();
      const logged = lines.filter((l) => l.level === 'error' && l.details?.['reason'] === 'hash_mismatch');
      expect(logged).toHaveLength(1);
      expect(logged[0]!.details).toMatchObject({ streamId: s, position: String(err.position) });
    } finally {
      await own.close();
    }
  });
});
