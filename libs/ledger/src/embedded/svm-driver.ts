/**
 * Thin access layer over a LiteSVM instance working on raw bytes.
 *
 * litesvm's public `sendTransaction` takes a kit `Transaction` and re-encodes it to wire
 * bytes before calling its native binding; the ledger already holds the exact wire bytes, so
 * it calls the native `send{Legacy,Versioned}Transaction(bytes)` directly (~25% cheaper per
 * transaction). If a future litesvm build hides them, the public, kit-typed API is used.
 */
import { address as toAddress, getTransactionDecoder, lamports as toLamports, type Address, type Transaction } from '@solana/kit';
import { Account, FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';
import { encodeBase58, decodeBase58 } from '../internal/base58';

export type SvmOutcome = TransactionMetadata | FailedTransactionMetadata;
/** A successful simulation: its metadata and the accounts it loaded, in their state after it. */
export interface SvmSimulated {
  meta(): TransactionMetadata;
  postAccounts(): { address: Uint8Array; account: RawAccount }[];
}

interface InnerSimulated {
  meta(): TransactionMetadata;
  postAccounts(): { address: Uint8Array; account(): Account }[];
}

interface InnerSvm {
  sendLegacyTransaction(bytes: Uint8Array): SvmOutcome;
  sendVersionedTransaction(bytes: Uint8Array): SvmOutcome;
  simulateLegacyTransaction(bytes: Uint8Array): InnerSimulated | FailedTransactionMetadata;
  simulateVersionedTransaction(bytes: Uint8Array): InnerSimulated | FailedTransactionMetadata;
  getBalance(pubkey: Uint8Array): bigint | null;
  getAccount(pubkey: Uint8Array): Account | null;
  setAccount(pubkey: Uint8Array, account: Account): void;
  setSlotHashes(hashes: { slot: bigint; hash: string }[]): void;
}

export interface RawAccount {
  lamports: bigint;
  data: Uint8Array;
  /** 32-byte owner program id. */
  owner: Uint8Array;
  executable: boolean;
  rentEpoch: bigint;
}

const txDecoder = getTransactionDecoder();

const INNER_METHODS = [
  'sendLegacyTransaction',
  'sendVersionedTransaction',
  'simulateLegacyTransaction',
  'simulateVersionedTransaction',
  'getBalance',
  'getAccount',
  'setAccount',
  'setSlotHashes',
] as const satisfies readonly (keyof InnerSvm)[];

/** Whether LiteSVM's native binding has every method this driver calls on it (else the typed API is used). */
function isInnerSvm(value: unknown): value is InnerSvm {
  return typeof value === 'object' && value !== null && INNER_METHODS.every((m) => typeof Reflect.get(value, m) === 'function');
}

const rawOf = (a: Account): RawAccount => ({ lamports: a.lamports(), data: a.data(), owner: a.owner(), executable: a.executable(), rentEpoch: a.rentEpoch() });

export class SvmDriver {
  private readonly inner: InnerSvm | null;

  constructor(readonly svm: LiteSVM) {
    // LiteSVM keeps its native binding in a field its typings do not declare.
    const inner: unknown = Reflect.get(svm, 'inner');
    this.inner = isInnerSvm(inner) ? inner : null;
  }

  /**
   * Overwrites the SlotHashes sysvar (newest first: slot and base58 hash). A no-op on the typed fallback, whose
   * `SlotHash` entries cannot be made from JavaScript.
   */
  setSlotHashes(hashes: { slot: bigint; hash: string }[]): void {
    this.inner?.setSlotHashes(hashes);
  }

  /** Executes and commits the transaction. */
  send(wire: Uint8Array, version: 'legacy' | 0): SvmOutcome {
    if (this.inner !== null) {
      return version === 'legacy' ? this.inner.sendLegacyTransaction(wire) : this.inner.sendVersionedTransaction(wire);
    }
    return this.svm.sendTransaction(txDecoder.decode(wire) as Transaction);
  }

  /** Executes without committing. */
  simulate(wire: Uint8Array, version: 'legacy' | 0): SvmSimulated | FailedTransactionMetadata {
    if (this.inner !== null) {
      const r = version === 'legacy' ? this.inner.simulateLegacyTransaction(wire) : this.inner.simulateVersionedTransaction(wire);
      if (r instanceof FailedTransactionMetadata) return r;
      return { meta: () => r.meta(), postAccounts: () => r.postAccounts().map((a) => ({ address: a.address, account: rawOf(a.account()) })) };
    }
    const r = this.svm.simulateTransaction(txDecoder.decode(wire) as Transaction);
    if (r instanceof FailedTransactionMetadata) return r;
    return {
      meta: () => r.meta(),
      postAccounts: () =>
        r
          .postAccounts()
          .map((a) => ({
            address: decodeBase58(a.address),
            account: { lamports: a.lamports, data: new Uint8Array(a.data), owner: decodeBase58(a.programAddress), executable: a.executable, rentEpoch: 0n },
          })),
    };
  }

  balance(key: Uint8Array): bigint {
    if (this.inner !== null) return this.inner.getBalance(key) ?? 0n;
    return this.svm.getBalance(toAddress(encodeBase58(key))) ?? 0n;
  }

  account(key: Uint8Array): RawAccount | null {
    if (this.inner !== null) {
      const a = this.inner.getAccount(key);
      return a === null ? null : rawOf(a);
    }
    const a = this.svm.getAccount(toAddress(encodeBase58(key)));
    if (!a.exists) return null;
    return { lamports: a.lamports, data: a.data, owner: decodeBase58(a.programAddress), executable: a.executable, rentEpoch: 0n };
  }

  setAccount(key: Uint8Array, a: RawAccount): void {
    if (this.inner !== null) {
      this.inner.setAccount(key, new Account(a.lamports, a.data, a.owner, a.executable, a.rentEpoch));
      return;
    }
    this.svm.setAccount({
      address: toAddress(encodeBase58(key)) as Address,
      lamports: toLamports(a.lamports),
      data: a.data,
      programAddress: toAddress(encodeBase58(a.owner)),
      executable: a.executable,
      space: BigInt(a.data.length),
    });
  }
}

export { FailedTransactionMetadata };
