import type { AcceptanceReceiptV1 } from './receipt';
import { buildWorld, type World } from './testing/world';
import { verifyReceipt, type VerificationReport } from './verifier';
import { VerifierMemo } from './verifier-memo';
import { asSignature } from './base58';
import { parseEvidenceTransaction } from './transactions';

const now = new Date('2026-11-23T00:00:00Z');
const clone = (r: AcceptanceReceiptV1): AcceptanceReceiptV1 => JSON.parse(JSON.stringify(r));
const failed = (report: VerificationReport) => report.checks.filter((c) => c.status === 'fail').map((c) => c.id);

/** Counts the ledger reads a verification makes. */
function countReads(world: World): Record<string, number> {
  const counts: Record<string, number> = { getGenesisHash: 0, getTransaction: 0, getSignaturesForAddress: 0 };
  for (const name of Object.keys(counts) as (keyof typeof counts & keyof World['ledger'])[]) {
    const original = (world.ledger[name] as (...args: unknown[]) => Promise<unknown>).bind(world.ledger);
    Object.assign(world.ledger, { [name]: (...args: unknown[]) => ((counts[name] += 1), original(...args)) });
  }
  return counts;
}

describe('VerifierMemo: what a verifier keeps between receipts of one ledger', () => {
  let world: World;
  beforeEach(async () => {
    world = await buildWorld();
  });

  it('a second verification of finalized evidence reads nothing from the ledger and gives the same report', async () => {
    const memo = new VerifierMemo();
    const first = await verifyReceipt(world.receipt, world.ledger, { now, memo });
    const reads = countReads(world);
    const second = await verifyReceipt(world.receipt, world.ledger, { now, memo });
    expect(second).toEqual(first);
    expect(second.verdict).toBe('VALID');
    expect(reads).toEqual({ getGenesisHash: 0, getTransaction: 0, getSignaturesForAddress: 0 });
  });

  it('keeps nothing that is not finalized: a confirmed transaction is read again, and its finality then shows', async () => {
    const memo = new VerifierMemo();
    const tx = world.ledger.transactions.get(world.receipt.transaction.signature)!;
    tx.confirmationStatus = 'confirmed';
    expect((await verifyReceipt(world.receipt, world.ledger, { now, memo })).verdict).toBe('VALID_WITH_WARNINGS');
    tx.confirmationStatus = 'finalized';
    const reads = countReads(world);
    expect((await verifyReceipt(world.receipt, world.ledger, { now, memo })).verdict).toBe('VALID');
    expect(reads.getTransaction).toBe(1);
  });

  it('still runs every check on every receipt: tampering after a memoized verification is caught', async () => {
    const memo = new VerifierMemo();
    await verifyReceipt(world.receipt, world.ledger, { now, memo });

    const text = clone(world.receipt);
    text.documentText = text.documentText.replace('excellent', 'terrible');
    expect(failed(await verifyReceipt(text, world.ledger, { now, memo }))).toEqual(['document.content-hash']);

    const signature = clone(world.receipt);
    const other = clone(world.receipt);
    other.acceptance.signature = signature.acceptance.signature.slice(0, -2) + (signature.acceptance.signature.endsWith('11') ? '22' : '11');
    expect(failed(await verifyReceipt(other, world.ledger, { now, memo }))).toContain('acceptance.signature');

    const slot = clone(world.receipt);
    slot.transaction.slot += 1;
    expect(failed(await verifyReceipt(slot, world.ledger, { now, memo }))).toEqual(['transaction.slot']);
  });

  it('verifies a signature once per exact (signer, message, signature) triple; any other byte is a new verification', () => {
    const memo = new VerifierMemo();
    const calls: string[] = [];
    const verdict = (signer: string, message: string, signature: string, refusal: 'mismatch' | null) =>
      memo.signatureVerdict(signer, message, signature, () => (calls.push(`${signer}|${message}|${signature}`), refusal));
    expect(verdict('Signer1', 'message', 'Sig1', null)).toBeNull();
    expect(verdict('Signer1', 'message', 'Sig1', 'mismatch')).toBeNull(); // the kept verdict, not recomputed
    expect(verdict('Signer1', 'message.', 'Sig1', 'mismatch')).toBe('mismatch');
    expect(verdict('Signer1', 'message', 'Sig2', 'mismatch')).toBe('mismatch');
    expect(verdict('Signer2', 'message', 'Sig1', 'mismatch')).toBe('mismatch');
    // Parts that would concatenate to the same text are still different triples, whatever characters they hold.
    expect(verdict('Signer1', 'Sig1', 'message', 'mismatch')).toBe('mismatch');
    expect(verdict('Signer', '1Sig1', 'message', 'mismatch')).toBe('mismatch');
    // A valid triple whose message holds a NUL, and a forged one that moves the separator: not the same key.
    expect(verdict('Signer1', 'Sig1', 'part\u0000rest', null)).toBeNull();
    expect(verdict('Signer1', 'Sig1\u0000part', 'rest', 'mismatch')).toBe('mismatch');
    expect(calls).toHaveLength(8);
  });

  it('decodes a transaction object once, and a failed decoding fails again without decoding again', async () => {
    const memo = new VerifierMemo();
    const tx = (await world.ledger.getTransaction(asSignature(world.receipt.transaction.signature)))!;
    let decodings = 0;
    const decode = (wire: typeof tx.wire) => (decodings++, parseEvidenceTransaction(wire));
    const first = memo.decodedTransaction(tx, decode);
    expect(first.signature).toBe(world.receipt.transaction.signature);
    expect(memo.decodedTransaction(tx, decode)).toBe(first);
    expect(decodings).toBe(1);
    const broken = { ...tx, wire: new Uint8Array([1, 2, 3]) };
    expect(() => memo.decodedTransaction(broken, decode)).toThrow();
    expect(() => memo.decodedTransaction(broken, decode)).toThrow();
    expect(decodings).toBe(2);
  });
});
