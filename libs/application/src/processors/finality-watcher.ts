import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { LEDGER, toSignature, type Ledger } from '@svc/ledger';

interface Waiter {
  resolve: (slot: number) => void;
  reject: (err: Error) => void;
}

interface Pending {
  /** The slot the transaction landed in, when the caller knows it. */
  slot: number | null;
  waiters: Waiter[];
}

/** Signatures asked about in one `getSignatureStatuses` call (the RPC method's limit). */
const STATUS_BATCH = 256;

/**
 * Tells when transactions reach `finalized` commitment, asking the ledger for the statuses of pending signatures
 * together, once per ledger slot time (the embedded ledger finalizes 32 slots deep; a cluster reports `finalized`
 * itself). A transaction whose landing slot is known is asked about only once the ledger's finalized slot has
 * reached it (one `getSlot('finalized')` per round instead of a status per pending signature); the status, not
 * the slot, still decides. Observation only: nothing is recorded here.
 */
@Injectable()
export class FinalityWatcher implements OnApplicationShutdown {
  private readonly pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    @Inject(LEDGER) private readonly ledger: Ledger,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Resolves with the slot of the transaction once the ledger reports it finalized.
   * @param landedSlot the slot the transaction landed in, when known (spares status reads until it can be final)
   */
  finalized(signature: string, landedSlot?: number): Promise<number> {
    if (this.closed) return Promise.reject(new Error('finality watcher closed'));
    return new Promise((resolve, reject) => {
      const pending = this.pending.get(signature);
      if (pending) pending.waiters.push({ resolve, reject });
      else this.pending.set(signature, { slot: landedSlot ?? null, waiters: [{ resolve, reject }] });
      this.schedule();
    });
  }

  /** Stops watching; pending waits reject. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    const waiters = [...this.pending.values()].flatMap((p) => p.waiters);
    this.pending.clear();
    for (const w of waiters) w.reject(new Error('finality watcher closed'));
  }

  onApplicationShutdown(): void {
    this.close();
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.poll().finally(() => {
        if (this.pending.size > 0) this.schedule();
      });
    }, Math.max(50, this.config.ledgerSlotMs));
  }

  private async poll(): Promise<void> {
    let finalizedSlot: number;
    try {
      finalizedSlot = Number(await this.ledger.getSlot('finalized'));
    } catch {
      return; // unreachable: asked again on the next round
    }
    const signatures = [...this.pending].filter(([, p]) => p.slot === null || p.slot <= finalizedSlot).map(([signature]) => signature);
    for (let i = 0; i < signatures.length && !this.closed; i += STATUS_BATCH) {
      const batch = signatures.slice(i, i + STATUS_BATCH);
      let statuses;
      try {
        statuses = await this.ledger.getSignatureStatuses(batch.map(toSignature));
      } catch {
        return; // unreachable: asked again on the next round
      }
      batch.forEach((signature, j) => {
        const status = statuses[j];
        if (status?.confirmationStatus !== 'finalized') return;
        const waiters = this.pending.get(signature)?.waiters ?? [];
        this.pending.delete(signature);
        for (const w of waiters) w.resolve(Number(status.slot));
      });
    }
  }
}
