/**
 * The embedded ledger's runtime state: a LiteSVM rebuilt from genesis (or from a snapshot) by
 * replaying the journal, its clock sysvar, and the optional snapshot files.
 *
 * - Replay re-executes journal rows in order with sigverify off (signatures were verified when
 *   they landed), each at its recorded slot and block time, and compares success/failure with
 *   the journal (`replayDivergences` counts differences; it should stay 0).
 * - The SVM's own blockhash check stays off for good: the ledger checks recent blockhashes
 *   against its own queue (chain-clock.ts), and replayed transactions carry blockhashes a fresh
 *   SVM never produced. LiteSVM's transaction history is disabled (duplicates are found in the journal).
 * - `snapshot.bin` + `snapshot.json` (journal position, signature at it, sha256, litesvm version)
 *   only shorten restarts; they are ignored whenever they do not match the journal.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Clock, LiteSVM } from 'litesvm';
import { SYSTEM_PROGRAM_ADDRESS, type LedgerLogger } from '../constants';
import { decodeBase58, encodeBase58 } from '../internal/base58';
import { parseWireTransaction } from '../internal/wire';
import type { Journal } from './journal';
import { FailedTransactionMetadata, SvmDriver } from './svm-driver';

interface SnapshotMeta {
  seq: number;
  signature: string;
  sha256: string;
  litesvm: string;
}

interface EpochSchedule {
  slotsPerEpoch: number;
  warmup: boolean;
  firstNormalEpoch: number;
  firstNormalSlot: number;
}

export interface SvmStateOptions {
  dir: string;
  journal: Journal;
  logger: LedgerLogger;
  /** Whether snapshots are read and written. */
  snapshots: boolean;
  /** 32-byte faucet public key, credited FAUCET_LAMPORTS at genesis. */
  faucetPubkey: Uint8Array;
  genesisCreatedAtMs: number;
  /** Start of a slot in unix ms (for the epoch start of the clock sysvar). */
  slotStartMs: (slot: number) => number;
  /** Base58 hash of a past `slot` (the SlotHashes sysvar's entries). */
  slotHashOf: (slot: number) => string;
}

export const SYSTEM_PROGRAM_BYTES = decodeBase58(SYSTEM_PROGRAM_ADDRESS);
export const RENT_EXEMPT_EPOCH = 0xffff_ffff_ffff_ffffn;
/** Lamports minted to the faucet at genesis (500 million SOL). */
const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n;
const LITESVM_VERSION: string = (() => {
  try {
    return (require('litesvm/package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
})();

function sha256FileSync(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Epoch, its first slot and its length under a (possibly warming-up) epoch schedule. */
/** The Address Lookup Table program (`AddressLookupTab1e1111111111111111111111111`). */
const ADDRESS_LOOKUP_TABLE_PROGRAM = Buffer.from(decodeBase58('AddressLookupTab1e1111111111111111111111111'));
/** Entries of the SlotHashes sysvar, as on a cluster. */
const MAX_SLOT_HASHES = 512;

function epochOf(slot: number, schedule: EpochSchedule): { epoch: number; firstSlot: number; slotsInEpoch: number } {
  if (schedule.warmup && slot < schedule.firstNormalSlot) {
    let epoch = 0;
    let start = 0;
    let len = 32;
    while (slot >= start + len) {
      start += len;
      len *= 2;
      epoch++;
    }
    return { epoch, firstSlot: start, slotsInEpoch: len };
  }
  const base = schedule.warmup ? schedule.firstNormalSlot : 0;
  const baseEpoch = schedule.warmup ? schedule.firstNormalEpoch : 0;
  const n = Math.floor((slot - base) / schedule.slotsPerEpoch);
  return { epoch: baseEpoch + n, firstSlot: base + n * schedule.slotsPerEpoch, slotsInEpoch: schedule.slotsPerEpoch };
}

/** The LiteSVM of the embedded ledger, its clock sysvar and snapshots (see the file comment). */
export class SvmState {
  /** Access to the current SVM; replaced by {@link rebuild}. */
  driver!: SvmDriver;
  /** Journal rows whose replay outcome differed from the recorded one (should stay 0). */
  replayDivergences = 0;
  /** Journal position the SVM reflects. */
  lastSeq = 0;
  private snapshotSeq = 0;
  private schedule!: EpochSchedule;

  constructor(private readonly options: SvmStateOptions) {}

  /** Rows journaled since the last snapshot. */
  get rowsSinceSnapshot(): number {
    return this.lastSeq - this.snapshotSeq;
  }

  /** Builds the SVM from the snapshot (when valid) or genesis, then replays the journal tail. */
  rebuild(): void {
    const { journal, logger, dir } = this.options;
    let svm: LiteSVM | null = null;
    let fromSeq = 0;
    const snap = this.readSnapshot();
    if (snap !== null) {
      try {
        svm = LiteSVM.loadFromFile(join(dir, 'snapshot.bin'));
        fromSeq = snap.seq;
      } catch (e) {
        logger.warn(`Ledger snapshot unusable, replaying the whole journal: ${(e as Error).message}`);
        svm = null;
      }
    }
    if (svm === null) {
      svm = new LiteSVM();
      fromSeq = 0;
    }
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
      this.driver.setAccount(this.options.faucetPubkey, {
        lamports: FAUCET_LAMPORTS,
        data: new Uint8Array(0),
        owner: SYSTEM_PROGRAM_BYTES,
        executable: false,
        rentEpoch: RENT_EXEMPT_EPOCH,
      });
    }
    this.setClock(0, this.options.genesisCreatedAtMs);
    let clockSlot = 0;
    let replayed = 0;
    for (const row of journal.replayRows(fromSeq)) {
      if (row.slot !== clockSlot) {
        this.setClock(row.slot, row.block_time * 1000);
        clockSlot = row.slot;
      }
      let ok: boolean;
      try {
        const parsed = parseWireTransaction(row.wire);
        this.prepareSlotHashes(parsed.message.accountKeys, row.slot);
        ok = !(this.driver.send(row.wire, parsed.message.version) instanceof FailedTransactionMetadata);
      } catch {
        ok = false;
      }
      if (ok !== (row.err === null)) {
        this.replayDivergences++;
        logger.error(
          `Ledger replay diverged at journal seq ${row.seq} (${encodeBase58(row.signature)}): recorded ${row.err ?? 'success'}, replay ${ok ? 'success' : 'failure'}`,
        );
      }
      replayed++;
    }
    svm.withSigverify(true);
    this.lastSeq = journal.lastSeq();
    this.snapshotSeq = snap !== null && fromSeq > 0 ? fromSeq : 0;
    if (replayed > 0) logger.log?.(`Ledger replayed ${replayed} journal transactions (from seq ${fromSeq})`);
  }

  /** The epoch of `slot` under the runtime's epoch schedule: number, first slot, length in slots. */
  epochAt(slot: number): { epoch: number; firstSlot: number; slotsInEpoch: number } {
    return epochOf(slot, this.schedule);
  }

  /** Sets the SVM clock sysvar to `slot` (epoch from the schedule), unix time `startMs`. */
  setClock(slot: number, startMs: number): void {
    const { epoch, firstSlot } = epochOf(slot, this.schedule);
    const epochStart = Math.floor(this.options.slotStartMs(firstSlot) / 1000);
    this.driver.svm.setClock(
      new Clock(BigInt(slot), BigInt(Math.max(0, epochStart)), BigInt(epoch), BigInt(epoch + 1), BigInt(Math.floor(startMs / 1000))),
    );
  }

  /**
   * Before a transaction that invokes the Address Lookup Table program (which checks a table's `recent_slot` against
   * the SlotHashes sysvar): SlotHashes as at `slot`, the 512 slots before it, newest first. Only then, since building
   * them costs more than most transactions; a replay calls it the same way, so the outcome is the same.
   */
  prepareSlotHashes(accountKeys: readonly Uint8Array[], slot: number): void {
    if (!accountKeys.some((k) => Buffer.from(k.buffer, k.byteOffset, k.byteLength).equals(ADDRESS_LOOKUP_TABLE_PROGRAM))) return;
    const entries: { slot: bigint; hash: string }[] = [];
    for (let s = slot - 1; s >= 0 && s >= slot - MAX_SLOT_HASHES; s--) entries.push({ slot: BigInt(s), hash: this.options.slotHashOf(s) });
    this.driver.setSlotHashes(entries);
  }

  /** Credits `lamports` back to `payer` (creating a System account when it has none). */
  credit(payer: Uint8Array, lamports: bigint): void {
    const account = this.driver.account(payer);
    this.driver.setAccount(
      payer,
      account !== null
        ? { ...account, lamports: account.lamports + lamports }
        : { lamports, data: new Uint8Array(0), owner: SYSTEM_PROGRAM_BYTES, executable: false, rentEpoch: RENT_EXEMPT_EPOCH },
    );
  }

  private readSnapshot(): SnapshotMeta | null {
    const { dir, journal, snapshots } = this.options;
    if (!snapshots) return null;
    const metaPath = join(dir, 'snapshot.json');
    const binPath = join(dir, 'snapshot.bin');
    if (!existsSync(metaPath) || !existsSync(binPath)) return null;
    try {
      const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as SnapshotMeta;
      if (meta.litesvm !== LITESVM_VERSION) return null;
      const sig = journal.signatureAt(meta.seq);
      if (sig === undefined || sig.toString('hex') !== meta.signature) return null;
      if (sha256FileSync(binPath) !== meta.sha256) return null;
      return meta;
    } catch {
      return null;
    }
  }

  /** Writes a snapshot at {@link lastSeq} when snapshots are on and it moved. Failures are logged, never thrown. */
  writeSnapshot(): void {
    const { dir, journal, snapshots, logger } = this.options;
    if (!snapshots || this.lastSeq === 0 || this.lastSeq === this.snapshotSeq) return;
    const binPath = join(dir, 'snapshot.bin');
    const metaPath = join(dir, 'snapshot.json');
    const tmp = `${binPath}.tmp`;
    try {
      const sig = journal.signatureAt(this.lastSeq);
      if (sig === undefined) return;
      rmSync(metaPath, { force: true });
      this.driver.svm.saveToFile(tmp);
      const meta: SnapshotMeta = { seq: this.lastSeq, signature: sig.toString('hex'), sha256: sha256FileSync(tmp), litesvm: LITESVM_VERSION };
      renameSync(tmp, binPath);
      writeFileSync(metaPath, JSON.stringify(meta), { mode: 0o600 });
      this.snapshotSeq = this.lastSeq;
    } catch (e) {
      logger.warn(`Ledger snapshot failed: ${(e as Error).message}`);
    }
  }
}
