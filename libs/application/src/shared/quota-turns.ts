import { Injectable } from '@nestjs/common';

/**
 * Turns per organization for the decisions that count usage from a read model (draft quotas, webhook endpoints:
 * docs/api.md "Quotas"). A decision runs its whole course in its turn (count, decide, append, wait until the read
 * models show it), so the next one counts what the previous one added: within one API process a limit is never
 * passed, however many requests race. Between API replicas each counts only what the read models show, so racing
 * replicas may still pass a limit by one decision each. A turn that fails hands over to the next one all the same.
 */
@Injectable()
export class QuotaTurns {
  /** The last turn queued per key; removed when it ends with nobody queued behind it. */
  private readonly last = new Map<string, Promise<void>>();

  /** Runs `decision` once every earlier turn of `key` in this process has ended; its result or error is the caller's. */
  async take<T>(key: string, decision: () => Promise<T>): Promise<T> {
    const before = this.last.get(key) ?? Promise.resolve();
    const result = before.then(decision);
    const ended = result.then(
      () => undefined,
      () => undefined,
    );
    this.last.set(key, ended);
    try {
      return await result;
    } finally {
      if (this.last.get(key) === ended) this.last.delete(key);
    }
  }
}
