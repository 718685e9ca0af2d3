/**
 * The embedded ledger's cluster-like clock: the current slot (a function of wall-clock time under
 * per-open anchors kept in the journal, see slot-clock.ts), the recent-blockhash queue, commitment
 * of a transaction by depth, and waits for a future slot.
 *
 * Every slot is a block (block height = slot). A transaction is `confirmed` until the current slot
 * is FINALITY_DEPTH slots past it, then `finalized`. Commitment levels of the chain itself: the
 * `processed` and `confirmed` slot is the current one (one node, every landed transaction is
 * journaled before it is reported), the `finalized` slot (the root) is FINALITY_DEPTH behind it.
 */
import type { Commitment, LatestBlockhash } from '../ledger.port';
import { LedgerError, LedgerErrorCode } from '../ledger-error';
import { FINALITY_DEPTH, MAX_PROCESSING_AGE } from '../constants';
import { encodeBase58, tryDecodeBase58Fixed } from '../internal/base58';
import type { ClockAnchor, Journal } from './journal';
import { BlockhashQueue, SlotClock } from './slot-clock';

/**
 * Called whenever the current slot moves forward, with the slot's start time (unix ms) and the
 * slot it moved from (-1 on start).
 */
export type SlotListener = (slot: number, startMs: number, previous: number) => void;

const closedError = (): LedgerError => new LedgerError(LedgerErrorCode.Unavailable, 'Ledger closed');

/** Slot, blockhashes and commitment of the embedded ledger (see the file comment). */
export class ChainClock {
  private readonly blockhashes: BlockhashQueue;
  private slot = -1;
  private closed = false;
  private readonly waiters = new Set<{ timer: NodeJS.Timeout | null; reject: (e: Error) => void }>();
  private listener: SlotListener = () => undefined;

  private constructor(
    private readonly clock: SlotClock,
    secret: Uint8Array,
  ) {
    this.blockhashes = new BlockhashQueue(secret);
  }

  /**
   * Continues the journal's timeline: slot 0 at genesis, and a new anchor one slot past both the
   * previous timeline's current slot and the newest journaled transaction, so downtime counts as
   * empty slots and slots never go backwards.
   */
  static open(journal: Journal, genesis: { createdAtMs: number; secret: Uint8Array }, slotMs: number): ChainClock {
    const now = Date.now();
    const anchors = journal.anchors();
    if (anchors.length === 0) {
      const genesisAnchor: ClockAnchor = { slot: 0, timeMs: genesis.createdAtMs, slotMs };
      journal.addAnchor(genesisAnchor);
      anchors.push(genesisAnchor);
    }
    const previous = new SlotClock(anchors);
    const lastAnchorSlot = anchors[anchors.length - 1]!.slot;
    const start = Math.max(previous.slotAt(now), journal.maxSlot(), lastAnchorSlot) + 1;
    const anchor: ClockAnchor = { slot: start, timeMs: now, slotMs };
    journal.addAnchor(anchor);
    return new ChainClock(new SlotClock([...anchors, anchor]), genesis.secret);
  }

  /** Starts following the wall clock; `listener` hears every advance (the SVM clock sysvar follows it). */
  start(listener: SlotListener): void {
    this.listener = listener;
    this.advanceTo(this.clock.slotAt(Date.now()));
  }

  /** The current slot as last synced (no wall-clock read). */
  get current(): number {
    return this.slot;
  }

  /**
   * Brings the slot up to date with the wall clock.
   * @returns the current slot.
   * @throws LedgerError `Unavailable` once closed.
   */
  sync(): number {
    if (this.closed) throw closedError();
    const slot = this.clock.slotAt(Date.now());
    if (slot > this.slot) this.advanceTo(slot);
    return this.slot;
  }

  private advanceTo(slot: number): void {
    if (slot <= this.slot) return;
    const previous = this.slot;
    this.slot = slot;
    this.blockhashes.advanceTo(slot);
    this.listener(slot, this.clock.slotStartMs(slot), previous);
  }

  /** The chain's slot at `commitment` as last synced: the current slot, or FINALITY_DEPTH behind it for `finalized`. */
  slotAt(commitment: Commitment = 'processed'): number {
    return commitment === 'finalized' ? Math.max(0, this.slot - FINALITY_DEPTH) : this.slot;
  }

  /** Base58 blockhash of any slot (the block's hash; also the recent blockhash transactions of later slots may use). */
  blockhashOf(slot: number): string {
    return slot === this.slot ? this.blockhashes.latest() : encodeBase58(this.blockhashes.hashOf(slot));
  }

  /** Unix milliseconds at which `slot` starts. */
  slotStartMs(slot: number): number {
    return this.clock.slotStartMs(slot);
  }

  /** Block time of `slot`, unix seconds. */
  blockTimeOf(slot: number): number {
    return this.clock.blockTimeOf(slot);
  }

  /**
   * Blockhash of the newest slot at `commitment` (default: the current slot), usable until block
   * height that slot + MAX_PROCESSING_AGE.
   */
  latestBlockhash(commitment: Commitment = 'processed'): LatestBlockhash {
    const slot = this.slotAt(commitment);
    return { blockhash: this.blockhashOf(slot), lastValidBlockHeight: BigInt(slot + MAX_PROCESSING_AGE) };
  }

  /**
   * Whether a transaction with this recent blockhash (32 bytes or base58) can still land, judged by the state at
   * `commitment` (default `processed`, the newest): the blockhash of a slot past that state's slot is unknown to
   * it, as to a cluster's bank of that commitment (a `confirmed` blockhash is not yet valid for `finalized`).
   */
  isBlockhashValid(blockhash: Uint8Array | string, commitment: Commitment = 'processed'): boolean {
    const bytes = typeof blockhash === 'string' ? tryDecodeBase58Fixed(blockhash, 32) : blockhash;
    if (bytes === null) return false;
    const slot = this.blockhashes.slotOf(bytes);
    return slot !== undefined && slot <= this.slotAt(commitment);
  }

  /** Commitment of a transaction that landed in `txSlot`, and its confirmations (null once finalized). */
  statusOf(txSlot: number): { confirmationStatus: Commitment; confirmations: number | null } {
    const depth = this.slot - txSlot;
    return depth >= FINALITY_DEPTH
      ? { confirmationStatus: 'finalized', confirmations: null }
      : { confirmationStatus: 'confirmed', confirmations: Math.max(0, depth) };
  }

  /**
   * Resolves once the current slot reaches `target`.
   * @throws LedgerError `Unavailable` when the clock is closed first.
   */
  waitForSlot(target: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const entry: { timer: NodeJS.Timeout | null; reject: (e: Error) => void } = { timer: null, reject };
      const check = (): void => {
        this.waiters.delete(entry);
        if (this.closed) return reject(closedError());
        const now = this.sync();
        if (now >= target) return resolve();
        entry.timer = setTimeout(check, Math.max(1, this.clock.slotStartMs(target) - Date.now()));
        this.waiters.add(entry);
      };
      check();
    });
  }

  /** Stops the clock; pending waits reject with `Unavailable`. Idempotent. */
  close(): void {
    this.closed = true;
    for (const w of this.waiters) {
      if (w.timer !== null) clearTimeout(w.timer);
      w.reject(closedError());
    }
    this.waiters.clear();
  }
}
