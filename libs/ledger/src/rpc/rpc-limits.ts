/**
 * Limits of the ledger's JSON-RPC endpoint (libs/ledger/README.md, "Limits"): fixed one-minute
 * windows per key, used to count every call of a batch against the caller's budget and to cap
 * airdrops per recipient and per client address.
 */

/** Answer of a limit check; `retryAfterSeconds` is set when refused. */
export interface CallAllowance {
  allowed: boolean;
  retryAfterSeconds?: number;
}

/**
 * Counts hits per key in fixed windows of `windowMs` (default one minute). Expired windows are
 * dropped once per window, so memory stays proportional to the keys seen in the last window.
 */
export class FixedWindowCounter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep: number;

  /**
   * @param limit hits allowed per key and window (positive integer).
   * @param now clock in unix ms (tests pass a fake one).
   * @throws RangeError when `limit` or `windowMs` is not a positive integer.
   */
  constructor(
    readonly limit: number,
    readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
    if (!Number.isInteger(windowMs) || windowMs < 1) throw new RangeError('windowMs must be a positive integer');
    this.lastSweep = now();
  }

  /** Whether `n` more hits on `key` fit in its current window, without counting them. */
  check(key: string, n = 1): CallAllowance {
    const t = this.now();
    this.sweep(t);
    const w = this.windows.get(key);
    if (w === undefined || t - w.start >= this.windowMs || w.count + n <= this.limit) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((w.start + this.windowMs - t) / 1000)) };
  }

  /** Counts `n` hits on `key` when they fit (see {@link check}); otherwise counts nothing. */
  take(key: string, n = 1): CallAllowance {
    const allowance = this.check(key, n);
    if (!allowance.allowed) return allowance;
    const t = this.now();
    const w = this.windows.get(key);
    if (w === undefined || t - w.start >= this.windowMs) this.windows.set(key, { start: t, count: n });
    else w.count += n;
    return allowance;
  }

  private sweep(t: number): void {
    if (t - this.lastSweep < this.windowMs) return;
    this.lastSweep = t;
    for (const [key, w] of this.windows) if (t - w.start >= this.windowMs) this.windows.delete(key);
  }
}

/**
 * A `countCalls` option for {@link registerLedgerJsonRpc}: each JSON-RPC call (every element of a
 * batch) counts one hit against `perMinute` for the client address (`request.ip`, which honours
 * Fastify's `trustProxy`).
 * @throws RangeError when `perMinute` is not a positive integer.
 */
export function callsPerMinutePerClient(perMinute: number): (client: { ip: string }, calls: number) => CallAllowance {
  const counter = new FixedWindowCounter(perMinute);
  return (request, calls) => counter.take(request.ip, calls);
}

/** Airdrop caps of the endpoint. */
export interface AirdropLimits {
  /** Largest amount one request may ask for, in lamports (default 2 SOL). */
  maxLamports: bigint;
  /** Airdrops per minute allowed to one recipient and to one client address (default 10). */
  perMinute: number;
}

export const DEFAULT_AIRDROP_LIMITS: AirdropLimits = { maxLamports: 2_000_000_000n, perMinute: 10 };

/** Counts airdrops per recipient and per client address; an airdrop is allowed when both have room. */
export class AirdropGuard {
  private readonly byRecipient: FixedWindowCounter;
  private readonly byClient: FixedWindowCounter;

  constructor(
    readonly limits: AirdropLimits,
    now: () => number = Date.now,
  ) {
    this.byRecipient = new FixedWindowCounter(limits.perMinute, 60_000, now);
    this.byClient = new FixedWindowCounter(limits.perMinute, 60_000, now);
  }

  /** Counts one airdrop for both keys when both have room; otherwise counts nothing and says when to retry. */
  take(recipient: string, client: string): CallAllowance {
    const a = this.byRecipient.check(recipient);
    const b = this.byClient.check(client);
    if (!a.allowed || !b.allowed) {
      return { allowed: false, retryAfterSeconds: Math.max(a.retryAfterSeconds ?? 0, b.retryAfterSeconds ?? 0) };
    }
    this.byRecipient.take(recipient);
    this.byClient.take(client);
    return { allowed: true };
  }
}
