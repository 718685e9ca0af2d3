import { Inject, Injectable } from '@nestjs/common';
import { DomainError, type LedgerTransactionFacts, type MemberRecordFacts, type ProtocolRecord } from '@svc/domain';
import { parseEvidenceTransaction, type MemoRecord } from '@svc/evidence';
import { LEDGER, toAddress, toSignature, type AddressSignature, type Ledger, type LedgerTransaction } from '@svc/ledger';

/** A protocol transaction read back from the ledger. */
export interface LedgerRecord {
  signature: string;
  slot: number;
  blockTime: number | null;
  feePayer: string;
  /** The first memo of ours in the transaction, with the accounts that co-signed it. */
  memo: { record: MemoRecord; signerAccounts: string[] } | null;
  err: unknown;
  /** Number of transactions the ledger lists for the address (when read by address). */
  historyLength?: number;
}

/**
 * Most signatures of an authority's history one sync or refresh lists past the newest member record applied
 * (docs/api.md "Members and roles"); a longer history is refused rather than read in part.
 */
export const MEMBER_SCAN_LIMIT = 1_000_000;

/** Transactions the history scans (`memberRecordsOf`, `versionRecordsSince`) read from the ledger at once. */
const FETCH_CONCURRENCY = 16;

/**
 * Most signatures of one address `creationOf` reads looking for its oldest. The objects of the protocol (organizations,
 * documents, versions, shards) have short histories, except a sponsoring shard, whose nonce every sponsored acceptance
 * advances.
 */
export const CREATION_SCAN_LIMIT = 1_000_000;

/**
 * Most signatures of the organization's wallet the catch-up of a landed publication lists past its last read (or
 * since the draft was prepared); a longer history is refused rather than read in part (docs/api.md "Signing an
 * acceptance").
 */
export const CATCH_UP_SCAN_LIMIT = 100_000;

/**
 * Reads organizations, documents and versions back from the ledger: an object's address co-signs the
 * transaction that creates it, so its oldest transaction (`getSignaturesForAddress`) is its creation.
 */
@Injectable()
export class LedgerHistory {
  constructor(@Inject(LEDGER) private readonly ledger: Ledger) {}

  /**
   * The transaction that created `address` (docs/protocol.md §7.2): its oldest successful transaction, found by
   * reading its whole history newest first (pages of 1,000, `before` the last seen; at most
   * {@link CREATION_SCAN_LIMIT} signatures), or its oldest transaction of all when none succeeded (the caller then
   * refuses it as a failed creation). `historyLength` is the number of signatures read. A creation that is not a
   * transaction of this protocol (one it cannot parse, such as a version-0 transaction with address lookup tables)
   * comes back without a memo.
   * @throws DomainError not_found (404) when the ledger has no transaction for the address; the ledger's error when
   *   it cannot be read.
   */
  async creationOf(address: string): Promise<LedgerRecord> {
    let oldest: AddressSignature | undefined;
    let oldestSucceeded: AddressSignature | undefined;
    let read = 0;
    let before: string | undefined;
    for (;;) {
      const page = await this.ledger.getSignaturesForAddress(toAddress(address), { limit: 1000, ...(before ? { before: toSignature(before) } : {}) });
      // Newest first: the last entry seen of each kind is the oldest.
      for (const entry of page) {
        oldest = entry;
        if (entry.err === null) oldestSucceeded = entry;
      }
      read += page.length;
      if (page.length < 1000 || read >= CREATION_SCAN_LIMIT) break;
      before = page[page.length - 1]!.signature;
    }
    const creation = oldestSucceeded ?? oldest;
    if (!creation) throw new DomainError('not_found', `no transaction on the ledger for ${address}`);
    const tx = await this.ledger.getTransaction(toSignature(creation.signature));
    if (!tx) throw new DomainError('not_found', `transaction ${creation.signature} not found on the ledger`);
    let record: LedgerRecord;
    try {
      record = LedgerHistory.recordOf(creation.signature, tx);
    } catch {
      // Not a transaction of this protocol (docs/protocol.md §7: legacy format, no lookup tables): it created nothing
      // the protocol knows, which the deciders refuse as chain_state.
      record = { signature: creation.signature, slot: Number(tx.slot), blockTime: tx.blockTime, feePayer: '', memo: null, err: tx.err };
    }
    return { ...record, historyLength: read };
  }

  /**
   * The member records of `organization` in the history of its `authority` (docs/protocol.md §7.4), oldest first: every
   * signature of the authority newer than `stopAt` (the organization's creation, or the newest member record already
   * applied) is listed, 1,000 a page, and only the successful transactions whose listed memo may hold a member record
   * are read (all of them when the ledger does not report memos). A transaction counts with its first `member` record
   * of this organization; any other in it is ignored. Nothing is skipped: a history that buries a record under many
   * later transactions is read to the end, or refused as a whole.
   * @returns one {@link MemberRecordFacts} per transaction that carries a record naming `organization`, in ledger order.
   * @param scanLimit most signatures listed (default {@link MEMBER_SCAN_LIMIT}).
   * @throws DomainError chain_state (409) when more than `scanLimit` signatures are newer than `stopAt`; the ledger's
   *   error when a listing or a transaction cannot be read.
   */
  async memberRecordsOf(authority: string, organization: string, stopAt: string, scanLimit = MEMBER_SCAN_LIMIT): Promise<MemberRecordFacts[]> {
    const candidates: string[] = [];
    let listed = 0;
    let before: string | undefined;
    for (;;) {
      const page = await this.ledger.getSignaturesForAddress(toAddress(authority), {
        limit: 1000,
        until: toSignature(stopAt),
        ...(before ? { before: toSignature(before) } : {}),
      });
      for (const entry of page) {
        // A listed memo (Solana's `[len] text`) spares reading transfers and other records; null means no memo at all.
        const maybeMember = entry.memo === undefined || (typeof entry.memo === 'string' && entry.memo.includes('svc/1 member '));
        if (entry.err === null && maybeMember) candidates.push(entry.signature);
      }
      listed += page.length;
      if (page.length < 1000) break;
      if (listed >= scanLimit) {
        throw new DomainError('chain_state', `the authority has more than ${scanLimit} transactions since the last member record applied; its members cannot be read`);
      }
      before = page[page.length - 1]!.signature;
    }
    candidates.reverse();
    const records: MemberRecordFacts[] = [];
    for (let i = 0; i < candidates.length; i += FETCH_CONCURRENCY) {
      const read = await Promise.all(candidates.slice(i, i + FETCH_CONCURRENCY).map((signature) => this.memberRecordIn(signature, organization)));
      for (const record of read) if (record) records.push(record);
    }
    return records;
  }

  /** The first member record of `organization` in transaction `signature`, or null (none, unknown, not parsable). */
  private async memberRecordIn(signature: string, organization: string): Promise<MemberRecordFacts | null> {
    const tx = await this.ledger.getTransaction(toSignature(signature));
    if (!tx) return null;
    let parsed;
    try {
      parsed = parseEvidenceTransaction(tx.wire);
    } catch {
      return null; // not a transaction of this protocol
    }
    for (const memo of parsed.memos) {
      const r = memo.record;
      if (r?.kind !== 'member' || r.organization !== organization) continue;
      return {
        signature,
        slot: Number(tx.slot),
        blockTime: tx.blockTime,
        succeeded: tx.err === null,
        signedBy: memo.signerAccounts[0] ?? '',
        organization: r.organization,
        member: r.member,
        roles: r.roles,
        active: r.active,
      };
    }
    return null;
  }

  /**
   * The `ver` records (docs/protocol.md §5) that landed in the history of `authority` (the organization's wallet, which
   * co-signs every version of the organization: §7.2) since a point: every signature newer than `seen` (the newest one
   * a previous call returned), or without it every signature back to `sinceUnix` (Unix seconds; a transaction without
   * a block time counts as recent), listed 1,000 a page and never stopped at a count, so transfers to the wallet
   * cannot bury a publication. Only the successful transactions whose listed memo may hold a version record are read
   * (all of them when the ledger does not report memos).
   * @returns the records, oldest first, each with the transaction's facts, and `newest`: the newest signature listed
   *   (the `seen` of the next call; `seen` again when nothing is newer).
   * @param scanLimit most signatures listed (default {@link CATCH_UP_SCAN_LIMIT}).
   * @param stopAtLimit past `scanLimit`, answer the records of the newest `scanLimit` signatures with `complete: false`
   *   instead of refusing.
   * @throws DomainError chain_state (409) when more than `scanLimit` signatures are newer than the point (unless
   *   `stopAtLimit`); the ledger's error when a listing or a transaction cannot be read (a transaction that is not of
   *   this protocol is skipped).
   */
  async versionRecordsSince(
    authority: string,
    sinceUnix: number,
    seen: string | undefined,
    scanLimit = CATCH_UP_SCAN_LIMIT,
    stopAtLimit = false,
  ): Promise<{ records: { signature: string; slot: number; record: Extract<ProtocolRecord, { kind: 'ver' }>; facts: LedgerTransactionFacts }[]; newest: string | undefined; complete: boolean }> {
    const candidates: string[] = [];
    let newest: string | undefined;
    let complete = true;
    let listed = 0;
    let before: string | undefined;
    for (;;) {
      const page = await this.ledger.getSignaturesForAddress(toAddress(authority), {
        limit: 1000,
        ...(seen ? { until: toSignature(seen) } : {}),
        ...(before ? { before: toSignature(before) } : {}),
      });
      newest ??= page[0]?.signature;
      let older = false;
      for (const entry of page) {
        if (entry.blockTime !== null && entry.blockTime < sinceUnix) {
          older = true;
          break;
        }
        // The memo the listing reports spares reading transactions that hold no version record; null means none.
        const maybeVersion = entry.memo === undefined || (typeof entry.memo === 'string' && entry.memo.includes('svc/1 ver '));
        if (entry.err === null && maybeVersion) candidates.push(entry.signature);
      }
      listed += page.length;
      if (older || page.length < 1000) break;
      if (listed >= scanLimit) {
        if (stopAtLimit) {
          complete = false;
          break;
        }
        throw new DomainError('chain_state', `the organization's wallet has more than ${scanLimit} transactions since the draft was prepared; confirm the publication by its signature`);
      }
      before = page[page.length - 1]!.signature;
    }
    candidates.reverse();
    const records: { signature: string; slot: number; record: Extract<ProtocolRecord, { kind: 'ver' }>; facts: LedgerTransactionFacts }[] = [];
    for (let i = 0; i < candidates.length; i += FETCH_CONCURRENCY) {
      const read = await Promise.all(candidates.slice(i, i + FETCH_CONCURRENCY).map((signature) => this.protocolTransaction(signature)));
      for (const record of read) {
        if (!record) continue;
        const facts = LedgerHistory.factsOf(record);
        if (facts.succeeded && facts.objectSigner && facts.record?.kind === 'ver') records.push({ signature: record.signature, slot: record.slot, record: facts.record, facts });
      }
    }
    return { records, newest: newest ?? seen, complete };
  }

  /** A transaction of this protocol, parsed; null when the ledger does not know it or it is not of this protocol. */
  private async protocolTransaction(signature: string): Promise<LedgerRecord | null> {
    const tx = await this.ledger.getTransaction(toSignature(signature));
    if (!tx) return null;
    try {
      return LedgerHistory.recordOf(signature, tx);
    } catch {
      return null;
    }
  }

  /**
   * One transaction, parsed; null when the ledger does not know it.
   * @throws the ledger's error; Error when the transaction cannot be parsed (not of this protocol).
   */
  async transaction(signature: string): Promise<LedgerRecord | null> {
    const tx = await this.ledger.getTransaction(toSignature(signature));
    return tx ? LedgerHistory.recordOf(signature, tx) : null;
  }

  /** A transaction the ledger returned, parsed. @throws Error when it cannot be parsed (not of this protocol). */
  private static recordOf(signature: string, tx: LedgerTransaction): LedgerRecord {
    const parsed = parseEvidenceTransaction(tx.wire);
    const ours = parsed.memos.find((m) => m.record !== null);
    return {
      signature,
      slot: Number(tx.slot),
      blockTime: tx.blockTime,
      feePayer: parsed.feePayer,
      memo: ours && ours.record ? { record: ours.record, signerAccounts: ours.signerAccounts } : null,
      err: tx.err,
    };
  }

  /**
   * The facts a decider needs from a parsed transaction (libs/domain `LedgerTransactionFacts`): success, the
   * protocol record, the object that co-signed it (the memo's first signer account), and its authority (the second:
   * docs/protocol.md §7.1–7.2), null when the memo has no second signer, so the record names no authority.
   */
  static factsOf(record: LedgerRecord): LedgerTransactionFacts {
    const memo = record.memo;
    const objectSigner = memo?.signerAccounts[0] ?? null;
    return {
      signature: record.signature,
      slot: record.slot,
      blockTime: record.blockTime,
      succeeded: record.err === null,
      record: memo ? protocolRecordOf(memo.record) : null,
      objectSigner,
      actor: memo?.signerAccounts[1] ?? null,
    };
  }
}

function protocolRecordOf(record: MemoRecord): ProtocolRecord {
  switch (record.kind) {
    case 'org':
    case 'doc':
    case 'ver':
    case 'shard':
      return record;
    default:
      return { kind: 'other' };
  }
}
