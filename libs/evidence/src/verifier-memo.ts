/**
 * What a verifier may keep between receipts checked against one ledger, because it cannot change: the ledger's
 * genesis hash, transactions the ledger reports `finalized` (a finalized slot is never rolled back), the creation
 * record of an address whose oldest transaction is finalized (no later transaction can land before it), and the
 * results of pure functions over the exact inputs: the content hash of a document text, the decoding of a kept
 * transaction's bytes, and the strict Ed25519 verdict on an exact (signer, message, signature) triple (a signature
 * cache: a different byte anywhere is another key, so nothing is ever taken for verified that was not). Every check
 * still runs on every receipt; only these reads and computations are served from memory. docs/protocol.md
 * "Receipt verification".
 *
 * One memo per ledger: a memo filled from one network must not serve another (the genesis hash would lie).
 */
import { LRUCache } from 'lru-cache';
import type { LedgerTransaction } from '@svc/ledger';
import { canonicalContent, contentHash } from './content';
import type { SignatureRefusal } from './signatures';
import type { EvidenceTransaction } from './transactions';

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
  /** Signature verdicts kept (default 16,384; a key is about 600 characters, so about 20 MiB at most). */
  signatures?: number;
}

export class VerifierMemo {
  private genesis: string | null = null;
  private readonly transactions: LRUCache<string, LedgerTransaction>;
  private readonly creations: LRUCache<string, MemoizedCreation>;
  private readonly hashes: LRUCache<string, string>;
  private readonly verdicts: LRUCache<string, { refusal: SignatureRefusal | null }>;
  /** Decodings of transactions, by the very object this memo hands out (so only of kept ones, in practice). */
  private readonly decoded = new WeakMap<LedgerTransaction, EvidenceTransaction | Error>();

  constructor(options: VerifierMemoOptions = {}) {
    this.transactions = new LRUCache({ max: options.transactions ?? 10_000 });
    this.creations = new LRUCache({ max: options.creations ?? 10_000 });
    this.hashes = new LRUCache({ maxSize: options.textCharacters ?? 16 * 1024 * 1024, sizeCalculation: (_hash, text) => Math.max(1, text.length) });
    this.verdicts = new LRUCache({ max: options.signatures ?? 16_384 });
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

  /**
   * The strict Ed25519 verdict on this exact triple, computed once: `verify` runs when the triple was not seen.
   * @param signer base58 public key; @param message the signed text; @param signature base58 signature, as the
   *   receipt carries them (the bytes verified are a function of these strings).
   * @returns null when valid, else the refusal `verify` gave.
   */
  signatureVerdict(signer: string, message: string, signature: string, verify: () => SignatureRefusal | null): SignatureRefusal | null {
    // Length-prefixed, so no two different triples (whatever characters a forged receipt puts in them) share a key.
    const key = `${signer.length}:${signature.length}:${signer}${signature}${message}`;
    const known = this.verdicts.get(key);
    if (known) return known.refusal;
    const refusal = verify();
    this.verdicts.set(key, { refusal });
    return refusal;
  }

  /**
   * The decoding of `tx`'s bytes, computed once per transaction object (the kept finalized ones are handed out
   * as the same object every time).
   * @throws the Error `decode` threw, again on every call.
   */
  decodedTransaction(tx: LedgerTransaction, decode: (wire: LedgerTransaction['wire']) => EvidenceTransaction): EvidenceTransaction {
    let known = this.decoded.get(tx);
    if (known === undefined) {
      try {
        known = decode(tx.wire);
      } catch (error) {
        known = error instanceof Error ? error : new Error(String(error));
      }
      this.decoded.set(tx, known);
    }
    if (known instanceof Error) throw known;
    return known;
  }
}
