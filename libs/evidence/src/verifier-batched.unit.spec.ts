import { acceptanceIdOf } from './acceptance-message';
import { batchFeeShare, batchManifestProblems, batchTree } from './batch';
import { BATCH_MANIFEST_FORMAT, MEMO_PROGRAM_ADDRESS } from './constants';
import { parseReceipt, receiptProblems, serializeReceipt, type AcceptanceReceiptV2 } from './receipt';
import { buildBatchAnchorTransaction } from './transactions';
import { buildBatchedWorld, WORLD_ACCEPTANCE_BLOCK_TIME, type BatchedWorld } from './testing/world';
import { filledSeed, signerFromSeed } from './testing/keys';
import { VERIFIER_CHECKS_V2, verifyReceipt, type VerificationReport } from './verifier';

const now = new Date('2026-11-23T00:00:00Z');
const clone = (r: AcceptanceReceiptV2): AcceptanceReceiptV2 => JSON.parse(JSON.stringify(r));
const status = (report: VerificationReport, id: string) => report.checks.find((c) => c.id === id)?.status;
const failed = (report: VerificationReport) => report.checks.filter((c) => c.status === 'fail').map((c) => c.id);

describe('verifyReceipt, svc-receipt/2 (batched evidence)', () => {
  let world: BatchedWorld;
  beforeEach(async () => {
    world = await buildBatchedWorld();
  });

  it('VALID for an honest batched receipt, with the v2 checks in order', async () => {
    const report = await verifyReceipt(serializeReceipt(world.receiptV2), world.ledger, { now });
    expect(report.checks.map((c) => c.id)).toEqual(VERIFIER_CHECKS_V2.map((c) => c.id));
    expect(report.checks.filter((c) => c.status !== 'pass')).toEqual([]);
    expect(report.verdict).toBe('VALID');
    expect(parseReceipt(serializeReceipt(world.receiptV2))).toEqual(world.receiptV2);
  });

  it('INVALID when the proof is altered, or names another leaf', async () => {
    const r = clone(world.receiptV2);
    r.batch.proof[1] = r.batch.proof[1]!.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'));
    expect(failed(await verifyReceipt(r, world.ledger, { now }))).toEqual(['batch.inclusion']);
    const moved = clone(world.receiptV2);
    moved.batch.leafIndex = 2;
    expect(failed(await verifyReceipt(moved, world.ledger, { now }))).toEqual(['batch.inclusion']);
  });

  it('INVALID when the signature was replaced: the signer check fails offline and the leaf is another one', async () => {
    const r = clone(world.receiptV2);
    r.acceptance.signature = world.receipt.transaction.signature;
    const report = await verifyReceipt(r, world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(failed(report)).toEqual(['acceptance.signature', 'batch.inclusion']);
  });

  it('INVALID when the receipt claims a root the anchor does not record', async () => {
    const other = batchTree([{ acceptanceId: world.receiptV2.acceptanceId, message: world.message, signature: world.receiptV2.acceptance.signature, signer: world.signer.address, versionAddress: world.addresses.version }]);
    const r = clone(world.receiptV2);
    r.batch = { ...r.batch, size: 1, leafIndex: 0, root: other.root, leafHash: other.leafHashes[0]!, proof: [] };
    r.fees.lamports = 5000;
    const report = await verifyReceipt(r, world.ledger, { now });
    expect(failed(report)).toEqual(['transaction.anchor']);
    expect(report.checks.find((c) => c.id === 'transaction.anchor')?.detail).toContain('root: memo has');
  });

  it('warns when another key anchored the same root: the evidence holds (signatures are in the leaves), the fee payer differs', async () => {
    const impostor = await signerFromSeed(filledSeed(0x55));
    const { root, size, lane, sequence } = world.receiptV2.batch;
    const tx = await buildBatchAnchorTransaction({ operator: impostor, lane, sequence, size, root, lifetime: world.lifetime });
    world.ledger.add(tx, { slot: 5000n, blockTime: WORLD_ACCEPTANCE_BLOCK_TIME, fee: 5000n });
    const r = clone(world.receiptV2);
    r.transaction.signature = tx.signature;
    const report = await verifyReceipt(r, world.ledger, { now });
    expect(report.verdict).toBe('VALID_WITH_WARNINGS');
    expect(status(report, 'transaction.fee-payer')).toBe('warn');
  });

  it('the fee shares of a batch add up to its fee exactly (the remainder one lamport each to the first leaves); another figure warns', async () => {
    expect(world.receiptV2.fees.lamports).toBe(1000);
    expect([0, 1, 2].map((i) => batchFeeShare(5000, 3, i))).toEqual([1667, 1667, 1666]);
    // 5,000 = 4 × 1,024 + 904: the first 904 leaves pay 5 lamports, the other 120 pay 4.
    const shares = Array.from({ length: 1024 }, (_, i) => batchFeeShare(5000, 1024, i));
    expect(shares.reduce((a, b) => a + b, 0)).toBe(5000);
    expect([shares[0], shares[903], shares[904], shares[1023]]).toEqual([5, 5, 4, 4]);
    expect(batchFeeShare(5000, 1, 0)).toBe(5000);
    expect(() => batchFeeShare(5000, 3, 3)).toThrow(/leafIndex/);
    const r = clone(world.receiptV2);
    r.fees.lamports = 5000;
    const report = await verifyReceipt(r, world.ledger, { now });
    expect(report.verdict).toBe('VALID_WITH_WARNINGS');
    expect(report.checks.find((c) => c.id === 'transaction.fee-payer')?.detail).toContain('fee is 1000 lamports, the receipt says 5000');
  });

  it('INVALID (format only) for a v2 receipt without its proof, or with a v1 receipt\'s shape', async () => {
    const { batch: _batch, ...withoutBatch } = clone(world.receiptV2);
    const report = await verifyReceipt(withoutBatch, world.ledger, { now });
    expect(failed(report)).toEqual(['receipt.format']);
    expect(receiptProblems({ ...world.receiptV2, evidenceMode: 'DIRECT_ONCHAIN' })).toEqual(['evidenceMode: must be "MERKLE_BATCHED"']);
  });

  it('INCONCLUSIVE when the ledger is unreachable, after the offline inclusion check passed', async () => {
    world.ledger.failWith = new Error('connection refused');
    const report = await verifyReceipt(world.receiptV2, world.ledger, { now });
    expect(report.verdict).toBe('INCONCLUSIVE');
    expect(status(report, 'batch.inclusion')).toBe('pass');
  });

  it('a manifest holds together when its leaves recompute the root, and names the first leaf that does not', () => {
    const r = world.receiptV2;
    const leaves = [0, 1, 2, 3, 4].map((index) => ({ index, leafHash: world.leafHashes[index]!, ...leafOf(world, index) }));
    const manifest = {
      format: BATCH_MANIFEST_FORMAT,
      network: { chainId: world.chainId, label: 'localnet', programId: MEMO_PROGRAM_ADDRESS },
      batch: { lane: r.batch.lane, sequence: r.batch.sequence, size: r.batch.size, root: r.batch.root },
      transaction: { signature: r.transaction.signature, slot: 5000, blockTime: WORLD_ACCEPTANCE_BLOCK_TIME, feePayer: r.fees.payer, feeLamports: 5000 },
      leaves,
    };
    expect(batchManifestProblems(manifest)).toEqual([]);
    const tampered = JSON.parse(JSON.stringify(manifest));
    tampered.leaves[2].signer = world.addresses.authority;
    expect(batchManifestProblems(tampered)).toEqual([`leaves[2].leafHash: the leaf hashes to ${batchTree([{ ...tampered.leaves[2] }]).leafHashes[0]}`]);
    expect(batchManifestProblems({ ...manifest, leaves: leaves.slice(0, 4) })[0]).toBe('batch.size: 5 but 4 leaves');
  });
});

function leafOf(world: BatchedWorld, index: number) {
  const nonce = [1, 2, 3, null, 4][index];
  const message = nonce === null ? world.message : world.message.replace('nonce: 0', `nonce: ${nonce}`);
  return { acceptanceId: acceptanceIdOf(message), message, signature: world.receiptV2.acceptance.signature, signer: world.signer.address, versionAddress: world.addresses.version };
}
