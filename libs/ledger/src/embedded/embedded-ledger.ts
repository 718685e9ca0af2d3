/**
 * The embedded ledger: a Solana runtime (LiteSVM) in process, made durable by a SQLite
 * journal and given a cluster-like clock.
 *
 * Files under `<dataDir>/ledger/`:
 * - `genesis.json` (mode 0600): genesis hash, creation time and the secret from which the
 *   per-slot blockhashes and the faucet key are derived (genesis.ts);
 * - `journal.sqlite` (WAL): every landed transaction, the address → signature index and the
 *   clock anchors — the source of truth (journal.ts);
 * - `snapshot.bin` + `snapshot.json`: optional LiteSVM state snapshot at a journal position,
 *   an optimisation of restart time only (svm-state.ts).
 *
 * Parts: the clock, slots, blockhashes and commitment (chain-clock.ts); the SVM rebuilt from the
 * journal (svm-state.ts); execution and group commit (transaction-executor.ts); faucet transfers
 * (airdrop.ts); what is read from the journal rows (journal-statistics.ts). This class ties them
 * together behind the {@link Ledger} port and answers the reads.
 *
 * Commitment: the `processed` and `confirmed` view is the latest state; the `finalized` view is
 * the state FINALITY_DEPTH (32) slots back (chain-clock.ts): slot, block height, latest blockhash,
 * history, blocks and balances (the pre-execution balance of the first journaled transaction after
 * the finalized slot that touched the account, else the current one).
 *
 * Subscriptions ({@link subscribe}): every new slot, in order, and every landed transaction once
 * its journal row is committed; with no subscriber nothing extra runs per transaction.
 *
 * Blockhashes: LiteSVM accepts only its single latest blockhash, so its own check is off and the
 * ledger checks recent blockhashes against a queue of the last 151 slots, like a cluster
 * (`lastValidBlockHeight = blockHeight + 150`, otherwise `BlockhashNotFound`). Duplicates are
 * refused by a primary-key lookup in the journal (`AlreadyProcessed`). Errors carry a
 * {@link LedgerErrorCode} (libs/ledger/README.md, "Errors").
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  TransactionFailedError,
  type AddressSignature,
  type Commitment,
  type LatestBlockhash,
  type Ledger,
  type LedgerHealth,
  type LedgerTransaction,
  type SendOptions,
  type Signature,
  type SignaturesForAddressOptions,
  type SignatureStatus,
} from '../ledger.port';
import type {
  LandedTransactionEvent,
  LedgerAccountInfo,
  LedgerBlock,
  LedgerEpochInfo,
  LedgerEpochSchedule,
  LedgerInspector,
  LedgerListener,
  LedgerPerformanceSample,
  LedgerPrioritizationFee,
  SimulateOptions,
  SimulationResult,
} from '../ledger-inspector';
import { LedgerErrorCode } from '../ledger-error';
import { FINALITY_DEPTH, SYSTEM_PROGRAM_ADDRESS, type LedgerLogger } from '../constants';
import { LedgerInputError } from '../errors';
import { encodeBase58, toSignature, tryDecodeBase58Fixed } from '../internal/base58';
import { computeMessageFee, parseWireMessage, parseWireTransaction, type WireMessage } from '../internal/wire';
import { buildAirdropWire } from './airdrop';
import { ChainClock } from './chain-clock';
import { faucetOf, identityOf, loadOrCreateGenesis, type Faucet, type GenesisFile } from './genesis';
import { accountKeysOfRow, landedEvent, recentPerformanceSamples, recentPrioritizationFees } from './journal-statistics';
import { decodeBalances, Journal, type JournalAppend, type JournalSynchronous, type JournalTxRow } from './journal';
import { RENT_EXEMPT_EPOCH, SvmState } from './svm-state';
import { TransactionExecutor, type Submitted } from './transaction-executor';

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

/** Extra fields the embedded ledger returns with {@link LedgerTransaction} (used by the JSON-RPC endpoint). */
export interface EmbeddedLedgerTransaction extends LedgerTransaction {
  computeUnitsConsumed: bigint;
  loadedAddresses: { writable: string[]; readonly: string[] } | null;
  memo: string | null;
  /** Lamports of every account key (static, then loaded) before and after; absent on rows journaled without them. */
  preBalances?: bigint[];
  postBalances?: bigint[];
}

/** Most slot notifications sent for one clock advance (after a stall, older slots are not replayed). */
const MAX_SLOT_BURST = 64;

const NOOP_LOGGER: LedgerLogger = { warn: () => undefined, error: () => undefined };
const MAX_U64 = 0xffff_ffff_ffff_ffffn;

function addressBytes(address: string): Uint8Array {
  const key = tryDecodeBase58Fixed(address, 32);
  if (key === null) throw new LedgerInputError(`Invalid address: ${address}`);
  return key;
}

function signatureBytes(signature: string): Uint8Array {
  const sig = tryDecodeBase58Fixed(signature, 64);
  if (sig === null) throw new LedgerInputError(`Invalid signature: ${signature}`);
  return sig;
}

const errOf = (json: string | null): unknown => (json === null ? null : JSON.parse(json));

/**
 * {@link Ledger} on an in-process LiteSVM, journaled in SQLite. Open it with
 * {@link EmbeddedLedger.open}; one process at a time may open a data directory.
 */
export class EmbeddedLedger implements Ledger, LedgerInspector {
  private readonly dir: string;
  private readonly slotMs: number;
  private readonly logger: LedgerLogger;
  private readonly snapshotEvery: number;
  private readonly snapshots: boolean;
  private readonly journal: Journal;
  private genesis!: GenesisFile;
  private faucet!: Faucet;
  private identity!: string;
  private chain!: ChainClock;
  private state!: SvmState;
  private executor!: TransactionExecutor;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly listeners = new Set<LedgerListener>();

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

  private init(): void {
    this.genesis = loadOrCreateGenesis(this.dir, this.journal.lastSeq() > 0);
    const secret = Buffer.from(this.genesis.secret, 'hex');
    this.faucet = faucetOf(secret);
    this.identity = encodeBase58(identityOf(secret).pubkey);
    this.chain = ChainClock.open(this.journal, { createdAtMs: this.genesis.createdAtMs, secret }, this.slotMs);
    this.state = new SvmState({
      dir: this.dir,
      journal: this.journal,
      logger: this.logger,
      snapshots: this.snapshots,
      faucetPubkey: this.faucet.pubkey,
      genesisCreatedAtMs: this.genesis.createdAtMs,
      slotStartMs: (slot) => this.chain.slotStartMs(slot),
      slotHashOf: (slot) => this.chain.blockhashOf(slot),
    });
    this.state.rebuild();
    this.executor = new TransactionExecutor(this.journal, this.chain, this.state, this.logger, (rows) => this.announceTransactions(rows));
    this.chain.start((slot, startMs, previous) => {
      this.state.setClock(slot, startMs);
      if (previous >= 0 && this.listeners.size > 0) this.announceSlots(previous, slot);
    });
    this.timer = setInterval(() => this.tick(), this.slotMs);
    this.timer.unref();
  }

  /** Journal rows whose replay outcome differed from the recorded one (should stay 0). */
  get replayDivergences(): number {
    return this.state.replayDivergences;
  }

  /** Base58 address of the genesis faucet that funds airdrops. */
  get faucetAddress(): string {
    return encodeBase58(this.faucet.pubkey);
  }

  /** Stops the clock, writes a snapshot and closes the journal. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.chain.close();
    this.executor.flush();
    this.state.writeSnapshot();
    this.journal.close();
  }

  private tick(): void {
    if (this.closed) return;
    try {
      this.chain.sync();
      if (this.snapshots && this.executor.idle && this.state.rowsSinceSnapshot >= this.snapshotEvery) this.state.writeSnapshot();
    } catch (e) {
      this.logger.error(`Ledger clock tick failed: ${(e as Error).message}`);
    }
  }

  // ---------------------------------------------------------------- Ledger: chain info

  /** Base58 genesis hash, created at first open and stable across restarts. */
  async getGenesisHash(): Promise<string> {
    return this.genesis.genesisHash;
  }

  /**
   * Blockhash of the newest slot at `commitment` (default: the current slot); usable until block
   * height `lastValidBlockHeight` (= that slot + 150).
   */
  async getLatestBlockhash(commitment?: Commitment): Promise<LatestBlockhash> {
    this.chain.sync();
    return this.chain.latestBlockhash(commitment);
  }

  /** Slot at `commitment` (default `processed`): the current one, or 32 behind it for `finalized`. */
  async getSlot(commitment?: Commitment): Promise<bigint> {
    this.chain.sync();
    return BigInt(this.chain.slotAt(commitment));
  }

  /** Block height at `commitment` (equal to the slot: every slot is a block). */
  async getBlockHeight(commitment?: Commitment): Promise<bigint> {
    return this.getSlot(commitment);
  }

  async health(): Promise<LedgerHealth> {
    return this.closed ? { up: false, code: LedgerErrorCode.Unavailable, message: 'the embedded ledger is closed' } : { up: true };
  }

  // ---------------------------------------------------------------- Ledger: transactions

  /**
   * Executes the transaction at the current slot and journals it before resolving.
   * Resolves at once for `processed`/`confirmed` (the default), after 32 slots for `finalized`.
   * @returns the base58 signature.
   * @throws TransactionFailedError with its {@link LedgerErrorCode}, the runtime's logs and Solana
   *   JSON error; `landed` tells whether it was recorded (fee charged) or refused.
   */
  sendTransaction(wire: Uint8Array, options?: SendOptions): Promise<Signature> {
    let landed: Submitted;
    try {
      landed = this.executor.submit(wire);
    } catch (e) {
      return Promise.reject(e);
    }
    const { slot, failure } = landed;
    const signature = toSignature(landed.signature);
    if (failure !== null) {
      return landed.durable.then(() => {
        throw failure;
      });
    }
    if (options?.commitment === 'finalized') {
      return landed.durable.then(() => this.chain.waitForSlot(slot + FINALITY_DEPTH)).then(() => signature);
    }
    return landed.durable.then(() => signature);
  }

  /**
   * The landed transaction with its wire bytes, or null. Includes compute units, loaded addresses and memo.
   * @throws LedgerInputError when `signature` is not base58 of 64 bytes.
   */
  async getTransaction(signature: Signature): Promise<EmbeddedLedgerTransaction | null> {
    this.chain.sync();
    const row = this.journal.transaction(signatureBytes(signature));
    if (row === undefined) return null;
    return this.transactionOf(row, signature);
  }

  private transactionOf(row: JournalTxRow, signature: Signature): EmbeddedLedgerTransaction {
    const balances = decodeBalances(row.balances);
    return {
      signature,
      slot: BigInt(row.slot),
      blockTime: row.block_time,
      wire: new Uint8Array(row.wire),
      err: errOf(row.err),
      fee: BigInt(row.fee),
      logMessages: JSON.parse(row.logs) as string[],
      confirmationStatus: this.chain.statusOf(row.slot).confirmationStatus,
      computeUnitsConsumed: BigInt(row.units),
      loadedAddresses: row.loaded === null ? null : (JSON.parse(row.loaded) as { writable: string[]; readonly: string[] }),
      memo: row.memo,
      ...(balances === null ? {} : { preBalances: balances.pre, postBalances: balances.post }),
    };
  }

  /** Statuses in request order; null for unknown (or malformed) signatures. */
  async getSignatureStatuses(signatures: readonly string[]): Promise<(SignatureStatus | null)[]> {
    this.chain.sync();
    return signatures.map((s) => {
      const sig = tryDecodeBase58Fixed(s, 64);
      const row = sig === null ? undefined : this.journal.status(sig);
      if (row === undefined) return null;
      return { slot: BigInt(row.slot), err: errOf(row.err), ...this.chain.statusOf(row.slot) };
    });
  }

  /**
   * Transactions that reference the address (any account key), newest first.
   * `limit` 1..1000 (default 1000); `before` excludes that signature and newer ones; `until` stops
   * at that signature (excluded); `commitment` `finalized` leaves out what landed after the
   * finalized slot (default: everything landed). An unknown `before` gives no entries, an unknown
   * `until` no bound.
   * Entries also carry `memo` (Solana's `[len] text` format) for the JSON-RPC endpoint.
   * @throws LedgerInputError for a malformed address, `before` or `until` signature.
   */
  async getSignaturesForAddress(address: string, options?: SignaturesForAddressOptions): Promise<(AddressSignature & { memo: string | null })[]> {
    this.chain.sync();
    const key = addressBytes(address);
    const limit = Math.min(Math.max(Math.trunc(options?.limit ?? 1000), 1), 1000);
    let beforeSeq = Number.MAX_SAFE_INTEGER;
    if (options?.before !== undefined) {
      const seq = this.journal.seqOf(signatureBytes(options.before));
      if (seq === undefined) return [];
      beforeSeq = seq;
    }
    let afterSeq = 0;
    if (options?.until !== undefined) afterSeq = this.journal.seqOf(signatureBytes(options.until)) ?? 0;
    if (options?.commitment === 'finalized') {
      beforeSeq = Math.min(beforeSeq, this.journal.lastSeqAtOrBefore(this.chain.slotAt('finalized'), this.state.lastSeq) + 1);
    }
    return this.journal
      .history(key, beforeSeq, limit, afterSeq)
      .map((r) => ({
        signature: toSignature(encodeBase58(r.signature)),
        slot: BigInt(r.slot),
        blockTime: r.block_time,
        err: errOf(r.err),
        confirmationStatus: this.chain.statusOf(r.slot).confirmationStatus,
        memo: r.memo,
      }));
  }

  // ---------------------------------------------------------------- Ledger: accounts & fees

  /**
   * Balance in lamports at `commitment` (default: the latest state; 0 for unknown accounts).
   * @throws LedgerInputError for a malformed address.
   */
  async getBalance(address: string, commitment?: Commitment): Promise<bigint> {
    this.chain.sync();
    const key = addressBytes(address);
    const current = this.state.driver.balance(key);
    return commitment === 'finalized' ? (this.finalizedLamports(key) ?? current) : current;
  }

  /**
   * Lamports of `key` at the finalized slot when a journaled transaction touched it since then
   * (its pre-execution balance), otherwise undefined (unchanged since: the current balance holds).
   */
  private finalizedLamports(key: Uint8Array): bigint | undefined {
    const after = this.journal.lastSeqAtOrBefore(this.chain.slotAt('finalized'), this.state.lastSeq);
    const row = this.journal.firstTouchAfter(key, after);
    if (row === undefined) return undefined;
    const balances = decodeBalances(row.balances);
    if (balances === null) return undefined;
    const keys = accountKeysOfRow(row);
    const i = keys.findIndex((k) => k === encodeBase58(key));
    return i < 0 ? undefined : balances.pre[i];
  }

  /**
   * Transfers `lamports` from the genesis faucet in a real, journaled System transfer
   * (so it has a signature, history and survives restarts). No cap here: the JSON-RPC endpoint caps
   * what outside callers may request.
   * @throws LedgerInputError for a malformed address, a non-positive or over-u64 amount, or the faucet itself.
   * @throws TransactionFailedError e.g. when the amount leaves a new account below rent exemption.
   */
  async requestAirdrop(address: string, lamports: bigint): Promise<Signature> {
    const to = addressBytes(address);
    if (typeof lamports !== 'bigint' || lamports <= 0n || lamports > MAX_U64) throw new LedgerInputError('lamports must be a positive u64');
    if (Buffer.compare(to, this.faucet.pubkey) === 0) throw new LedgerInputError('Cannot airdrop to the faucet');
    this.chain.sync();
    for (let attempt = 0; ; attempt++) {
      const nonce = attempt === 0 ? null : randomBytes(8).toString('hex');
      const wire = buildAirdropWire(this.faucet, to, lamports, this.chain.latestBlockhash().blockhash, nonce);
      let landed: Submitted;
      try {
        landed = this.executor.submit(wire);
      } catch (e) {
        // Same recipient, amount and blockhash as an earlier airdrop: add a nonce memo.
        if (e instanceof TransactionFailedError && e.code === LedgerErrorCode.AlreadyProcessed && attempt < 3) continue;
        throw e;
      }
      await landed.durable;
      if (landed.failure !== null) throw landed.failure;
      return toSignature(landed.signature);
    }
  }

  /**
   * Fee in lamports for a compiled message (base64): 5,000 × (signatures + precompile
   * signatures) + prioritization fee. Null when its blockhash is unknown or expired, like Solana.
   * @throws LedgerInputError when the bytes are not a message.
   */
  async getFeeForMessage(messageBase64: string, commitment?: Commitment): Promise<bigint | null> {
    this.chain.sync();
    let message: WireMessage;
    try {
      message = parseWireMessage(Buffer.from(messageBase64, 'base64'));
    } catch (e) {
      throw new LedgerInputError(`Invalid message: ${(e as Error).message}`);
    }
    if (!this.chain.isBlockhashValid(message.recentBlockhash, commitment)) return null;
    return computeMessageFee(message);
  }

  /**
   * Lamports an account with `bytes` of data needs to be rent exempt, computed as Agave's
   * `Rent::minimum_balance`: (128 + bytes) × lamports per byte-year × exemption threshold (years),
   * with no cap on the size (3,480 × 2 today: 890,880 for 0 bytes, 139,200,890,880 for 20,000,000).
   * @throws LedgerInputError for a negative or fractional size.
   */
  async getMinimumBalanceForRentExemption(bytes: number): Promise<bigint> {
    if (!Number.isInteger(bytes) || bytes < 0) throw new LedgerInputError('bytes must be a non-negative integer');
    const rent = this.state.driver.svm.getRent();
    const perYear = (128n + BigInt(bytes)) * rent.lamportsPerByteYear;
    const threshold = rent.exemptionThreshold;
    const lamports = Number.isInteger(threshold) ? perYear * BigInt(threshold) : BigInt(Math.floor(Number(perYear) * threshold));
    // Agave's f64 → u64 cast saturates.
    return lamports > MAX_U64 ? MAX_U64 : lamports;
  }

  // ---------------------------------------------------------------- LedgerInspector

  /**
   * The account at `commitment` (default: the latest state), or null when it does not exist. At
   * `finalized` the lamports are those of the finalized slot (null when it had none); owner and data
   * are the current ones (the programs the protocol uses never change them on an existing account).
   * @throws LedgerInputError for a malformed address.
   */
  async getAccountInfo(address: string, commitment?: Commitment): Promise<LedgerAccountInfo | null> {
    this.chain.sync();
    const key = addressBytes(address);
    const a = this.state.driver.account(key);
    let lamports = a?.lamports ?? 0n;
    if (commitment === 'finalized') lamports = this.finalizedLamports(key) ?? lamports;
    if (lamports === 0n) return null;
    if (a === null) {
      return { lamports, owner: SYSTEM_PROGRAM_ADDRESS, data: new Uint8Array(0), executable: false, rentEpoch: RENT_EXEMPT_EPOCH };
    }
    return { lamports, owner: encodeBase58(a.owner), data: a.data, executable: a.executable, rentEpoch: a.rentEpoch };
  }

  /**
   * The block of `slot` with its transactions in landing order; null when the slot is past the
   * chain's slot at `commitment`. Every slot is a block (block height = slot).
   */
  async getBlock(slot: bigint, commitment: Commitment): Promise<LedgerBlock | null> {
    this.chain.sync();
    if (slot < 0n || slot > BigInt(this.chain.slotAt(commitment))) return null;
    const s = Number(slot);
    const last = this.state.lastSeq;
    const from = s === 0 ? 0 : this.journal.lastSeqAtOrBefore(s - 1, last);
    const to = this.journal.lastSeqAtOrBefore(s, last);
    const rows = to > from ? this.journal.rowsBetween(from, to) : [];
    return {
      slot,
      parentSlot: s === 0 ? 0n : slot - 1n,
      blockHeight: slot,
      blockTime: this.chain.blockTimeOf(s),
      blockhash: this.chain.blockhashOf(s),
      // Slot 0 has no parent entries: a cluster's block store answers the default hash, as Agave does.
      previousBlockhash: s === 0 ? '11111111111111111111111111111111' : this.chain.blockhashOf(s - 1),
      transactions: rows.map((r) => this.transactionOf(r, toSignature(encodeBase58(r.signature)))),
    };
  }

  /** Epoch of the chain's slot at `commitment`, under the runtime's epoch schedule. */
  async getEpochInfo(commitment: Commitment): Promise<LedgerEpochInfo> {
    this.chain.sync();
    const slot = this.chain.slotAt(commitment);
    const { epoch, firstSlot, slotsInEpoch } = this.state.epochAt(slot);
    const count = commitment === 'finalized' ? this.journal.lastSeqAtOrBefore(slot, this.state.lastSeq) : this.state.lastSeq;
    return {
      absoluteSlot: BigInt(slot),
      blockHeight: BigInt(slot),
      epoch: BigInt(epoch),
      slotIndex: BigInt(slot - firstSlot),
      slotsInEpoch: BigInt(slotsInEpoch),
      transactionCount: BigInt(count),
    };
  }

  /** The runtime's epoch schedule (LiteSVM's, the same as a cluster's default). */
  async getEpochSchedule(): Promise<LedgerEpochSchedule> {
    const es = this.state.driver.svm.getEpochSchedule();
    return {
      slotsPerEpoch: es.slotsPerEpoch,
      leaderScheduleSlotOffset: es.leaderScheduleSlotOffset,
      warmup: es.warmup,
      firstNormalEpoch: es.firstNormalEpoch,
      firstNormalSlot: es.firstNormalSlot,
    };
  }

  /** Base58 identity of this one-node ledger, derived from the genesis secret (stable across restarts). */
  async getIdentity(): Promise<string> {
    return this.identity;
  }

  /**
   * The identity, `limit` times: it leads every slot. The schedule is known up to the leader-schedule epoch of the
   * current slot, as a validator's (Agave's `get_leader_schedule_epoch`): during the warmup epochs the next epoch,
   * afterwards the epoch of the current slot + the leader schedule offset.
   * @throws LedgerInputError `Invalid slot range: leader schedule for epoch <n> is unavailable` past it.
   */
  async getSlotLeaders(startSlot: bigint, limit: number): Promise<string[]> {
    const slot = this.chain.sync();
    if (limit === 0) return [];
    const schedule = this.state.driver.svm.getEpochSchedule();
    const current = this.state.epochAt(slot);
    const known =
      schedule.warmup && slot < Number(schedule.firstNormalSlot)
        ? this.state.epochAt(current.firstSlot + current.slotsInEpoch)
        : this.state.epochAt(slot + Number(schedule.leaderScheduleSlotOffset));
    const lastKnown = BigInt(known.firstSlot + known.slotsInEpoch - 1);
    const last = startSlot + BigInt(limit) - 1n;
    if (last > lastKnown) {
      const epoch = startSlot > lastKnown ? this.state.epochAt(Number(startSlot)).epoch : known.epoch + 1;
      throw new LedgerInputError(`Invalid slot range: leader schedule for epoch ${epoch} is unavailable`);
    }
    return Array.from({ length: limit }, () => this.identity);
  }

  /**
   * For each of the last 150 slots up to the current one, oldest first: the lowest compute-unit price (micro-lamports
   * per compute unit) of its transactions, raised to the lowest price among those writing each of `addresses`
   * (journal-statistics.ts).
   */
  async getRecentPrioritizationFees(addresses: readonly string[]): Promise<LedgerPrioritizationFee[]> {
    return recentPrioritizationFees(this.journal, this.state.lastSeq, this.chain.sync(), addresses);
  }

  /** Completed 60-second periods, newest first, at most `limit` (journal-statistics.ts). */
  async getRecentPerformanceSamples(limit: number): Promise<LedgerPerformanceSample[]> {
    return recentPerformanceSamples(this.journal, this.state.lastSeq, this.chain.sync(), this.slotMs, limit);
  }

  /**
   * Tells `listener` about every new slot and every transaction once it is journaled, until the
   * returned function is called (or the ledger closes).
   */
  subscribe(listener: LedgerListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private announceSlots(previous: number, slot: number): void {
    for (let s = Math.max(previous + 1, slot - MAX_SLOT_BURST + 1); s <= slot; s++) {
      const root = BigInt(Math.max(0, s - FINALITY_DEPTH));
      for (const l of this.listeners) l.slot?.(BigInt(s), BigInt(Math.max(0, s - 1)), root);
    }
  }

  private announceTransactions(rows: readonly JournalAppend[]): void {
    if (this.listeners.size === 0) return;
    for (const row of rows) {
      const event = landedEvent(row);
      for (const l of this.listeners) l.transaction?.(event);
    }
  }

  /** Unix seconds of the slot's block; null for future slots. */
  async getBlockTime(slot: bigint): Promise<number | null> {
    const current = this.chain.sync();
    if (slot < 0n || slot > BigInt(current)) return null;
    return this.chain.blockTimeOf(Number(slot));
  }

  async isBlockhashValid(blockhash: string, commitment?: Commitment): Promise<boolean> {
    this.chain.sync();
    return this.chain.isBlockhashValid(blockhash, commitment);
  }

  /**
   * Executes the transaction against the current state without committing it.
   * @throws TransactionFailedError `InvalidTransaction` when the bytes are not a transaction.
   */
  async simulateTransaction(wire: Uint8Array, options?: SimulateOptions): Promise<SimulationResult> {
    return this.executor.simulate(wire, options);
  }
}
