import { createHash } from 'node:crypto';
import { merkleInclusionProof, merkleLeafHash, merkleNodeHash, merkleRoot, merkleRootFromProof, verifyMerkleInclusion } from './merkle';

const sha = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest('hex');
/** RFC 6962 §2.1 MTH written as the RFC states it (recursive split at the largest power of two below n). */
function referenceRoot(leaves: Buffer[]): string {
  if (leaves.length === 1) return sha(Buffer.of(0), leaves[0]!);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha(Buffer.of(1), Buffer.from(referenceRoot(leaves.slice(0, k)), 'hex'), Buffer.from(referenceRoot(leaves.slice(k)), 'hex'));
}
const leavesOf = (n: number) => Array.from({ length: n }, (_, i) => Buffer.from(`leaf ${i}`));

describe('RFC 6962 Merkle tree', () => {
  it('hashes a leaf with the 0x00 prefix and a node with the 0x01 prefix', () => {
    // SHA-256 of the single byte 0x00: the leaf hash of the empty leaf, as in Certificate Transparency logs.
    expect(merkleLeafHash(new Uint8Array())).toBe('6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
    const a = merkleLeafHash(Buffer.from('a'));
    const b = merkleLeafHash(Buffer.from('b'));
    expect(merkleNodeHash(a, b)).toBe(sha(Buffer.of(1), Buffer.from(a, 'hex'), Buffer.from(b, 'hex')));
    expect(merkleNodeHash(a, b)).not.toBe(merkleNodeHash(b, a));
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 17, 31, 100])('root of %i leaves equals the recursive definition (split at the largest power of two)', (n) => {
    const leaves = leavesOf(n);
    expect(merkleRoot(leaves.map((l) => merkleLeafHash(l)))).toBe(referenceRoot(leaves));
  });

  it.each([1, 2, 3, 5, 7, 8, 11, 33])('every leaf of a tree of %i proves its inclusion, with a path no longer than ceil(log2 n)', (n) => {
    const hashes = leavesOf(n).map((l) => merkleLeafHash(l));
    const root = merkleRoot(hashes);
    for (let i = 0; i < n; i++) {
      const proof = merkleInclusionProof(hashes, i);
      expect(proof.length).toBeLessThanOrEqual(Math.ceil(Math.log2(n)));
      expect(verifyMerkleInclusion(hashes[i]!, i, n, proof, root)).toBe(true);
    }
  });

  it('a 1,024-leaf batch has 10-hash proofs', () => {
    const hashes = leavesOf(1024).map((l) => merkleLeafHash(l));
    const proof = merkleInclusionProof(hashes, 777);
    expect(proof).toHaveLength(10);
    expect(verifyMerkleInclusion(hashes[777]!, 777, 1024, proof, merkleRoot(hashes))).toBe(true);
  });

  it('refuses a proof for another index, another size, a changed hash, a truncated or extended path', () => {
    const hashes = leavesOf(7).map((l) => merkleLeafHash(l));
    const root = merkleRoot(hashes);
    const proof = merkleInclusionProof(hashes, 4);
    expect(verifyMerkleInclusion(hashes[4]!, 5, 7, proof, root)).toBe(false);
    expect(verifyMerkleInclusion(hashes[4]!, 4, 6, proof, root)).toBe(false);
    expect(verifyMerkleInclusion(hashes[3]!, 4, 7, proof, root)).toBe(false);
    expect(verifyMerkleInclusion(hashes[4]!, 4, 7, proof.slice(1), root)).toBe(false);
    expect(verifyMerkleInclusion(hashes[4]!, 4, 7, [...proof, proof[0]!], root)).toBe(false);
    const flipped = [...proof];
    flipped[0] = flipped[0]!.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    expect(verifyMerkleInclusion(hashes[4]!, 4, 7, flipped, root)).toBe(false);
    expect(merkleRootFromProof(hashes[4]!, 7, 7, proof)).toBeNull();
    expect(merkleRootFromProof('XYZ', 4, 7, proof)).toBeNull();
  });

  it('an interior node cannot pass for a leaf (second-preimage resistance of the prefixes)', () => {
    const hashes = leavesOf(2).map((l) => merkleLeafHash(l));
    // A leaf whose bytes are the two children's hashes does not hash to their parent node.
    const forged = Buffer.concat([Buffer.from(hashes[0]!, 'hex'), Buffer.from(hashes[1]!, 'hex')]);
    expect(merkleLeafHash(forged)).not.toBe(merkleRoot(hashes));
    expect(merkleRoot([merkleLeafHash(forged)])).not.toBe(merkleRoot(hashes));
  });

  it('refuses an empty tree and an index outside the tree', () => {
    expect(() => merkleRoot([])).toThrow('at least one leaf');
    expect(() => merkleInclusionProof([merkleLeafHash(Buffer.from('x'))], 1)).toThrow('outside');
  });
});
