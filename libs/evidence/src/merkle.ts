/**
 * Merkle hash trees of RFC 6962 §2.1 (Certificate Transparency; same algorithms in RFC 9162 §2.1): the tree over an
 * ordered list of leaves, audit paths (inclusion proofs) and their verification. Hashes are 32-byte SHA-256 digests,
 * written as lower-case hex at the API boundary (docs/protocol.md "Merkle tree").
 *
 * - leaf hash: `SHA-256(0x00 ‖ leaf)`;
 * - node hash: `SHA-256(0x01 ‖ left ‖ right)`;
 * - a list of n > 1 leaves splits at k, the largest power of two smaller than n: the left subtree holds the first k.
 *
 * The empty tree (the hash of the empty string) is never anchored: a batch holds at least one leaf.
 */
import { createHash } from 'node:crypto';
import { FieldError } from './errors';
import { HEX64 } from './validation';

const LEAF_PREFIX = Buffer.of(0x00);
const NODE_PREFIX = Buffer.of(0x01);

/** `SHA-256(0x00 ‖ leaf)`, lower-case hex (RFC 6962 §2.1). */
export function merkleLeafHash(leaf: Uint8Array): string {
  return createHash('sha256').update(LEAF_PREFIX).update(leaf).digest('hex');
}

/** `SHA-256(0x01 ‖ left ‖ right)` of two hex hashes, lower-case hex (RFC 6962 §2.1). */
export function merkleNodeHash(left: string, right: string): string {
  return createHash('sha256').update(NODE_PREFIX).update(Buffer.from(left, 'hex')).update(Buffer.from(right, 'hex')).digest('hex');
}

/** The largest power of two strictly smaller than `n` (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function assertLeafHashes(leafHashes: readonly string[]): void {
  if (leafHashes.length === 0) throw new FieldError('a Merkle tree needs at least one leaf');
  for (const h of leafHashes) if (typeof h !== 'string' || !HEX64.test(h)) throw new FieldError('leaf hashes must be 64 lower-case hex characters');
}

/**
 * Merkle tree hash (MTH) of RFC 6962 §2.1 over the given leaf hashes, in order.
 * @param leafHashes hex leaf hashes ({@link merkleLeafHash}), at least one.
 * @throws FieldError when the list is empty or a hash is not 64 lower-case hex characters.
 */
export function merkleRoot(leafHashes: readonly string[]): string {
  assertLeafHashes(leafHashes);
  // Bottom-up: pairing neighbours level by level and carrying an odd last node up unchanged gives RFC 6962's
  // split at the largest power of two (the left subtrees are always complete).
  let level = [...leafHashes];
  while (level.length > 1) {
    const next: string[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) next.push(merkleNodeHash(level[i]!, level[i + 1]!));
    if (level.length % 2 === 1) next.push(level[level.length - 1]!);
    level = next;
  }
  return level[0]!;
}

/**
 * Audit path PATH(m, D[n]) of RFC 6962 §2.1.1 for leaf `index`: the sibling hashes from the leaf up to the root.
 * @throws FieldError when `index` is not a leaf of the list, or a hash is malformed.
 */
export function merkleInclusionProof(leafHashes: readonly string[], index: number): string[] {
  assertLeafHashes(leafHashes);
  if (!Number.isSafeInteger(index) || index < 0 || index >= leafHashes.length) throw new FieldError(`leaf index ${index} is outside 0..${leafHashes.length - 1}`);
  const path: string[] = [];
  const walk = (from: number, to: number, m: number): void => {
    const n = to - from;
    if (n === 1) return;
    const k = splitPoint(n);
    if (m < k) {
      walk(from, from + k, m);
      path.push(subtreeRoot(leafHashes, from + k, to));
    } else {
      walk(from + k, to, m - k);
      path.push(subtreeRoot(leafHashes, from, from + k));
    }
  };
  walk(0, leafHashes.length, index);
  return path;
}

function subtreeRoot(leafHashes: readonly string[], from: number, to: number): string {
  return merkleRoot(leafHashes.slice(from, to));
}

/**
 * The root an inclusion proof leads to (RFC 9162 §2.1.3.2, the verification of RFC 6962 audit paths), or null when
 * the proof cannot belong to a tree of `size` leaves (wrong length, index out of range, malformed hash).
 * @param leafHash hex leaf hash of the leaf at `index`.
 * @param index 0-based leaf index.
 * @param size number of leaves of the tree.
 * @param proof sibling hashes, leaf first.
 */
export function merkleRootFromProof(leafHash: string, index: number, size: number, proof: readonly string[]): string | null {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return null;
  if (typeof leafHash !== 'string' || !HEX64.test(leafHash) || !Array.isArray(proof)) return null;
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of proof) {
    if (typeof p !== 'string' || !HEX64.test(p) || sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = merkleNodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = merkleNodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : null;
}

/** Whether `proof` shows leaf `leafHash` at `index` in the tree of `size` leaves whose root is `root`. */
export function verifyMerkleInclusion(leafHash: string, index: number, size: number, proof: readonly string[], root: string): boolean {
  return merkleRootFromProof(leafHash, index, size, proof) === root;
}
