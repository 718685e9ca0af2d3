import { AirdropGuard, FixedWindowCounter } from './rpc-limits';

describe('FixedWindowCounter', () => {
  test('allows up to the limit per key and window, then says when to retry; a new window starts afresh', () => {
    let now = 1_000_000;
    const counter = new FixedWindowCounter(3, 60_000, () => now);
    expect(counter.take('a', 2)).toEqual({ allowed: true });
    expect(counter.take('a', 2)).toEqual({ allowed: false, retryAfterSeconds: 60 });
    expect(counter.take('a', 1)).toEqual({ allowed: true });
    expect(counter.take('b', 3)).toEqual({ allowed: true });
    now += 45_500;
    expect(counter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 15 });
    now += 14_500;
    expect(counter.take('a', 3)).toEqual({ allowed: true });
  });

  test('refuses a non-positive limit', () => {
    expect(() => new FixedWindowCounter(0)).toThrow(RangeError);
  });
});

describe('AirdropGuard', () => {
  test('counts an airdrop against its recipient and its client only when both have room', () => {
    const guard = new AirdropGuard({ maxLamports: 1n, perMinute: 1 }, () => 0);
    expect(guard.take('alice', '10.0.0.1').allowed).toBe(true);
    expect(guard.take('alice', '10.0.0.2').allowed).toBe(false);
    // The refusal above counted nothing for 10.0.0.2.
    expect(guard.take('bob', '10.0.0.2').allowed).toBe(true);
    expect(guard.take('carol', '10.0.0.1').allowed).toBe(false);
  });
});
