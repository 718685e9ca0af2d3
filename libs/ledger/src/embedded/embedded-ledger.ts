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
 * (airdrop.ts). This class ties them together behind the {@link Ledger} port and answers the reads.
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
  type LedgerTransaction,
  type SendOptions,
  type Signature,
  type SignatureStatus,
} from '../ledger.port';
import type { LedgerAccountInfo, LedgerInspector, SimulateOptions, SimulationResult } from '../ledger-inspector';
import { LedgerErrorCode } from '../ledger-error';
import { FINALITY_DEPTH, type LedgerLogger } from '../constants';
import { LedgerInputError } from '../errors';
import { encodeBase58, toSignature, tryDecodeBase58Fixed } from '../internal/base58';
import { computeMessageFee, parseWireMessage, type WireMessage } from '../internal/wire';
import { buildAirdropWire } from './airdrop';
import { ChainClock } from './chain-clock';
import { faucetOf, loadOrCreateGenesis, type Faucet, type GenesisFile } from './genesis';
import { Journal, type JournalSynchronous } from './journal';
import { SvmState } from './svm-state';
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
}

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
  private chain!: ChainClock;
  private state!: SvmState;
  private executor!: TransactionExecutor;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

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
    this.chain = ChainClock.open(this.journal, { createdAtMs: this.genesis.createdAtMs, secret }, this.slotMs);
    this.state = new SvmState({
      dir: this.dir,
      journal: this.journal,
      logger: this.logger,
      snapshots: this.snapshots,
      faucetPubkey: this.faucet.pubkey,
      genesisCreatedAtMs: this.genesis.createdAtMs,
      slotStartMs: (slot) => this.chain.slotStartMs(slot),
    });
    this.state.rebuild();
    this.executor = new TransactionExecutor(this.journal, this.chain, this.state, this.logger);
    this.chain.start((slot, startMs) => this.state.setClock(slot, startMs));
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

  /** Blockhash of the current slot; usable until block height `lastValidBlockHeight` (= current + 150). */
  async getLatestBlockhash(): Promise<LatestBlockhash> {
    this.chain.sync();
    return this.chain.latestBlockhash();
  }

  /** Current slot. Every slot produces a block; all commitments see the same slot. */
  async getSlot(_commitment?: Commitment): Promise<bigint> {
    return BigInt(this.chain.sync());
  }

  /** Current block height (equal to the slot: no slot is skipped). */
  async getBlockHeight(_commitment?: Commitment): Promise<bigint> {
    return BigInt(this.chain.sync());
  }

  async ping(): Promise<boolean> {
    return !this.closed;
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
   * `limit` 1..1000 (default 1000); `before` excludes that signature and newer ones.
   * Entries also carry `memo` (Solana's `[len] text` format) for the JSON-RPC endpoint.
   * @throws LedgerInputError for a malformed address or `before` signature.
   */
  async getSignaturesForAddress(
    address: string,
    options?: { limit?: number; before?: string },
  ): Promise<(AddressSignature & { memo: string | null })[]> {
    this.chain.sync();
    const key = addressBytes(address);
    const limit = Math.min(Math.max(Math.trunc(options?.limit ?? 1000), 1), 1000);
    let beforeSeq = Number.MAX_SAFE_INTEGER;
    if (options?.before !== undefined) {
      const seq = this.journal.seqOf(signatureBytes(options.before));
      if (seq === undefined) return [];
      beforeSeq = seq;
    }
    return this.journal.history(key, beforeSeq, limit).map((r) => ({
      signature: toSignature(encodeBase58(r.signature)),
      slot: BigInt(r.slot),
      blockTime: r.block_time,
      err: errOf(r.err),
      confirmationStatus: this.chain.statusOf(r.slot).confirmationStatus,
      memo: r.memo,
    }));
  }

  // ---------------------------------------------------------------- Ledger: accounts & fees

  /** Balance in lamports (0 for unknown accounts). @throws LedgerInputError for a malformed address. */
  async getBalance(address: string): Promise<bigint> {
    this.chain.sync();
    return this.state.driver.balance(addressBytes(address));
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
  async getFeeForMessage(messageBase64: string): Promise<bigint | null> {
    this.chain.sync();
    let message: WireMessage;
    try {
      message = parseWireMessage(Buffer.from(messageBase64, 'base64'));
    } catch (e) {
      throw new LedgerInputError(`Invalid message: ${(e as Error).message}`);
    }
    if (!this.chain.isBlockhashValid(message.recentBlockhash)) return null;
    return computeMessageFee(message);
  }

  /** Lamports an account with `bytes` of data needs to be rent exempt. @throws LedgerInputError for a negative or fractional size. */
  async getMinimumBalanceForRentExemption(bytes: number): Promise<bigint> {
    if (!Number.isInteger(bytes) || bytes < 0) throw new LedgerInputError('bytes must be a non-negative integer');
    return this.state.driver.svm.minimumBalanceForRentExemption(BigInt(bytes));
  }

  // ---------------------------------------------------------------- LedgerInspector

  /** The account, or null when it does not exist. @throws LedgerInputError for a malformed address. */
  async getAccountInfo(address: string): Promise<LedgerAccountInfo | null> {
    this.chain.sync();
    const a = this.state.driver.account(addressBytes(address));
    if (a === null) return null;
    return { lamports: a.lamports, owner: encodeBase58(a.owner), data: a.data, executable: a.executable, rentEpoch: a.rentEpoch };
  }

  /** Unix seconds of the slot's block; null for future slots. */
  async getBlockTime(slot: bigint): Promise<number | null> {
    const current = this.chain.sync();
    if (slot < 0n || slot > BigInt(current)) return null;
    return this.chain.blockTimeOf(Number(slot));
  }

  async isBlockhashValid(blockhash: string): Promise<boolean> {
    this.chain.sync();
    return this.chain.isBlockhashValid(blockhash);
  }

  /**
   * Executes the transaction against the current state without committing it.
   * @throws TransactionFailedError `InvalidTransaction` when the bytes are not a transaction.
   */
  async simulateTransaction(wire: Uint8Array, options?: SimulateOptions): Promise<SimulationResult> {
    return this.executor.simulate(wire, options);
  }
}
