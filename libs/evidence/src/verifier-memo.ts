/**
 * What a verifier may keep between receipts checked against one ledger, because it cannot change: the ledger's
 * genesis hash, transactions the ledger reports `finalized` (a finalized slot is never rolled back), the creation
 * record of an address whose oldest transaction is finalized (no later transaction can land before it), and the
 * content hash of a document text (a pure function of the text). Every check still runs on every receipt; only
 * these reads and hashes are served from memory. docs/protocol.md "Receipt verification".
 *
 * One memo per ledger: a memo filled from one network must not serve another (the genesis hash would lie).
 */
import { LRUCache } from 'lru-cache';
import type { LedgerTransaction } from '@svc/ledger';
import { canonicalContent, contentHash } from './content';

/** A recorded creation (see verifier-registrations), kept as the registration check found it. */
export interface MemoizedCreation {
  signature: string;
  record: unknown;
  authority: string;
}

export interface VerifierMemoOptions {
  /** Finalized transactions kept (default 10,000). */
  transactions?: number;
  /** Creation records kept (default 10,000). */
  creations?: number;
  /** Total characters of document texts whose hash is kept (default 16 Mi, about 32 MiB). */
  textCharacters?: number;
}

export class VerifierMemo {
  private genesis: string | null = null;
  private readonly transactions: LRUCache<string, LedgerTransaction>;
  private readonly creations: LRUCache<string, MemoizedCreation>;
  private readonly hashes: LRUCache<string, string>;

  constructor(options: VerifierMemoOptions = {}) {
    this.transactions = new LRUCache({ max: options.transactions ?? 10_000 });
    this.creations = new LRUCache({ max: options.creations ?? 10_000 });
    this.hashes = new LRUCache({ maxSize: options.textCharacters ?? 16 * 1024 * 1024, sizeCalculation: (_hash, text) => Math.max(1, text.length) });
  }

  /** The genesis hash, read once. */
  async genesisHash(read: () => Promise<string>): Promise<string> {
    this.genesis ??= await read();
    return this.genesis;
  }

  /** A transaction by signature: from memory when it was seen finalized, else read (and kept once finalized). */
  async transaction(signature: string, read: () => Promise<LedgerTransaction | null>): Promise<LedgerTransaction | null> {
    const known = this.transactions.get(signature);
    if (known) return known;
    const tx = await read();
    if (tx && tx.confirmationStatus === 'finalized') this.transactions.set(signature, tx);
    return tx;
  }

  /** The creation of `address` as `kind`, when one was kept. */
  creation(kind: string, address: string): MemoizedCreation | undefined {
    return this.creations.get(`${kind}:${address}`);
  }

  /** Keeps a creation whose transaction is finalized; others are read again next time. */
  keepCreation(kind: string, address: string, creation: MemoizedCreation, tx: LedgerTransaction): void {
    if (tx.confirmationStatus === 'finalized') this.creations.set(`${kind}:${address}`, creation);
  }

  /**
   * `contentHash(canonicalContent(text))`, computed once per text.
   * @throws Error from canonicalContent when the text cannot be canonicalized (never kept).
   */
  contentHashOf(text: string): string {
    const known = this.hashes.get(text);
    if (known !== undefined) return known;
    const hash = contentHash(canonicalContent(text));
    this.hashes.set(text, hash);
    return hash;
  }
}
