/**
 * Transaction execution of the embedded ledger: checks, one native LiteSVM call on the wire
 * bytes, and the group-committed journal write.
 *
 * - Refused before execution (malformed, duplicate, unknown/expired blockhash, bad signature,
 *   fee payer unable to pay): nothing changes, nothing is journaled.
 * - Failed during execution: the fee is charged, the transaction is journaled with its error
 *   and replayed as such.
 * - Precompile signature failure: LiteSVM verifies precompiles (Ed25519…) as instructions, so a
 *   forged signature comes back as `InstructionError(i, Custom(2))` with the fee charged; like a
 *   validator's pre-execution check, the fee is refunded (LiteSVM burns fees, nothing else changes
 *   when a transaction fails) and the transaction is refused without a record.
 * - Group commit: transactions executed during one event-loop turn are journaled together in one
 *   SQLite transaction right after it; each promise settles once its row is committed, then the
 *   committed rows go to the `onCommitted` listener (the ledger's subscriptions).
 * - Balances: the lamports of every account key are read before and after execution and journaled
 *   with the row (RPC `preBalances` / `postBalances`, and balances at `finalized` commitment).
 * - Simulation returns the accounts the transaction loaded in their state after it (LiteSVM's
 *   post-simulation accounts), for `simulateTransaction`'s `accounts`.
 * Errors carry a {@link LedgerErrorCode} (libs/ledger/README.md, "Errors").
 */
import type { LedgerLogger } from '../constants';
import { PACKET_DATA_SIZE } from '../constants';
import { TransactionFailedError } from '../ledger.port';
import { LedgerErrorCode } from '../ledger-error';
import type { LedgerAccountInfo, SimulateOptions, SimulationResult } from '../ledger-inspector';
import { encodeBase58 } from '../internal/base58';
import { transactionErrorToJson, transactionFailure } from '../internal/tx-error';
import { computeMessageFee, extractMemo, parseWireTransaction, type WireMessage, type WireTransaction } from '../internal/wire';
import type { ChainClock } from './chain-clock';
import { encodeBalances, type Journal, type JournalAppend } from './journal';
import { FailedTransactionMetadata, type SvmOutcome } from './svm-driver';
import type { SvmState } from './svm-state';

/** A transaction that was executed and is being journaled. */
export interface Submitted {
  signature: string;
  slot: number;
  /** Settles once the journal write is committed. */
  durable: Promise<void>;
  /** Set when the transaction landed with an error (fee charged): thrown after `durable`. */
  failure: TransactionFailedError | null;
}

const ALT_HEADER_BYTES = 56;
const FEE_RE = /fee: (\d+) \}\)$/;

/** Fee LiteSVM charged, read from its metadata (last field of its Debug output). */
function chargedFee(meta: { toString(): string }): bigint | null {
  const m = FEE_RE.exec(meta.toString());
  return m ? BigInt(m[1]!) : null;
}

function isZero(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

/**
 * Parses wire bytes, refusing oversized or undecodable ones.
 * @throws TransactionFailedError `InvalidTransaction` (err `SanitizeFailure`).
 */
function parseOrRefuse(wire: Uint8Array): WireTransaction {
  try {
    if (wire.length > PACKET_DATA_SIZE) throw new Error(`transaction too large: ${wire.length} bytes (max ${PACKET_DATA_SIZE})`);
    return parseWireTransaction(wire);
  } catch (e) {
    throw new TransactionFailedError(LedgerErrorCode.InvalidTransaction, `Invalid transaction: ${(e as Error).message}`, { err: 'SanitizeFailure' });
  }
}

/** Executes transactions on the SVM state and journals them with group commit (see the file comment). */
export class TransactionExecutor {
  private pending: { entry: JournalAppend; signature: string; resolve: () => void; reject: (e: Error) => void }[] = [];
  private readonly pendingSignatures = new Set<string>();
  private flushScheduled = false;

  /**
   * @param onCommitted hears every batch of rows right after it is committed (in landing order,
   *   with their sequence numbers); it must not throw.
   */
  constructor(
    private readonly journal: Journal,
    private readonly chain: ChainClock,
    private readonly state: SvmState,
    private readonly logger: LedgerLogger,
    private readonly onCommitted: (rows: readonly JournalAppend[], lastSeq: number) => void = () => undefined,
  ) {}

  /** True when no journal write is waiting. */
  get idle(): boolean {
    return this.pending.length === 0;
  }

  /**
   * Synchronous core of sendTransaction: checks, executes at the current slot, queues the journal write.
   * @throws TransactionFailedError when refused before execution (`InvalidTransaction`, `AlreadyProcessed`,
   *   `BlockhashNotFound`, `SignatureVerificationFailed`, `InsufficientFunds`, `AccountNotFound`, …).
   */
  submit(input: Uint8Array): Submitted {
    const slot = this.chain.sync();
    // Own copy: the journal write happens after this call returns.
    const wire = new Uint8Array(input);
    const tx = parseOrRefuse(wire);
    const msg = tx.message;
    const sigBytes = tx.signatures[0]!;
    const signature = encodeBase58(sigBytes);
    const refuse = (err: unknown, logs: string[] = []): never => {
      throw transactionFailure(err, { message: msg, logs, signature, landed: false });
    };
    if (this.pendingSignatures.has(signature) || this.journal.hasSignature(sigBytes)) refuse('AlreadyProcessed');
    if (!this.chain.isBlockhashValid(msg.recentBlockhash)) refuse('BlockhashNotFound');

    const { addresses, loadedJson } = this.accountKeysOf(msg);
    const driver = this.state.driver;
    const pre = addresses.map((a) => driver.balance(a));
    this.state.prepareSlotHashes(msg.accountKeys, slot);
    let outcome: SvmOutcome;
    try {
      outcome = driver.send(wire, msg.version);
    } catch (e) {
      // e.g. kit's assertIsFullySignedTransaction on the fallback path
      return refuse('SignatureFailure', [(e as Error).message]);
    }

    let errJson: string | null = null;
    let failure: TransactionFailedError | null = null;
    let fee: bigint;
    let logs: string[];
    let units: bigint;
    if (outcome instanceof FailedTransactionMetadata) {
      const meta = outcome.meta();
      const err = this.programLoadError(transactionErrorToJson(outcome.err()), msg);
      logs = meta.logs();
      // Refused before execution (LiteSVM leaves the signature zeroed): nothing changed, nothing recorded.
      if (isZero(meta.signature())) return refuse(err, logs);
      const charged = chargedFee(meta) ?? computeMessageFee(msg);
      failure = transactionFailure(err, { message: msg, logs, signature, landed: true, prefix: 'Transaction failed: ' });
      if (failure.code === LedgerErrorCode.SignatureVerificationFailed) {
        // Precompile verification failure: a validator rejects it before execution.
        this.state.credit(msg.accountKeys[0]!, charged);
        throw transactionFailure(err, { message: msg, logs, signature, landed: false });
      }
      fee = charged;
      errJson = JSON.stringify(err);
      units = meta.computeUnitsConsumed();
    } else {
      fee = chargedFee(outcome) ?? computeMessageFee(msg);
      logs = outcome.logs();
      units = outcome.computeUnitsConsumed();
    }

    const post = addresses.map((a) => driver.balance(a));
    const durable = this.enqueue(
      {
        signature: sigBytes,
        slot,
        blockTime: this.chain.blockTimeOf(slot),
        wire,
        errJson,
        fee,
        logs,
        memo: extractMemo(msg),
        unitsConsumed: units,
        loadedJson,
        addresses,
        balances: encodeBalances(pre, post),
      },
      signature,
    );
    return { signature, slot, durable, failure };
  }

  /** Static keys plus addresses loaded from lookup tables (read from the tables' current state). */
  private accountKeysOf(msg: WireMessage): { addresses: Uint8Array[]; loadedJson: string | null } {
    if (msg.addressTableLookups.length === 0) return { addresses: msg.accountKeys, loadedJson: null };
    const writable: Uint8Array[] = [];
    const readonly: Uint8Array[] = [];
    for (const lookup of msg.addressTableLookups) {
      const table = this.state.driver.account(lookup.accountKey);
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

  /**
   * Commits the queued journal rows in one SQLite transaction. When the write fails, the SVM (which
   * applied transactions the journal lacks) is rebuilt from the journal and the waiting sends reject.
   */
  flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    const entries = batch.map((b) => b.entry);
    try {
      this.state.lastSeq = this.journal.append(entries);
    } catch (e) {
      this.logger.error(`Ledger journal write failed, rebuilding state from the journal: ${(e as Error).message}`);
      try {
        this.state.rebuild();
        const slot = this.chain.current;
        this.state.setClock(slot, this.chain.slotStartMs(slot));
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
    this.onCommitted(entries, this.state.lastSeq);
  }

  /**
   * Executes the transaction against the current state without committing it.
   * @throws TransactionFailedError `InvalidTransaction` when the bytes are not a transaction.
   */
  /**
   * The runtime's error as a cluster names it: LiteSVM reports an instruction whose program account does not exist
   * as `InvalidProgramForExecution`, where Agave's account loader says `ProgramAccountNotFound` (and keeps
   * `InvalidProgramForExecution` for an account that exists but is not a program).
   */
  private programLoadError(err: unknown, msg: WireMessage): unknown {
    if (err !== 'InvalidProgramForExecution') return err;
    const driver = this.state.driver;
    const missing = msg.instructions.some((ix) => {
      const key = msg.accountKeys[ix.programIdIndex];
      return key !== undefined && driver.account(key) === null;
    });
    return missing ? 'ProgramAccountNotFound' : err;
  }

  simulate(wire: Uint8Array, options?: SimulateOptions): SimulationResult {
    const slot = this.chain.sync();
    const tx = parseOrRefuse(wire);
    this.state.prepareSlotHashes(tx.message.accountKeys, slot);
    const replace = options?.replaceRecentBlockhash === true;
    const fail = (err: unknown): SimulationResult => ({ err, logs: [], unitsConsumed: 0n, fee: null, replacementBlockhash: null, postAccounts: new Map() });
    if (!replace && !this.chain.isBlockhashValid(tx.message.recentBlockhash, options?.commitment)) return fail('BlockhashNotFound');
    const sigVerify = options?.sigVerify === true;
    const svm = this.state.driver.svm;
    if (!sigVerify) svm.withSigverify(false);
    let result: ReturnType<SvmState['driver']['simulate']>;
    try {
      result = this.state.driver.simulate(wire, tx.message.version);
    } catch (e) {
      return { ...fail('SignatureFailure'), logs: [(e as Error).message] };
    } finally {
      if (!sigVerify) svm.withSigverify(true);
    }
    const replacementBlockhash = replace ? this.chain.latestBlockhash() : null;
    const meta = result.meta();
    if (result instanceof FailedTransactionMetadata) {
      return {
        err: this.programLoadError(transactionErrorToJson(result.err()), tx.message),
        logs: meta.logs(),
        unitsConsumed: meta.computeUnitsConsumed(),
        fee: chargedFee(meta) || null,
        replacementBlockhash,
        postAccounts: new Map(),
      };
    }
    const postAccounts = new Map<string, LedgerAccountInfo>();
    for (const { address, account } of result.postAccounts()) {
      postAccounts.set(encodeBase58(address), { ...account, owner: encodeBase58(account.owner) });
    }
    return {
      err: null,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      fee: chargedFee(meta) ?? computeMessageFee(tx.message),
      replacementBlockhash,
      postAccounts,
    };
  }
}
