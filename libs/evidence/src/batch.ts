/**
 * Batched evidence (`MERKLE_BATCHED`): the leaf of an acceptance, a batch's Merkle root and inclusion proofs, the fee
 * share of each acceptance, and the batch manifest `svc-batch-manifest/1` (docs/protocol.md "Batched evidence").
 *
 * A leaf is the RFC 8785 canonical JSON (UTF-8) of the acceptance's evidence:
 * `{"acceptanceId":…,"message":…,"signature":…,"signer":…,"versionAddress":…}`. The signer's Ed25519 signature is
 * inside the leaf, so it is checked off the ledger (strictly, docs/protocol.md §13); the ledger only records the root.
 */
import canonicalize from 'canonicalize';
import { acceptanceIdOf } from './acceptance-message';
import { BATCH_MANIFEST_FORMAT, MEMO_PROGRAM_ADDRESS } from './constants';
import { FieldError } from './errors';
import { BATCH_MAX_LANE, BATCH_MAX_SIZE } from './memo';
import { merkleInclusionProof, merkleLeafHash, merkleRoot } from './merkle';
import {
  CHAIN_ID,
  HEX64,
  hasExactKeys,
  isBase58Address,
  isBase58Signature,
  isNonNegativeInteger,
  isPlainObject,
  isText,
} from './validation';

/** What a leaf commits to: the signed message, who signed it, the signature, the version and the acceptance ID. */
export interface BatchLeafEvidence {
  /** Lower-case hex acceptance ID of `message` (docs/protocol.md §4.2). */
  acceptanceId: string;
  /** The exact signed `svc/1` acceptance message. */
  message: string;
  /** Base58 of the signer's 64-byte Ed25519 signature over the UTF-8 message. */
  signature: string;
  /** Base58 address of the signer. */
  signer: string;
  /** Base58 address of the accepted version. */
  versionAddress: string;
}

/** The network, as receipts name it. */
export interface NetworkRef {
  chainId: string;
  label: string;
  programId: string;
}

/** Where a batch sits: its lane, number within the lane, leaf count and Merkle root (the `batch` memo's fields). */
export interface BatchRef {
  lane: number;
  sequence: number;
  size: number;
  root: string;
}

/** The manifest of an anchored batch: every leaf's evidence in tree order, the root and the anchoring transaction. */
export interface BatchManifestV1 {
  format: typeof BATCH_MANIFEST_FORMAT;
  network: NetworkRef;
  batch: BatchRef;
  transaction: {
    /** Base58 signature of the anchoring transaction. */
    signature: string;
    slot: number;
    /** Unix seconds, or null when the ledger did not know it. */
    blockTime: number | null;
    /** Base58 address of the fee payer and only signer (the service's relayer). */
    feePayer: string;
    /** Network fee of the anchoring transaction, in lamports. */
    feeLamports: number;
  };
  /** Leaves in tree order; `index` is the leaf's position (0-based), `leafHash` its RFC 6962 leaf hash. */
  leaves: Array<BatchLeafEvidence & { index: number; leafHash: string }>;
}

const utf8 = new TextEncoder();

/**
 * The leaf bytes of an acceptance: UTF-8 of the RFC 8785 canonical JSON of its evidence (exactly the five keys).
 * @throws FieldError when a field is not a string.
 */
export function batchLeafBytes(evidence: BatchLeafEvidence): Uint8Array {
  const { acceptanceId, message, signature, signer, versionAddress } = evidence;
  for (const [name, v] of Object.entries({ acceptanceId, message, signature, signer, versionAddress })) {
    if (typeof v !== 'string') throw new FieldError(`leaf ${name} must be a string`);
  }
  return utf8.encode(canonicalize({ acceptanceId, message, signature, signer, versionAddress }) as string);
}

/** RFC 6962 leaf hash `SHA-256(0x00 ‖ leaf bytes)` of an acceptance, lower-case hex. @throws FieldError */
export function batchLeafHash(evidence: BatchLeafEvidence): string {
  return merkleLeafHash(batchLeafBytes(evidence));
}

/** A closed batch: its leaf hashes in order and its root. @throws FieldError for 0 or more than 1,024 leaves. */
export function batchTree(leaves: readonly BatchLeafEvidence[]): { leafHashes: string[]; root: string } {
  if (leaves.length < 1 || leaves.length > BATCH_MAX_SIZE) throw new FieldError(`a batch holds 1 to ${BATCH_MAX_SIZE} acceptances`);
  const leafHashes = leaves.map(batchLeafHash);
  return { leafHashes, root: merkleRoot(leafHashes) };
}

/** The inclusion proof of leaf `index` among `leafHashes` (RFC 6962 audit path). @throws FieldError */
export function batchInclusionProof(leafHashes: readonly string[], index: number): string[] {
  return merkleInclusionProof(leafHashes, index);
}

/**
 * The share of the anchoring fee charged to the acceptance at `leafIndex` (spec §8: the fee divided by the batch
 * size; docs/protocol.md §7.7), in lamports: `floor(fee / size)`, plus one for the first `fee mod size` leaves, so
 * that the shares of a batch add up to its fee exactly (5,000 over 3 leaves: 1,667, 1,667 and 1,666).
 * @throws FieldError when `size` is not 1..1024, `leafIndex` not 0..size-1, or the fee not a non-negative integer.
 */
export function batchFeeShare(feeLamports: number, size: number, leafIndex: number): number {
  if (!isNonNegativeInteger(feeLamports)) throw new FieldError('feeLamports must be a non-negative integer');
  if (!Number.isSafeInteger(size) || size < 1 || size > BATCH_MAX_SIZE) throw new FieldError(`size must be 1 to ${BATCH_MAX_SIZE}`);
  if (!Number.isSafeInteger(leafIndex) || leafIndex < 0 || leafIndex >= size) throw new FieldError(`leafIndex must be 0 to ${size - 1}`);
  return Math.floor(feeLamports / size) + (leafIndex < feeLamports % size ? 1 : 0);
}

/** Shape problems of a leaf's evidence (empty when well-formed); `path` prefixes each problem. */
export function leafEvidenceProblems(value: Record<string, unknown>, path: string): string[] {
  const problems: string[] = [];
  if (typeof value.acceptanceId !== 'string' || !HEX64.test(value.acceptanceId)) problems.push(`${path}.acceptanceId: must be 64 lower-case hex characters`);
  if (typeof value.message !== 'string' || value.message.length === 0) problems.push(`${path}.message: must be a non-empty string`);
  if (!isBase58Signature(value.signature)) problems.push(`${path}.signature: must be a base58 64-byte signature`);
  if (!isBase58Address(value.signer)) problems.push(`${path}.signer: must be a base58 address`);
  if (!isBase58Address(value.versionAddress)) problems.push(`${path}.versionAddress: must be a base58 address`);
  return problems;
}

/** Shape problems of `{lane, sequence, size, root}` (empty when well-formed). */
export function batchRefProblems(value: Record<string, unknown>, path: string): string[] {
  const problems: string[] = [];
  const { lane, sequence, size, root } = value;
  if (!Number.isSafeInteger(lane) || (lane as number) < 0 || (lane as number) > BATCH_MAX_LANE) problems.push(`${path}.lane: must be an integer from 0 to ${BATCH_MAX_LANE}`);
  if (!Number.isSafeInteger(sequence) || (sequence as number) < 1) problems.push(`${path}.sequence: must be a positive integer`);
  if (!Number.isSafeInteger(size) || (size as number) < 1 || (size as number) > BATCH_MAX_SIZE) problems.push(`${path}.size: must be an integer from 1 to ${BATCH_MAX_SIZE}`);
  if (typeof root !== 'string' || !HEX64.test(root)) problems.push(`${path}.root: must be 64 lower-case hex characters`);
  return problems;
}

/** Shape problems of `{chainId, label, programId}` (empty when well-formed). */
export function networkProblems(value: Record<string, unknown>, path: string): string[] {
  const problems: string[] = [];
  if (typeof value.chainId !== 'string' || !CHAIN_ID.test(value.chainId)) problems.push(`${path}.chainId: must be "solana:" followed by 32 base58 characters`);
  if (!isText(value.label, 1, 64)) problems.push(`${path}.label: must be 1 to 64 characters`);
  if (value.programId !== MEMO_PROGRAM_ADDRESS) problems.push(`${path}.programId: must be the Memo program ${MEMO_PROGRAM_ADDRESS}`);
  return problems;
}

/**
 * The manifest as served (docs/protocol.md §7.7): RFC 8785 canonical JSON, so that its bytes are the same whoever
 * serializes the same manifest (keys sorted at every level, numbers and strings in their one canonical form).
 * @throws Error naming every problem of {@link batchManifestProblems} when the manifest does not hold together.
 */
export function serializeBatchManifest(manifest: BatchManifestV1): string {
  const problems = batchManifestProblems(manifest);
  if (problems.length > 0) throw new Error(`invalid batch manifest: ${problems.join('; ')}`);
  return canonicalize(manifest) as string;
}

/**
 * Checks a manifest without the ledger: the shape, every leaf's acceptance ID (hash of its message) and leaf hash,
 * the leaf count, and the root recomputed from the leaves. Signatures and the anchoring transaction are the
 * verifier's part (a receipt per leaf).
 * @returns every problem found; empty when the manifest holds together.
 */
export function batchManifestProblems(value: unknown): string[] {
  if (!isPlainObject(value) || !hasExactKeys(value, ['format', 'network', 'batch', 'transaction', 'leaves'])) {
    return ['manifest: must have exactly the keys format, network, batch, transaction, leaves'];
  }
  const problems: string[] = [];
  if (value.format !== BATCH_MANIFEST_FORMAT) problems.push(`format: must be "${BATCH_MANIFEST_FORMAT}"`);
  const { network, batch, transaction, leaves } = value;
  if (isPlainObject(network) && hasExactKeys(network, ['chainId', 'label', 'programId'])) problems.push(...networkProblems(network, 'network'));
  else problems.push('network: must have exactly the keys chainId, label, programId');
  const ref = isPlainObject(batch) && hasExactKeys(batch, ['lane', 'sequence', 'size', 'root']) ? batch : null;
  if (ref) problems.push(...batchRefProblems(ref, 'batch'));
  else problems.push('batch: must have exactly the keys lane, sequence, size, root');
  if (!isPlainObject(transaction) || !hasExactKeys(transaction, ['signature', 'slot', 'blockTime', 'feePayer', 'feeLamports'])) {
    problems.push('transaction: must have exactly the keys signature, slot, blockTime, feePayer, feeLamports');
  } else {
    if (!isBase58Signature(transaction.signature)) problems.push('transaction.signature: must be a base58 64-byte signature');
    if (!isNonNegativeInteger(transaction.slot)) problems.push('transaction.slot: must be a non-negative integer');
    if (transaction.blockTime !== null && !isNonNegativeInteger(transaction.blockTime)) problems.push('transaction.blockTime: must be unix seconds or null');
    if (!isBase58Address(transaction.feePayer)) problems.push('transaction.feePayer: must be a base58 address');
    if (!isNonNegativeInteger(transaction.feeLamports)) problems.push('transaction.feeLamports: must be a non-negative integer');
  }
  if (!Array.isArray(leaves) || leaves.length < 1 || leaves.length > BATCH_MAX_SIZE) {
    problems.push(`leaves: must be a list of 1 to ${BATCH_MAX_SIZE} leaves`);
    return problems;
  }
  const hashes: string[] = [];
  leaves.forEach((leaf: unknown, i) => {
    const path = `leaves[${i}]`;
    if (!isPlainObject(leaf) || !hasExactKeys(leaf, ['index', 'leafHash', 'acceptanceId', 'message', 'signature', 'signer', 'versionAddress'])) {
      problems.push(`${path}: must have exactly the keys index, leafHash, acceptanceId, message, signature, signer, versionAddress`);
      return;
    }
    const shape = leafEvidenceProblems(leaf, path);
    problems.push(...shape);
    if (leaf.index !== i) problems.push(`${path}.index: must be ${i}`);
    if (shape.length > 0) return;
    // The fields are strings: leafEvidenceProblems found none wrong.
    const evidence: BatchLeafEvidence = {
      acceptanceId: String(leaf.acceptanceId),
      message: String(leaf.message),
      signature: String(leaf.signature),
      signer: String(leaf.signer),
      versionAddress: String(leaf.versionAddress),
    };
    if (acceptanceIdOf(evidence.message) !== evidence.acceptanceId) problems.push(`${path}.acceptanceId: is not the hash of the message`);
    const hash = batchLeafHash(evidence);
    if (hash !== leaf.leafHash) problems.push(`${path}.leafHash: the leaf hashes to ${hash}`);
    hashes.push(hash);
  });
  if (ref && problems.length === 0) {
    if (ref.size !== leaves.length) problems.push(`batch.size: ${String(ref.size)} but ${leaves.length} leaves`);
    const root = merkleRoot(hashes);
    if (root !== ref.root) problems.push(`batch.root: the leaves give ${root}`);
  }
  return problems;
}
