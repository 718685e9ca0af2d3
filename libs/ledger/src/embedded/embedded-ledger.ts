/**
 * The embedded ledger: a Solana runtime (LiteSVM) in process, made durable by a SQLite
 * journal and given a cluster-like clock.
 *
 * Files under `<dataDir>/ledger/`:
 * - `genesis.json` (mode 0600): genesis hash, creation time and the secret from which the
 *   per-slot blockhashes and the faucet key are derived;
 * - `journal.sqlite` (WAL): every landed transaction, the address → signature index and the
 *   clock anchors — the source of truth;
 * - `snapshot.bin` + `snapshot.json`: optional LiteSVM state snapshot at a journal position,
 *   an optimisation of restart time only (ignored whenever it does not match the journal).
 *
 * Design choices
 * - Blockhashes. LiteSVM accepts only its single `latestBlockhash()`, and `expireBlockhash()`
 *   replaces it, so a transaction signed a moment before a rotation would fail — unlike a
 *   cluster where a blockhash stays usable for 150 blocks. The SVM's own check is therefore
 *   turned off for good (`withBlockhashCheck(false)`) and the adapter checks the recent
 *   blockhash against its own {@link BlockhashQueue}: one blockhash per slot, the last 151
 *   slots valid, `lastValidBlockHeight = blockHeight + 150`, otherwise `BlockhashNotFound`.
 *   The same switch is what makes replay possible: journaled transactions carry blockhashes
 *   the fresh SVM never produced.
 * - Duplicates. LiteSVM's history is disabled (capacity 0: it would keep every transaction in
 *   memory); duplicates are refused by a primary-key lookup in the journal (`AlreadyProcessed`).
 * - Fees / failures. A transaction that fails during execution pays its fee, is journaled with
 *   its error and replayed as such. A transaction refused before execution changes nothing and
 *   is not journaled. LiteSVM verifies precompiles (Ed25519…) as instructions — a forged
 *   signature comes back as `InstructionError(i, Custom(2))` *with the fee charged*; the
 *   adapter treats such a failure like the validator's pre-execution precompile check: it
 *   refunds the fee (LiteSVM burns fees, nothing else changes when a transaction fails) and
 *   rejects without recording. No extra verification is done on the success path.
 * - Replay. On open the SVM is rebuilt from genesis (or the snapshot) by re-executing journal
 *   rows in order with sigverify off (signatures were verified when they landed), each at its
 *   recorded slot and block time; success/failure is compared with the journal. The blockhash
 *   check needs no toggling around replay since the SVM's own check is always off.
 * - Clock. Slot = f(wall clock) under per-open anchors stored in the journal (see slot-clock.ts);
 *   a timer (every slotMs) and every call warp the SVM clock sysvar (slot, epoch, unix time).
 *   Status: `confirmed` until current slot ≥ tx slot + 32, then `finalized`.
 * - Hot path. `sendTransaction` does all its work synchronously: zero-copy wire parsing, a
 *   primary-key duplicate lookup, one native call into LiteSVM on the wire bytes; the journal
 *   write is group-committed (one SQLite transaction with prepared statements per event-loop
 *   turn, see `enqueue`) and the promise resolves only after it is committed.
 * - Airdrops are real System transfers from a genesis faucet (key derived from the secret),
 *   so they have signatures, history, and replay like any transaction.
 */
import { createHash, createPrivateKey, createPublicKey, randomBytes, sign as edSign, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Clock, LiteSVM } from 'litesvm';
import type {
  AddressSignature,
  Commitment,
  LatestBlockhash,
  Ledger,
  LedgerTransaction,
  SendOptions,
  SignatureStatus,
} from '../ledger.port';
import type { LedgerAccountInfo, LedgerInspector, SimulateOptions, SimulationResult } from '../ledger-inspector';
import {
  FINALITY_DEPTH,
  MAX_PROCESSING_AGE,
  MEMO_PROGRAM_ADDRESS,
  PACKET_DATA_SIZE,
  SYSTEM_PROGRAM_ADDRESS,
  type LedgerLogger,
} from '../constants';
import { LedgerInputError, LedgerTransactionFailedError } from '../errors';
import { decodeBase58, encodeBase58, tryDecodeBase58Fixed } from '../internal/base58';
import { describeTransactionError, transactionErrorToJson } from '../internal/tx-error';
import {
  computeMessageFee,
  extractMemo,
  isPrecompileProgram,
  parseWireMessage,
  parseWireTransaction,
  WireFormatError,
  type WireMessage,
  type WireTransaction,
} from '../internal/wire';
import { Journal, type ClockAnchor, type JournalAppend, type JournalSynchronous } from './journal';
import { BlockhashQueue, SlotClock } from './slot-clock';
import { FailedTransactionMetadata, SvmDriver, type SvmOutcome } from './svm-driver';

export interface EmbeddedLedgerOptions {
  /** Service data directory; the ledger lives in `<dataDir>/ledger/`. */
  dataDir: string;
  /** Slot duration in milliseconds (default 400, like mainnet). */
  slotMs?: number;
  logger?: LedgerLogger;
  /**
   * Journal durability: `full` (default) fsyncs every commit, so a transaction whose
   * `sendTransaction` resolved survives power loss; `normal` survives process crashes only
   * and is ~3x faster per write.
   */
  synchronous?: JournalSynchronous;
  /** Write a LiteSVM snapshot on close and every `snapshotEvery` transactions (default true). */
  snapshots?: boolean;
  /** Journal rows between periodic snapshots (default 10,000). */
  snapshotEvery?: number;
}

interface GenesisFile {
  version: 1;
  /** Base58 of 32 random bytes. */
  genesisHash: string;
  /** Unix milliseconds of slot 0. */
  createdAtMs: number;
  /** Hex of 32 random bytes; never leaves this file. */
  secret: string;
}

interface Submitted {
  signature: string;
  slot: number;
  /** Settles once the journal write is committed. */
  durable: Promise<void>;
  /** Set when the transaction landed with an error (fee charged): thrown after `durable`. */
  failure: LedgerTransactionFailedError | null;
}

interface SnapshotMeta {
  seq: number;
  signature: string;
  sha256: string;
  litesvm: string;
}

/** Extra fields the embedded ledger returns with {@link LedgerTransaction} (used by the JSON-RPC endpoint). */
export interface EmbeddedLedgerTransaction extends LedgerTransaction {
  computeUnitsConsumed: bigint;
  loadedAddresses: { writable: string[]; readonly: string[] } | null;
  memo: string | null;
}

const NOOP_LOGGER: LedgerLogger = { warn: () => undefined, error: () => undefined };
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SYSTEM_PROGRAM_BYTES = decodeBase58(SYSTEM_PROGRAM_ADDRESS);
/** Lamports minted to the faucet at genesis (500 million SOL). */
const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n;
const RENT_EXEMPT_EPOCH = 0xffff_ffff_ffff_ffffn;
const ALT_HEADER_BYTES = 56;
const FEE_RE = /fee: (\d+) \}\)$/;
const LITESVM_VERSION: string = (() => {
  try {
    return (require('litesvm/package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
})();

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

function sha256FileSync(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function compactU16(n: number): number[] {
  const out: number[] = [];
  let v = n;
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if (v === 0) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** Fee LiteSVM charged, read from its metadata (last field of its Debug output). */
function chargedFee(meta: { toString(): string }): bigint | null {
  const m = FEE_RE.exec(meta.toString());
  return m ? BigInt(m[1]!) : null;
}

function isZero(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

/** Epoch and its first slot under a (possibly warming-up) epoch schedule. */
function epochOf(
  slot: number,
  schedule: { slotsPerEpoch: number; warmup: boolean; firstNormalEpoch: number; firstNormalSlot: number },
): { epoch: number; firstSlot: number } {
  if (schedule.warmup && slot < schedule.firstNormalSlot) {
    let epoch = 0;
    let start = 0;
    let len = 32;
    while (slot >= start + len) {
      start += len;
      len *= 2;
      epoch++;
    }
    return { epoch, firstSlot: start };
  }
  const base = schedule.warmup ? schedule.firstNormalSlot : 0;
  const baseEpoch = schedule.warmup ? schedule.firstNormalEpoch : 0;
  const n = Math.floor((slot - base) / schedule.slotsPerEpoch);
  return { epoch: baseEpoch + n, firstSlot: base + n * schedule.slotsPerEpoch };
}

/**
 * {@link Ledger} on an in-process LiteSVM, journaled in SQLite. Open it with
 * {@link EmbeddedLedger.open}; one process at a time may open a data directory.
 */
export class EmbeddedLedger implements Ledger, LedgerInspector {
  private readonly dir: string;
  private readonly slotMs: number;
  private readonly logger: LedgerLogger;
  private readonly snapshots: boolean;
  private readonly snapshotEvery: number;
  private journal!: Journal;
  private genesis!: GenesisFile;
  private secret!: Buffer;
  private clock!: SlotClock;
  private blockhashes!: BlockhashQueue;
  private driver!: SvmDriver;
  private schedule!: { slotsPerEpoch: number; warmup: boolean; firstNormalEpoch: number; firstNormalSlot: number };
  private faucetKey!: KeyObject;
  private faucetPubkey!: Uint8Array;
  private slot = 0;
  private lastSeq = 0;
  private snapshotSeq = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private pending: { entry: JournalAppend; signature: string; resolve: () => void; reject: (e: Error) => void }[] = [];
  private readonly pendingSignatures = new Set<string>();
  private flushScheduled = false;
  private readonly waiters = new Set<{ timer: NodeJS.Timeout; reject: (e: Error) => void }>();
  /** Journal rows whose replay outcome differed from the recorded one (should stay 0). */
  replayDivergences = 0;

  private constructor(options: EmbeddedLedgerOptions) {
    this.dir = join(options.dataDir, 'ledger');
    this.slotMs = options.slotMs ?? 400;
    if (!Number.isFinite(this.slotMs) || this.slotMs < 1) throw new RangeError('slotMs must be ≥ 1');
    this.logger = options.logger ?? NOOP_LOGGER;
    this.snapshots = options.snapshots ?? true;
    this.snapshotEvery = options.snapshotEvery ?? 10_000;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.journal = new Journal(join(this.dir, 'journal.sqlite'), options.synchronous ?? 'full');
  }

  /**
   * Opens the ledger in `<dataDir>/ledger/`, creating genesis on first use and otherwise
   * rebuilding the runtime state from the journal.
   * @throws Error when the directory is in use by another process or its files are inconsistent.
   */
  static async open(options: EmbeddedLedgerOptions): Promise<EmbeddedLedger> {
    const ledger = new EmbeddedLedger(options);
    try {
      ledger.init();
    } catch (e) {
      ledger.journal.close();
      throw e;
    }
    return ledger;
  }

  // ---------------------------------------------------------------- lifecycle

  private init(): void {
    this.genesis = this.loadOrCreateGenesis();
    this.secret = Buffer.from(this.genesis.secret, 'hex');
    const faucetSeed = createHash('sha256').update('faucet').update(this.secret).digest();
    this.faucetKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, faucetSeed]), format: 'der', type: 'pkcs8' });
    this.faucetPubkey = new Uint8Array(createPublicKey(this.faucetKey).export({ format: 'der', type: 'spki' }).subarray(12));

    // Clock: slot 0 at genesis; each open continues the timeline (downtime counts as empty slots).
    const now = Date.now();
    const anchors = this.journal.anchors();
    if (anchors.length === 0) {
      const genesisAnchor: ClockAnchor = { slot: 0, timeMs: this.genesis.createdAtMs, slotMs: this.slotMs };
      this.journal.addAnchor(genesisAnchor);
      anchors.push(genesisAnchor);
    }
    const previous = new SlotClock(anchors);
    const lastAnchorSlot = anchors[anchors.length - 1]!.slot;
    const start = Math.max(previous.slotAt(now), this.journal.maxSlot(), lastAnchorSlot) + 1;
    const anchor: ClockAnchor = { slot: start, timeMs: now, slotMs: this.slotMs };
    this.journal.addAnchor(anchor);
    this.clock = new SlotClock([...anchors, anchor]);
    this.blockhashes = new BlockhashQueue(this.secret);

    this.rebuildState();
    this.slot = -1;
    this.advanceTo(this.clock.slotAt(Date.now()));
    this.timer = setInterval(() => this.tick(), this.slotMs);
    this.timer.unref();
  }

  private loadOrCreateGenesis(): GenesisFile {
    const path = join(this.dir, 'genesis.json');
    if (existsSync(path)) {
      const g = readJson<GenesisFile>(path);
      if (g.version !== 1 || typeof g.genesisHash !== 'string' || !/^[0-9a-f]{64}$/.test(g.secret)) {
        throw new Error(`Unreadable ledger genesis file ${path}`);
      }
      return g;
    }
    if (this.journal.lastSeq() > 0) throw new Error(`Ledger journal has transactions but ${path} is missing`);
    const g: GenesisFile = {
      version: 1,
      genesisHash: encodeBase58(randomBytes(32)),
      createdAtMs: Date.now(),
      secret: randomBytes(32).toString('hex'),
    };
    const tmp = `${path}.tmp`;
    writeFileSync(tmp, JSON.stringify(g, null, 2), { mode: 0o600 });
    renameSync(tmp, path);
    return g;
  }

  /** Builds the SVM from the snapshot (when valid) or genesis, then replays the journal tail. */
  private rebuildState(): void {
    let svm: LiteSVM | null = null;
    let fromSeq = 0;
    const snap = this.readSnapshot();
    if (snap !== null) {
      try {
        svm = LiteSVM.loadFromFile(join(this.dir, 'snapshot.bin'));
        fromSeq = snap.seq;
      } catch (e) {
        this.logger.warn(`Ledger snapshot unusable, replaying the whole journal: ${(e as Error).message}`);
        svm = null;
      }
    }
    if (svm === null) {
      svm = new LiteSVM();
      fromSeq = 0;
    }
    // The SVM's blockhash check stays off: the adapter checks blockhashes (see file comment),
    // and replayed transactions carry blockhashes this fresh SVM never produced.
    svm.withTransactionHistory(0n).withBlockhashCheck(false).withSigverify(false);
    this.driver = new SvmDriver(svm);
    const es = svm.getEpochSchedule();
    this.schedule = {
      slotsPerEpoch: Number(es.slotsPerEpoch),
      warmup: es.warmup,
      firstNormalEpoch: Number(es.firstNormalEpoch),
      firstNormalSlot: Number(es.firstNormalSlot),
    };
    if (fromSeq === 0) {
      this.driver.setAccount(this.faucetPubkey, {
        lamports: FAUCET_LAMPORTS,
        data: new Uint8Array(0),
        owner: SYSTEM_PROGRAM_BYTES,
        executable: false,
        rentEpoch: RENT_EXEMPT_EPOCH,
      });
    }
    this.setSvmClock(0, this.genesis.createdAtMs);
    let clockSlot = 0;
    let replayed = 0;
    for (const row of this.journal.replayRows(fromSeq)) {
      if (row.slot !== clockSlot) {
        this.setSvmClock(row.slot, row.block_time * 1000);
        clockSlot = row.slot;
      }
      let ok: boolean;
      try {
        const parsed = parseWireTransaction(row.wire);
        ok = !(this.driver.send(row.wire, parsed.message.version) instanceof FailedTransactionMetadata);
      } catch {
        ok = false;
      }
      if (ok !== (row.err === null)) {
        this.replayDivergences++;
        this.logger.error(
          `Ledger replay diverged at journal seq ${row.seq} (${encodeBase58(row.signature)}): recorded ${row.err ?? 'success'}, replay ${ok ? 'success' : 'failure'}`,
        );
      }
      replayed++;
    }
    svm.withSigverify(true);
    this.lastSeq = this.journal.lastSeq();
    this.snapshotSeq = snap !== null && svm !== null && fromSeq > 0 ? fromSeq : 0;
    if (replayed > 0) this.logger.log?.(`Ledger replayed ${replayed} journal transactions (from seq ${fromSeq})`);
  }

  private readSnapshot(): SnapshotMeta | null {
    if (!this.snapshots) return null;
    const metaPath = join(this.dir, 'snapshot.json');
    const binPath = join(this.dir, 'snapshot.bin');
    if (!existsSync(metaPath) || !existsSync(binPath)) return null;
    try {
      const meta = readJson<SnapshotMeta>(metaPath);
      if (meta.litesvm !== LITESVM_VERSION) return null;
      const sig = this.journal.signatureAt(meta.seq);
      if (sig === undefined || sig.toString('hex') !== meta.signature) return null;
      if (sha256FileSync(binPath) !== meta.sha256) return null;
      return meta;
    } catch {
      return null;
    }
  }

  private writeSnapshot(): void {
    if (!this.snapshots || this.lastSeq === 0 || this.lastSeq === this.snapshotSeq) return;
    const binPath = join(this.dir, 'snapshot.bin');
    const metaPath = join(this.dir, 'snapshot.json');
    const tmp = `${binPath}.tmp`;
    try {
      const sig = this.journal.signatureAt(this.lastSeq);
      if (sig === undefined) return;
      rmSync(metaPath, { force: true });
      this.driver.svm.saveToFile(tmp);
      const meta: SnapshotMeta = { seq: this.lastSeq, signature: sig.toString('hex'), sha256: sha256FileSync(tmp), litesvm: LITESVM_VERSION };
      renameSync(tmp, binPath);
      writeFileSync(metaPath, JSON.stringify(meta), { mode: 0o600 });
      this.snapshotSeq = this.lastSeq;
    } catch (e) {
      this.logger.warn(`Ledger snapshot failed: ${(e as Error).message}`);
    }
  }

  /** Stops the clock, writes a snapshot and closes the journal. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(new Error('Ledger closed'));
    }
    this.waiters.clear();
    this.flush();
    this.writeSnapshot();
    this.journal.close();
  }

  // ---------------------------------------------------------------- clock

  private tick(): void {
    if (this.closed) return;
    try {
      this.sync();
      if (this.snapshots && this.pending.length === 0 && this.lastSeq - this.snapshotSeq >= this.snapshotEvery) this.writeSnapshot();
    } catch (e) {
      this.logger.error(`Ledger clock tick failed: ${(e as Error).message}`);
    }
  }

  private setSvmClock(slot: number, startMs: number): void {
    const { epoch, firstSlot } = epochOf(slot, this.schedule);
    const epochStart = Math.floor(this.clock.slotStartMs(firstSlot) / 1000);
    this.driver.svm.setClock(
      new Clock(BigInt(slot), BigInt(Math.max(0, epochStart)), BigInt(epoch), BigInt(epoch + 1), BigInt(Math.floor(startMs / 1000))),
    );
  }

  private advanceTo(slot: number): void {
    if (slot <= this.slot) return;
    this.slot = slot;
    this.setSvmClock(slot, this.clock.slotStartMs(slot));
    this.blockhashes.advanceTo(slot);
  }

  /** Brings the slot up to date with the wall clock; returns the current slot. */
  private sync(): number {
    if (this.closed) throw new Error('Ledger closed');
    const slot = this.clock.slotAt(Date.now());
    if (slot > this.slot) this.advanceTo(slot);
    return this.slot;
  }

  private statusOf(txSlot: number): { confirmationStatus: Commitment; confirmations: number | null } {
    const depth = this.slot - txSlot;
    return depth >= FINALITY_DEPTH
      ? { confirmationStatus: 'finalized', confirmations: null }
      : { confirmationStatus: 'confirmed', confirmations: Math.max(0, depth) };
  }

  private waitForSlot(target: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const entry = { timer: undefined as unknown as NodeJS.Timeout, reject };
      const check = (): void => {
        this.waiters.delete(entry);
        if (this.closed) return reject(new Error('Ledger closed'));
        const now = this.sync();
        if (now >= target) return resolve();
        entry.timer = setTimeout(check, Math.max(1, this.clock.slotStartMs(target) - Date.now()));
        this.waiters.add(entry);
      };
      check();
    });
  }

  // ---------------------------------------------------------------- Ledger: chain info

  /** Base58 genesis hash, created at first open and stable across restarts. */
  async getGenesisHash(): Promise<string> {
    return this.genesis.genesisHash;
  }

  /** Blockhash of the current slot; usable until block height `lastValidBlockHeight` (= current + 150). */
  async getLatestBlockhash(): Promise<LatestBlockhash> {
    const slot = this.sync();
    return { blockhash: this.blockhashes.latest(), lastValidBlockHeight: BigInt(slot + MAX_PROCESSING_AGE) };
  }

  /** Current slot. Every slot produces a block; all commitments see the same slot. */
  async getSlot(_commitment?: Commitment): Promise<bigint> {
    return BigInt(this.sync());
  }

  /** Current block height (equal to the slot: no slot is skipped). */
  async getBlockHeight(_commitment?: Commitment): Promise<bigint> {
    return BigInt(this.sync());
  }

  async ping(): Promise<boolean> {
    return !this.closed;
  }

  // ---------------------------------------------------------------- Ledger: transactions

  /**
   * Executes the transaction at the current slot and journals it before resolving.
   * Resolves at once for `processed`/`confirmed` (the default), after 32 slots for `finalized`.
   * @returns the base58 signature.
   * @throws LedgerTransactionFailedError (a TransactionFailedError) with the runtime's logs and
   *   Solana JSON error; `landed` tells whether it was recorded (fee charged) or refused.
   */
  sendTransaction(wire: Uint8Array, options?: SendOptions): Promise<string> {
    let landed: Submitted;
    try {
      landed = this.submit(wire);
    } catch (e) {
      return Promise.reject(e);
    }
    const { signature, slot, failure } = landed;
    if (failure !== null) {
      return landed.durable.then(() => {
        throw failure;
      });
    }
    if (options?.commitment === 'finalized') {
      return landed.durable.then(() => this.waitForSlot(slot + FINALITY_DEPTH)).then(() => signature);
    }
    return landed.durable.then(() => signature);
  }

  /**
   * Group commit: transactions executed during one event-loop turn are journaled together in one
   * SQLite transaction (one fsync) right after it, then their promises settle. A lone transaction
   * costs the same as a direct write; concurrent ones share the commit.
   */
  private enqueue(entry: JournalAppend, signature: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ entry, signature, resolve, reject });
      this.pendingSignatures.add(signature);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    try {
      this.lastSeq = this.journal.append(batch.map((b) => b.entry));
    } catch (e) {
      // The SVM applied transactions the journal does not have: rebuild it from the journal.
      this.logger.error(`Ledger journal write failed, rebuilding state from the journal: ${(e as Error).message}`);
      try {
        this.rebuildState();
        this.setSvmClock(this.slot, this.clock.slotStartMs(this.slot));
      } catch (e2) {
        this.logger.error(`Ledger state rebuild failed: ${(e2 as Error).message}`);
      }
      for (const b of batch) {
        this.pendingSignatures.delete(b.signature);
        b.reject(e as Error);
      }
      return;
    }
    for (const b of batch) {
      this.pendingSignatures.delete(b.signature);
      b.resolve();
    }
  }

  /** Synchronous core of sendTransaction: checks, executes, queues the journal write. */
  private submit(input: Uint8Array): Submitted {
    const slot = this.sync();
    // Own copy: the journal write happens after this call returns.
    const wire = new Uint8Array(input);
    let tx: WireTransaction;
    try {
      if (wire.length > PACKET_DATA_SIZE) throw new WireFormatError(`transaction too large: ${wire.length} bytes (max ${PACKET_DATA_SIZE})`);
      tx = parseWireTransaction(wire);
    } catch (e) {
      throw new LedgerTransactionFailedError(`Invalid transaction: ${(e as Error).message}`, [], 'SanitizeFailure', null, false);
    }
    const msg = tx.message;
    const sigBytes = tx.signatures[0]!;
    const signature = encodeBase58(sigBytes);
    const reject = (err: unknown, logs: string[] = []): never => {
      throw new LedgerTransactionFailedError(describeTransactionError(err), logs, err, signature, false);
    };
    if (this.pendingSignatures.has(signature) || this.journal.hasSignature(sigBytes)) reject('AlreadyProcessed');
    if (this.blockhashes.slotOf(msg.recentBlockhash) === undefined) reject('BlockhashNotFound');

    let outcome: SvmOutcome;
    try {
      outcome = this.driver.send(wire, msg.version);
    } catch (e) {
      // e.g. kit's assertIsFullySignedTransaction on the fallback path
      return reject('SignatureFailure', [(e as Error).message]);
    }

    let errJson: string | null = null;
    let err: unknown = null;
    let fee: bigint;
    let logs: string[];
    let units: bigint;
    if (outcome instanceof FailedTransactionMetadata) {
      const meta = outcome.meta();
      err = transactionErrorToJson(outcome.err());
      logs = meta.logs();
      // Refused before execution (LiteSVM leaves the signature zeroed): nothing changed, nothing recorded.
      if (isZero(meta.signature())) return reject(err, logs);
      const charged = chargedFee(meta) ?? computeMessageFee(msg);
      const failedIx = this.failedInstructionIndex(err);
      if (failedIx !== null && isPrecompileProgram(msg.accountKeys[msg.instructions[failedIx]?.programIdIndex ?? -1])) {
        // Precompile verification failure: a validator rejects it before execution.
        this.refund(msg.accountKeys[0]!, charged);
        throw new LedgerTransactionFailedError(
          `Transaction precompile verification failure: ${describeTransactionError(err)}`,
          logs,
          err,
          signature,
          false,
        );
      }
      fee = charged;
      errJson = JSON.stringify(err);
      units = meta.computeUnitsConsumed();
    } else {
      fee = chargedFee(outcome) ?? computeMessageFee(msg);
      logs = outcome.logs();
      units = outcome.computeUnitsConsumed();
    }

    const { addresses, loadedJson } = this.accountKeysOf(msg);
    const durable = this.enqueue(
      {
        signature: sigBytes,
        slot,
        blockTime: this.clock.blockTimeOf(slot),
        wire,
        errJson,
        fee,
        logs,
        memo: extractMemo(msg),
        unitsConsumed: units,
        loadedJson,
        addresses,
      },
      signature,
    );
    const failure =
      errJson === null ? null : new LedgerTransactionFailedError(`Transaction failed: ${describeTransactionError(err)}`, logs, err, signature, true);
    return { signature, slot, durable, failure };
  }

  private failedInstructionIndex(err: unknown): number | null {
    if (err && typeof err === 'object' && Array.isArray((err as { InstructionError?: unknown }).InstructionError)) {
      const i = (err as { InstructionError: [number, unknown] }).InstructionError[0];
      return typeof i === 'number' ? i : null;
    }
    return null;
  }

  private refund(payer: Uint8Array, fee: bigint): void {
    const account = this.driver.account(payer);
    this.driver.setAccount(
      payer,
      account !== null
        ? { ...account, lamports: account.lamports + fee }
        : { lamports: fee, data: new Uint8Array(0), owner: SYSTEM_PROGRAM_BYTES, executable: false, rentEpoch: RENT_EXEMPT_EPOCH },
    );
  }

  /** Static keys plus addresses loaded from lookup tables (read from the tables' current state). */
  private accountKeysOf(msg: WireMessage): { addresses: Uint8Array[]; loadedJson: string | null } {
    if (msg.addressTableLookups.length === 0) return { addresses: msg.accountKeys, loadedJson: null };
    const writable: Uint8Array[] = [];
    const readonly: Uint8Array[] = [];
    for (const lookup of msg.addressTableLookups) {
      const table = this.driver.account(lookup.accountKey);
      if (table === null) continue;
      const pick = (i: number): Uint8Array | null => {
        const off = ALT_HEADER_BYTES + i * 32;
        return off + 32 <= table.data.length ? table.data.subarray(off, off + 32) : null;
      };
      for (const i of lookup.writableIndexes) {
        const k = pick(i);
        if (k) writable.push(k);
      }
      for (const i of lookup.readonlyIndexes) {
        const k = pick(i);
        if (k) readonly.push(k);
      }
    }
    return {
      addresses: [...msg.accountKeys, ...writable, ...readonly],
      loadedJson: JSON.stringify({ writable: writable.map(encodeBase58), readonly: readonly.map(encodeBase58) }),
    };
  }

  /** The landed transaction with its wire bytes, or null. Includes compute units, loaded addresses and memo. */
  async getTransaction(signature: string): Promise<EmbeddedLedgerTransaction | null> {
    this.sync();
    const sig = tryDecodeBase58Fixed(signature, 64);
    if (sig === null) throw new LedgerInputError(`Invalid signature: ${signature}`);
    const row = this.journal.transaction(sig);
    if (row === undefined) return null;
    return {
      signature,
      slot: BigInt(row.slot),
      blockTime: row.block_time,
      wire: new Uint8Array(row.wire),
      err: row.err === null ? null : JSON.parse(row.err),
      fee: BigInt(row.fee),
      logMessages: JSON.parse(row.logs) as string[],
      confirmationStatus: this.statusOf(row.slot).confirmationStatus,
      computeUnitsConsumed: BigInt(row.units),
      loadedAddresses: row.loaded === null ? null : (JSON.parse(row.loaded) as { writable: string[]; readonly: string[] }),
      memo: row.memo,
    };
  }

  /** Statuses in request order; null for unknown (or malformed) signatures. */
  async getSignatureStatuses(signatures: readonly string[]): Promise<(SignatureStatus | null)[]> {
    this.sync();
    return signatures.map((s) => {
      const sig = tryDecodeBase58Fixed(s, 64);
      const row = sig === null ? undefined : this.journal.status(sig);
      if (row === undefined) return null;
      return { slot: BigInt(row.slot), err: row.err === null ? null : JSON.parse(row.err), ...this.statusOf(row.slot) };
    });
  }

  /**
   * Transactions that reference the address (any account key), newest first.
   * `limit` 1..1000 (default 1000); `before` excludes that signature and newer ones.
   * Entries also carry `memo` (Solana's `[len] text` format) for the JSON-RPC endpoint.
   */
  async getSignaturesForAddress(
    address: string,
    options?: { limit?: number; before?: string },
  ): Promise<(AddressSignature & { memo: string | null })[]> {
    this.sync();
    const key = tryDecodeBase58Fixed(address, 32);
    if (key === null) throw new LedgerInputError(`Invalid address: ${address}`);
    const limit = Math.min(Math.max(Math.trunc(options?.limit ?? 1000), 1), 1000);
    let beforeSeq = Number.MAX_SAFE_INTEGER;
    if (options?.before !== undefined) {
      const b = tryDecodeBase58Fixed(options.before, 64);
      if (b === null) throw new LedgerInputError(`Invalid signature: ${options.before}`);
      const seq = this.journal.seqOf(b);
      if (seq === undefined) return [];
      beforeSeq = seq;
    }
    return this.journal.history(key, beforeSeq, limit).map((r) => ({
      signature: encodeBase58(r.signature),
      slot: BigInt(r.slot),
      blockTime: r.block_time,
      err: r.err === null ? null : JSON.parse(r.err),
      confirmationStatus: this.statusOf(r.slot).confirmationStatus,
      memo: r.memo,
    }));
  }

  // ---------------------------------------------------------------- Ledger: accounts & fees

  /** Balance in lamports (0 for unknown accounts). */
  async getBalance(address: string): Promise<bigint> {
    this.sync();
    const key = tryDecodeBase58Fixed(address, 32);
    if (key === null) throw new LedgerInputError(`Invalid address: ${address}`);
    return this.driver.balance(key);
  }

  /**
   * Transfers `lamports` from the genesis faucet in a real, journaled System transfer
   * (so it has a signature, history and survives restarts).
   * @throws LedgerTransactionFailedError e.g. when the amount leaves a new account below rent exemption.
   */
  async requestAirdrop(address: string, lamports: bigint): Promise<string> {
    const to = tryDecodeBase58Fixed(address, 32);
    if (to === null) throw new LedgerInputError(`Invalid address: ${address}`);
    if (typeof lamports !== 'bigint' || lamports <= 0n || lamports > 0xffff_ffff_ffff_ffffn) throw new LedgerInputError('lamports must be a positive u64');
    if (Buffer.compare(to, this.faucetPubkey) === 0) throw new LedgerInputError('Cannot airdrop to the faucet');
    this.sync();
    for (let attempt = 0; ; attempt++) {
      const wire = this.buildAirdrop(to, lamports, attempt === 0 ? null : randomBytes(8).toString('hex'));
      let landed: Submitted;
      try {
        landed = this.submit(wire);
      } catch (e) {
        // Same recipient, amount and blockhash as an earlier airdrop: add a nonce memo.
        if (e instanceof LedgerTransactionFailedError && e.err === 'AlreadyProcessed' && attempt < 3) continue;
        throw e;
      }
      await landed.durable;
      if (landed.failure !== null) throw landed.failure;
      return landed.signature;
    }
  }

  private buildAirdrop(to: Uint8Array, lamports: bigint, nonce: string | null): Uint8Array {
    const data = Buffer.alloc(12);
    data.writeUInt32LE(2, 0); // SystemInstruction::Transfer
    data.writeBigUInt64LE(lamports, 4);
    const keys = [this.faucetPubkey, to, SYSTEM_PROGRAM_BYTES];
    const ixs: number[][] = [[2, ...compactU16(2), 0, 1, ...compactU16(data.length), ...data]];
    if (nonce !== null) {
      keys.push(decodeBase58(MEMO_PROGRAM_ADDRESS));
      const memo = Buffer.from(`airdrop:${nonce}`);
      ixs.push([3, ...compactU16(0), ...compactU16(memo.length), ...memo]);
    }
    const blockhash = decodeBase58(this.blockhashes.latest());
    const message = Buffer.from([
      1, // required signatures
      0, // readonly signed
      keys.length - 2, // readonly unsigned: system program (and memo)
      ...compactU16(keys.length),
      ...keys.flatMap((k) => [...k]),
      ...blockhash,
      ...compactU16(ixs.length),
      ...ixs.flat(),
    ]);
    const signature = edSign(null, message, this.faucetKey);
    return new Uint8Array(Buffer.concat([Buffer.from(compactU16(1)), signature, message]));
  }

  /**
   * Fee in lamports for a compiled message (base64): 5,000 × (signatures + precompile
   * signatures) + prioritization fee. Null when its blockhash is unknown or expired, like Solana.
   * @throws LedgerInputError when the bytes are not a message.
   */
  async getFeeForMessage(messageBase64: string): Promise<bigint | null> {
    this.sync();
    let message: WireMessage;
    try {
      message = parseWireMessage(Buffer.from(messageBase64, 'base64'));
    } catch (e) {
      throw new LedgerInputError(`Invalid message: ${(e as Error).message}`);
    }
    if (this.blockhashes.slotOf(message.recentBlockhash) === undefined) return null;
    return computeMessageFee(message);
  }

  /** Lamports an account with `bytes` of data needs to be rent exempt. */
  async getMinimumBalanceForRentExemption(bytes: number): Promise<bigint> {
    if (!Number.isInteger(bytes) || bytes < 0) throw new LedgerInputError('bytes must be a non-negative integer');
    return this.driver.svm.minimumBalanceForRentExemption(BigInt(bytes));
  }

  // ---------------------------------------------------------------- LedgerInspector

  async getAccountInfo(address: string): Promise<LedgerAccountInfo | null> {
    this.sync();
    const key = tryDecodeBase58Fixed(address, 32);
    if (key === null) throw new LedgerInputError(`Invalid address: ${address}`);
    const a = this.driver.account(key);
    if (a === null) return null;
    return { lamports: a.lamports, owner: encodeBase58(a.owner), data: a.data, executable: a.executable, rentEpoch: a.rentEpoch };
  }

  /** Unix seconds of the slot's block; null for future slots. */
  async getBlockTime(slot: bigint): Promise<number | null> {
    const current = this.sync();
    if (slot < 0n || slot > BigInt(current)) return null;
    return this.clock.blockTimeOf(Number(slot));
  }

  async isBlockhashValid(blockhash: string): Promise<boolean> {
    this.sync();
    const bytes = tryDecodeBase58Fixed(blockhash, 32);
    return bytes !== null && this.blockhashes.slotOf(bytes) !== undefined;
  }

  /**
   * Executes the transaction against the current state without committing it.
   * @throws LedgerTransactionFailedError when the bytes are not a transaction.
   */
  async simulateTransaction(wire: Uint8Array, options?: SimulateOptions): Promise<SimulationResult> {
    this.sync();
    let tx: WireTransaction;
    try {
      tx = parseWireTransaction(wire);
    } catch (e) {
      throw new LedgerTransactionFailedError(`Invalid transaction: ${(e as Error).message}`, [], 'SanitizeFailure', null, false);
    }
    const replace = options?.replaceRecentBlockhash === true;
    const fail = (err: unknown): SimulationResult => ({ err, logs: [], unitsConsumed: 0n, fee: null, replacementBlockhash: null });
    if (!replace && this.blockhashes.slotOf(tx.message.recentBlockhash) === undefined) return fail('BlockhashNotFound');
    const sigVerify = options?.sigVerify === true;
    const svm = this.driver.svm;
    if (!sigVerify) svm.withSigverify(false);
    let result: ReturnType<SvmDriver['simulate']>;
    try {
      result = this.driver.simulate(wire, tx.message.version);
    } catch (e) {
      return { ...fail('SignatureFailure'), logs: [(e as Error).message] };
    } finally {
      if (!sigVerify) svm.withSigverify(true);
    }
    const replacementBlockhash = replace
      ? { blockhash: this.blockhashes.latest(), lastValidBlockHeight: BigInt(this.slot + MAX_PROCESSING_AGE) }
      : null;
    if (result instanceof FailedTransactionMetadata) {
      const meta = result.meta();
      return {
        err: transactionErrorToJson(result.err()),
        logs: meta.logs(),
        unitsConsumed: meta.computeUnitsConsumed(),
        fee: chargedFee(meta) || null,
        replacementBlockhash,
      };
    }
    const meta = result.meta();
    return {
      err: null,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      fee: chargedFee(meta) ?? computeMessageFee(tx.message),
      replacementBlockhash,
    };
  }

  /** Base58 address of the genesis faucet that funds airdrops. */
  get faucetAddress(): string {
    return encodeBase58(this.faucetPubkey);
  }
}
