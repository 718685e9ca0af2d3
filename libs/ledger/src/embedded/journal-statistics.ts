/**
 * Reads the embedded ledger derives from its journal rather than from the runtime's state: which accounts a journaled
 * transaction wrote (for subscriptions), its account keys, and the per-slot statistics of the JSON-RPC methods
 * `getRecentPrioritizationFees` and `getRecentPerformanceSamples`, computed as Agave computes them
 * (libs/ledger/README.md).
 */
import type { LandedTransactionEvent, LedgerPerformanceSample, LedgerPrioritizationFee } from '../ledger-inspector';
import { encodeBase58 } from '../internal/base58';
import { computeUnitPrice, nonceAccountIndex, parseWireTransaction, staticKeyFlags, type WireMessage } from '../internal/wire';
import type { Journal, JournalAppend, JournalTxRow } from './journal';

/** Slots `getRecentPrioritizationFees` looks back over (Agave's prioritization fee cache). */
const PRIORITIZATION_FEE_SLOTS = 150;
/** Length of a `getRecentPerformanceSamples` period in seconds, as Agave samples. */
const SAMPLE_PERIOD_SECS = 60;

const errOf = (json: string | null): unknown => (json === null ? null : JSON.parse(json));

/** Static then loaded account keys of a journal row, base58. */
export function accountKeysOfRow(row: JournalTxRow): string[] {
  const keys = parseWireTransaction(row.wire).message.accountKeys.map(encodeBase58);
  if (row.loaded === null) return keys;
  const loaded = JSON.parse(row.loaded) as { writable: string[]; readonly: string[] };
  return [...keys, ...loaded.writable, ...loaded.readonly];
}

/** Writable flags of every account key of a message (static as the runtime sees them, then the loaded ones). */
function writableFlags(message: WireMessage, keyCount: number, loadedWritable: number): boolean[] {
  const flags = staticKeyFlags(message);
  const n = flags.length;
  return Array.from({ length: keyCount }, (_, i) => (i < n ? flags[i]!.writable : i - n < loadedWritable));
}

/**
 * The subscription view of a journaled row. Written accounts as the runtime stores them: every
 * writable key of a successful transaction; of a failed one the fee payer (charged) and the nonce
 * account of a durable-nonce transaction (advanced) only.
 */
export function landedEvent(row: JournalAppend): LandedTransactionEvent {
  const message = parseWireTransaction(row.wire).message;
  const loaded = row.loadedJson === null ? null : (JSON.parse(row.loadedJson) as { writable: string[] });
  const writable = writableFlags(message, row.addresses.length, loaded?.writable.length ?? 0);
  const failed = row.errJson !== null;
  const nonce = failed ? nonceAccountIndex(message) : null;
  return {
    signature: encodeBase58(row.signature),
    slot: BigInt(row.slot),
    err: errOf(row.errJson),
    logs: row.logs,
    accounts: row.addresses.map((key, i) => ({ address: encodeBase58(key), written: writable[i]! && (!failed || i === 0 || i === nonce) })),
  };
}

/**
 * For each of the last 150 slots up to `top`, oldest first: the lowest compute-unit price (micro-lamports per compute
 * unit) of its transactions (0 for a slot without any), raised to the lowest price among its transactions that write
 * each of `addresses` (Agave's prioritization fee cache, failed transactions included). `lastSeq` bounds the journal
 * rows read (those the runtime has applied).
 */
export function recentPrioritizationFees(journal: Journal, lastSeq: number, top: number, addresses: readonly string[]): LedgerPrioritizationFee[] {
  const from = Math.max(0, top - PRIORITIZATION_FEE_SLOTS + 1);
  const last = lastSeq;
  const wanted = new Set(addresses);
  const bySlot = new Map<number, { min: bigint; accounts: Map<string, bigint> }>();
  const afterSeq = from === 0 ? 0 : journal.lastSeqAtOrBefore(from - 1, last);
  const toSeq = journal.lastSeqAtOrBefore(top, last);
  for (const row of toSeq > afterSeq ? journal.rowsBetween(afterSeq, toSeq) : []) {
    const message = parseWireTransaction(row.wire).message;
    const price = computeUnitPrice(message);
    let entry = bySlot.get(row.slot);
    if (entry === undefined) bySlot.set(row.slot, (entry = { min: price, accounts: new Map() }));
    else if (price < entry.min) entry.min = price;
    if (wanted.size === 0) continue;
    const keys = accountKeysOfRow(row);
    const loaded = row.loaded === null ? 0 : (JSON.parse(row.loaded) as { writable: string[] }).writable.length;
    const writable = writableFlags(message, keys.length, loaded);
    keys.forEach((key, i) => {
      if (!writable[i] || !wanted.has(key)) return;
      const seen = entry.accounts.get(key);
      if (seen === undefined || price < seen) entry.accounts.set(key, price);
    });
  }
  const out: LedgerPrioritizationFee[] = [];
  for (let s = from; s <= top; s++) {
    const entry = bySlot.get(s);
    let fee = entry?.min ?? 0n;
    for (const account of entry?.accounts.values() ?? []) if (account > fee) fee = account;
    out.push({ slot: BigInt(s), prioritizationFee: fee });
  }
  return out;
}

/**
 * Completed 60-second periods (of 60 s / `slotMs` slots each, counted from slot 0) up to slot `top`, newest first, at
 * most `limit`, with the transactions journaled in them (none are votes).
 */
export function recentPerformanceSamples(journal: Journal, lastSeq: number, top: number, slotMs: number, limit: number): LedgerPerformanceSample[] {
  const period = Math.max(1, Math.round((SAMPLE_PERIOD_SECS * 1000) / slotMs));
  const last = lastSeq;
  const out: LedgerPerformanceSample[] = [];
  for (let k = Math.floor((top + 1) / period) - 1; k >= 0 && out.length < limit; k--) {
    const first = k * period;
    const end = first + period - 1;
    const before = first === 0 ? 0 : journal.lastSeqAtOrBefore(first - 1, last);
    const count = BigInt(journal.lastSeqAtOrBefore(end, last) - before);
    out.push({ slot: BigInt(end), numTransactions: count, numNonVoteTransactions: count, numSlots: BigInt(period), samplePeriodSecs: SAMPLE_PERIOD_SECS });
  }
  return out;
}
