/**
 * The embedded ledger's SQLite journal (`<dataDir>/ledger/journal.sqlite`, WAL).
 *
 * It is the source of truth: the LiteSVM state is rebuilt from it on open, and transaction
 * history is served from it. Every landed transaction (successful or failed-with-fee) is one
 * row of `transactions`, written together with its `address_signatures` rows in one SQLite
 * transaction. `clock_anchors` records how slots map to wall-clock time (one row per open).
 *
 * Rows are appended in landing order and slots never go backwards, so `seq` grows with `slot`:
 * the rows of a slot (a block) or up to a slot (a commitment level) are a `seq` range found by a
 * binary search on the primary key ({@link Journal.lastSeqAtOrBefore}), without an index on `slot`
 * to maintain on every write.
 */
import Database from 'better-sqlite3';

export interface ClockAnchor {
  /** First slot produced under this anchor. */
  slot: number;
  /** Unix milliseconds at which `slot` started. */
  timeMs: number;
  /** Slot duration in milliseconds. */
  slotMs: number;
}

export interface JournalAppend {
  signature: Uint8Array;
  slot: number;
  /** Unix seconds. */
  blockTime: number;
  wire: Uint8Array;
  /** Solana JSON error, serialized; null on success. */
  errJson: string | null;
  /** Lamports. */
  fee: bigint;
  logs: readonly string[];
  memo: string | null;
  unitsConsumed: bigint;
  /** JSON `{writable: string[], readonly: string[]}` of addresses loaded from lookup tables; null without lookups. */
  loadedJson: string | null;
  /** Every account key of the message (32-byte views), loaded addresses included. */
  addresses: readonly Uint8Array[];
  /**
   * Lamports of every account of `addresses` (same order) before then after execution, u64 LE:
   * `2 × addresses.length × 8` bytes (see {@link encodeBalances}).
   */
  balances: Uint8Array;
}

export interface JournalTxRow {
  seq: number;
  signature: Buffer;
  slot: number;
  block_time: number;
  wire: Buffer;
  err: string | null;
  fee: number;
  logs: string;
  memo: string | null;
  units: number;
  loaded: string | null;
  /** Pre- then post-execution lamports (u64 LE); null on rows written before balances were journaled. */
  balances: Buffer | null;
}

export interface JournalStatusRow {
  slot: number;
  err: string | null;
}

export interface JournalHistoryRow {
  seq: number;
  signature: Buffer;
  slot: number;
  block_time: number;
  err: string | null;
  memo: string | null;
}

export interface JournalReplayRow {
  seq: number;
  signature: Buffer;
  slot: number;
  block_time: number;
  wire: Buffer;
  err: string | null;
}

export type JournalSynchronous = 'full' | 'normal';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS clock_anchors (
  slot    INTEGER PRIMARY KEY,
  time_ms INTEGER NOT NULL,
  slot_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS transactions (
  seq        INTEGER PRIMARY KEY,
  signature  BLOB    NOT NULL UNIQUE,
  slot       INTEGER NOT NULL,
  block_time INTEGER NOT NULL,
  wire       BLOB    NOT NULL,
  err        TEXT,
  fee        INTEGER NOT NULL,
  logs       TEXT    NOT NULL,
  memo       TEXT,
  units      INTEGER NOT NULL,
  loaded     TEXT,
  balances   BLOB
);
CREATE TABLE IF NOT EXISTS address_signatures (
  address BLOB    NOT NULL,
  seq     INTEGER NOT NULL,
  PRIMARY KEY (address, seq)
) WITHOUT ROWID;
`;

export class Journal {
  private readonly db: Database.Database;
  private readonly insertTx: Database.Statement;
  private readonly insertAddress: Database.Statement;
  private readonly hasSignatureStmt: Database.Statement;
  private readonly statusStmt: Database.Statement;
  private readonly txStmt: Database.Statement;
  private readonly seqStmt: Database.Statement;
  private readonly historyStmt: Database.Statement;
  private readonly slotAtStmt: Database.Statement;
  private readonly rangeStmt: Database.Statement;
  private readonly firstAfterStmt: Database.Statement;
  private readonly appendTxn: (entries: readonly JournalAppend[]) => number;

  /**
   * Opens (creating if needed) the journal and takes an exclusive lock on it for the life of
   * the connection, so two processes cannot run the same ledger.
   * @throws Error when another process holds the journal.
   */
  constructor(path: string, synchronous: JournalSynchronous) {
    this.db = new Database(path, { timeout: 0 });
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
      // Fewer, larger WAL checkpoints (64 MiB at 4 KiB pages instead of 4 MiB): less copying and syncing per send.
      this.db.pragma('wal_autocheckpoint = 16384');
      this.db.pragma('locking_mode = EXCLUSIVE');
      this.db.exec('BEGIN EXCLUSIVE; COMMIT');
    } catch (e) {
      this.db.close();
      if ((e as { code?: string }).code === 'SQLITE_BUSY') {
        throw new Error(
          `Ledger journal ${path} is in use by another process: one process at a time owns the embedded ledger; ` +
            'start the others with LEDGER_RPC_URL set to its JSON-RPC endpoint (<base>/rpc)',
        );
      }
      throw e;
    }
    this.db.exec(SCHEMA);
    // Journals created before balances were recorded: add the column (older rows keep null).
    const columns = this.db.prepare('PRAGMA table_info(transactions)').all() as { name: string }[];
    if (!columns.some((c) => c.name === 'balances')) this.db.exec('ALTER TABLE transactions ADD COLUMN balances BLOB');
    this.insertTx = this.db.prepare(
      `INSERT INTO transactions (signature, slot, block_time, wire, err, fee, logs, memo, units, loaded, balances)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertAddress = this.db.prepare('INSERT OR IGNORE INTO address_signatures (address, seq) VALUES (?, ?)');
    this.hasSignatureStmt = this.db.prepare('SELECT 1 FROM transactions WHERE signature = ?').pluck();
    this.statusStmt = this.db.prepare('SELECT slot, err FROM transactions WHERE signature = ?');
    this.txStmt = this.db.prepare('SELECT * FROM transactions WHERE signature = ?');
    this.seqStmt = this.db.prepare('SELECT seq FROM transactions WHERE signature = ?').pluck();
    this.historyStmt = this.db.prepare(
      `SELECT t.seq, t.signature, t.slot, t.block_time, t.err, t.memo
         FROM address_signatures a JOIN transactions t ON t.seq = a.seq
        WHERE a.address = ? AND a.seq < ? AND a.seq > ?
        ORDER BY a.seq DESC LIMIT ?`,
    );
    this.slotAtStmt = this.db.prepare('SELECT slot FROM transactions WHERE seq = ?').pluck();
    this.rangeStmt = this.db.prepare('SELECT * FROM transactions WHERE seq > ? AND seq <= ? ORDER BY seq');
    this.firstAfterStmt = this.db.prepare(
      `SELECT t.* FROM address_signatures a JOIN transactions t ON t.seq = a.seq
        WHERE a.address = ? AND a.seq > ? ORDER BY a.seq ASC LIMIT 1`,
    );
    this.appendTxn = this.db.transaction((entries: readonly JournalAppend[]): number => {
      let seq = 0;
      for (const e of entries) {
        const info = this.insertTx.run(
          e.signature,
          e.slot,
          e.blockTime,
          e.wire,
          e.errJson,
          e.fee,
          JSON.stringify(e.logs),
          e.memo,
          e.unitsConsumed,
          e.loadedJson,
          e.balances,
        );
        seq = Number(info.lastInsertRowid);
        for (const address of e.addresses) this.insertAddress.run(address, seq);
      }
      return seq;
    });
  }

  /**
   * Records landed transactions (in landing order) and their address index in one SQLite
   * transaction — all or nothing; returns the sequence number of the last one.
   */
  append(entries: readonly JournalAppend[]): number {
    return this.appendTxn(entries);
  }

  hasSignature(signature: Uint8Array): boolean {
    return this.hasSignatureStmt.get(signature) !== undefined;
  }

  status(signature: Uint8Array): JournalStatusRow | undefined {
    return this.statusStmt.get(signature) as JournalStatusRow | undefined;
  }

  transaction(signature: Uint8Array): JournalTxRow | undefined {
    return this.txStmt.get(signature) as JournalTxRow | undefined;
  }

  seqOf(signature: Uint8Array): number | undefined {
    return this.seqStmt.get(signature) as number | undefined;
  }

  /** Newest first, rows with afterSeq < seq < beforeSeq. */
  history(address: Uint8Array, beforeSeq: number, limit: number, afterSeq = 0): JournalHistoryRow[] {
    return this.historyStmt.all(address, beforeSeq, afterSeq, limit) as JournalHistoryRow[];
  }

  /**
   * Sequence number of the last row landed in a slot ≤ `slot` (0 when none): a binary search over
   * the contiguous `seq` range, relying on slots growing with `seq` (see the file comment).
   */
  lastSeqAtOrBefore(slot: number, lastSeq = this.lastSeq()): number {
    let lo = 0;
    let hi = lastSeq;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      const s = this.slotAtStmt.get(mid) as number | undefined;
      if (s !== undefined && s <= slot) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Rows with afterSeq < seq ≤ toSeq, in landing order. */
  rowsBetween(afterSeq: number, toSeq: number): JournalTxRow[] {
    return this.rangeStmt.all(afterSeq, toSeq) as JournalTxRow[];
  }

  /** The first row after `afterSeq` that references `address`, or undefined. */
  firstTouchAfter(address: Uint8Array, afterSeq: number): JournalTxRow | undefined {
    return this.firstAfterStmt.get(address, afterSeq) as JournalTxRow | undefined;
  }

  /** Rows after `afterSeq` in landing order, streamed. */
  replayRows(afterSeq: number): IterableIterator<JournalReplayRow> {
    return this.db
      .prepare('SELECT seq, signature, slot, block_time, wire, err FROM transactions WHERE seq > ? ORDER BY seq')
      .iterate(afterSeq) as IterableIterator<JournalReplayRow>;
  }

  lastSeq(): number {
    return (this.db.prepare('SELECT COALESCE(MAX(seq), 0) FROM transactions').pluck().get() as number) ?? 0;
  }

  signatureAt(seq: number): Buffer | undefined {
    return this.db.prepare('SELECT signature FROM transactions WHERE seq = ?').pluck().get(seq) as Buffer | undefined;
  }

  maxSlot(): number {
    return (this.db.prepare('SELECT COALESCE(MAX(slot), 0) FROM transactions').pluck().get() as number) ?? 0;
  }

  anchors(): ClockAnchor[] {
    return (this.db.prepare('SELECT slot, time_ms, slot_ms FROM clock_anchors ORDER BY slot').all() as {
      slot: number;
      time_ms: number;
      slot_ms: number;
    }[]).map((r) => ({ slot: r.slot, timeMs: r.time_ms, slotMs: r.slot_ms }));
  }

  addAnchor(anchor: ClockAnchor): void {
    this.db.prepare('INSERT INTO clock_anchors (slot, time_ms, slot_ms) VALUES (?, ?, ?)').run(anchor.slot, anchor.timeMs, anchor.slotMs);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** Packs pre- and post-execution lamports (same length) as u64 LE: all `pre`, then all `post`. */
export function encodeBalances(pre: readonly bigint[], post: readonly bigint[]): Uint8Array {
  const out = Buffer.alloc((pre.length + post.length) * 8);
  pre.forEach((v, i) => out.writeBigUInt64LE(v, i * 8));
  post.forEach((v, i) => out.writeBigUInt64LE(v, (pre.length + i) * 8));
  return out;
}

/** Inverse of {@link encodeBalances}; null for rows without balances. */
export function decodeBalances(bytes: Uint8Array | null): { pre: bigint[]; post: bigint[] } | null {
  if (bytes === null || bytes.length % 16 !== 0) return null;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = bytes.length / 16;
  const pre: bigint[] = new Array(n);
  const post: bigint[] = new Array(n);
  for (let i = 0; i < n; i++) {
    pre[i] = view.readBigUInt64LE(i * 8);
    post[i] = view.readBigUInt64LE((n + i) * 8);
  }
  return { pre, post };
}
