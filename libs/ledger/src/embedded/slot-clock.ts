/**
 * Slot timeline and recent-blockhash queue of the embedded ledger.
 *
 * Slots are a function of wall-clock time: under the latest anchor (written to the journal
 * on every open) slot = anchor.slot + floor((now − anchor.time) / slotMs). Every slot is a
 * block (block height = slot), its block time is the anchor-derived start time of the slot,
 * so nothing has to be written per slot and a restart continues the same timeline.
 *
 * Each slot has a blockhash sha256("blockhash" ‖ genesis secret ‖ slot as u64 LE): stable
 * across restarts, unpredictable without the secret kept in `genesis.json`.
 */
import { createHash } from 'node:crypto';
import { encodeBase58 } from '../internal/base58';
import { MAX_PROCESSING_AGE } from '../constants';
import type { ClockAnchor } from './journal';

export class SlotClock {
  private readonly anchors: ClockAnchor[];

  constructor(anchors: readonly ClockAnchor[]) {
    if (anchors.length === 0) throw new Error('SlotClock needs at least one anchor');
    this.anchors = [...anchors].sort((a, b) => a.slot - b.slot);
  }

  private get last(): ClockAnchor {
    return this.anchors[this.anchors.length - 1]!;
  }

  /** Slot at `nowMs` under the latest anchor (never before the anchor's first slot). */
  slotAt(nowMs: number): number {
    const a = this.last;
    if (nowMs <= a.timeMs) return a.slot;
    return a.slot + Math.floor((nowMs - a.timeMs) / a.slotMs);
  }

  /** Unix milliseconds at which `slot` starts. */
  slotStartMs(slot: number): number {
    let a = this.anchors[0]!;
    for (let i = this.anchors.length - 1; i >= 0; i--) {
      if (this.anchors[i]!.slot <= slot) {
        a = this.anchors[i]!;
        break;
      }
    }
    return a.timeMs + (slot - a.slot) * a.slotMs;
  }

  /** Block time of `slot` in unix seconds. */
  blockTimeOf(slot: number): number {
    return Math.floor(this.slotStartMs(slot) / 1000);
  }
}

/**
 * The blockhashes of the last MAX_PROCESSING_AGE + 1 slots. A transaction is accepted only
 * if its recent blockhash is in the queue, exactly like a cluster's BlockhashQueue.
 */
export class BlockhashQueue {
  /** key: 32 hash bytes as a latin1 string → slot. */
  private readonly bySlotKey = new Map<string, number>();
  private readonly order: { slot: number; key: string }[] = [];
  private head = -1;
  private latestText: string | null = null;

  constructor(private readonly secret: Uint8Array) {}

  hashOf(slot: number): Buffer {
    const le = Buffer.alloc(8);
    le.writeBigUInt64LE(BigInt(slot));
    return createHash('sha256').update('blockhash').update(this.secret).update(le).digest();
  }

  /** Makes `slot` the newest block; older than slot − MAX_PROCESSING_AGE expire. */
  advanceTo(slot: number): void {
    if (slot <= this.head) return;
    const from = Math.max(this.head + 1, slot - MAX_PROCESSING_AGE, 0);
    for (let s = from; s <= slot; s++) {
      const key = this.hashOf(s).toString('latin1');
      this.bySlotKey.set(key, s);
      this.order.push({ slot: s, key });
    }
    this.head = slot;
    this.latestText = null;
    const oldest = slot - MAX_PROCESSING_AGE;
    let drop = 0;
    while (drop < this.order.length && this.order[drop]!.slot < oldest) {
      this.bySlotKey.delete(this.order[drop]!.key);
      drop++;
    }
    if (drop > 0) this.order.splice(0, drop);
  }

  /** Slot that produced this blockhash, if it is still valid. */
  slotOf(hash: Uint8Array): number | undefined {
    if (hash.length !== 32) return undefined;
    return this.bySlotKey.get(Buffer.from(hash.buffer, hash.byteOffset, 32).toString('latin1'));
  }

  /** Base58 blockhash of the newest slot. */
  latest(): string {
    if (this.latestText === null) this.latestText = encodeBase58(this.hashOf(this.head));
    return this.latestText;
  }
}
