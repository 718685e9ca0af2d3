import { getTransactionDecoder } from '@solana/kit';
import { acceptanceIdOf } from './acceptance-message';
import { bytesToBase58 } from './base58';
import { ED25519_PROGRAM_ADDRESS, MEMO_PROGRAM_ADDRESS, TRANSACTION_SIZE_LIMIT } from './constants';
import { FieldError, TransactionFormatError, TransactionTooLargeError } from './errors';
import { verifyEd25519 } from './signatures';
import { filledSeed, keyFromSeed, signerFromSeed } from './testing/keys';
import { buildWorld } from './testing/world';
import { buildAcceptanceTransaction, buildPublicationTransaction, coSignedMemoTransactionSize, parseEvidenceTransaction, versionRecordSizeProblem } from './transactions';
import { encodeMemo } from './memo';

const lifetime = { blockhash: bytesToBase58(filledSeed(0x33)), lastValidBlockHeight: 1000n };
const VERSION = keyFromSeed(filledSeed(0x0e)).address;

/** The fee payer's signature covers the message bytes that follow the signatures in the wire. */
function feePayerSignatureValid(wire: Uint8Array): boolean {
  const tx = getTransactionDecoder().decode(wire);
  const [payer, sig] = Object.entries(tx.signatures)[0]!;
  return verifyEd25519(payer, new Uint8Array(tx.messageBytes), sig as Uint8Array);
}

describe('acceptance transaction', () => {
  it('is [Ed25519 precompile over the message, accept memo], paid by the fee payer alone', async () => {
    const world = await buildWorld();
    const parsed = parseEvidenceTransaction(world.transactions.acceptance.wire);
    expect(parsed.signature).toBe(world.transactions.acceptance.signature);
    expect(parsed.feePayer).toBe(world.addresses.relayer);
    expect(parsed.signers).toEqual([world.addresses.relayer]);
    expect(parsed.recentBlockhash).toBe(world.lifetime.blockhash);
    expect(parsed.instructions.map((i) => i.programAddress)).toEqual([ED25519_PROGRAM_ADDRESS, MEMO_PROGRAM_ADDRESS]);
    expect(parsed.instructions.map((i) => i.accounts)).toEqual([[], []]);
    expect(parsed.ed25519).toEqual([
      { instructionIndex: 0, publicKey: world.signer.address, signature: world.signature, message: new TextEncoder().encode(world.message) },
    ]);
    expect(parsed.memos).toEqual([
      {
        instructionIndex: 1,
        text: `svc/1 accept ${acceptanceIdOf(world.message)} ${world.addresses.version}`,
        record: { kind: 'accept', acceptanceId: acceptanceIdOf(world.message), versionAddress: world.addresses.version },
        error: null,
        signerAccounts: [],
      },
    ]);
    expect(feePayerSignatureValid(world.transactions.acceptance.wire)).toBe(true);
  });

  it('fits in 1232 bytes with a 700-byte message', async () => {
    const feePayer = await signerFromSeed(filledSeed(0x0b));
    const signer = keyFromSeed(filledSeed(0x0f));
    const message = 'm'.repeat(700);
    const tx = await buildAcceptanceTransaction({
      feePayer,
      signer: signer.address,
      signature: signer.sign(Buffer.from(message)),
      message,
      acceptanceId: acceptanceIdOf(message),
      versionAddress: 'JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFG',
      lifetime,
    });
    expect(tx.wire.length).toBeLessThanOrEqual(TRANSACTION_SIZE_LIMIT);
    // 1 + 64 + 3 + 1 + 3*32 + 32 + 1 + (4 + 812) + (3 + 122) = 1139
    expect(tx.wire.length).toBe(1139);
    expect(parseEvidenceTransaction(tx.wire).ed25519[0]!.message.length).toBe(700);
  });

  it('refuses a message that would not fit', async () => {
    const feePayer = await signerFromSeed(filledSeed(0x0b));
    const signer = keyFromSeed(filledSeed(0x0f));
    await expect(
      buildAcceptanceTransaction({ feePayer, signer: signer.address, signature: new Uint8Array(64), message: 'm'.repeat(800), acceptanceId: '1'.repeat(64), versionAddress: VERSION, lifetime }),
    ).rejects.toBeInstanceOf(TransactionTooLargeError);
  });

  it('validates its inputs', async () => {
    const feePayer = await signerFromSeed(filledSeed(0x0b));
    const base = { feePayer, signer: keyFromSeed(filledSeed(1)).address, signature: new Uint8Array(64), message: 'x', acceptanceId: '1'.repeat(64), versionAddress: VERSION, lifetime };
    await expect(buildAcceptanceTransaction({ ...base, signer: 'nope' })).rejects.toBeInstanceOf(FieldError);
    await expect(buildAcceptanceTransaction({ ...base, signature: new Uint8Array(63) })).rejects.toBeInstanceOf(FieldError);
    await expect(buildAcceptanceTransaction({ ...base, acceptanceId: 'x' })).rejects.toBeInstanceOf(FieldError);
    await expect(buildAcceptanceTransaction({ ...base, lifetime: { blockhash: '0', lastValidBlockHeight: 1n } })).rejects.toBeInstanceOf(FieldError);
  });
});

describe('creation transactions', () => {
  it('carry one memo with accounts [new address, authority], both signing, fee payer the authority', async () => {
    const world = await buildWorld();
    const cases = [
      [world.transactions.organization, world.addresses.organization, 'org'],
      [world.transactions.document, world.addresses.document, 'doc'],
      [world.transactions.version, world.addresses.version, 'ver'],
    ] as const;
    for (const [tx, created, kind] of cases) {
      const parsed = parseEvidenceTransaction(tx.wire);
      expect(parsed.feePayer).toBe(world.addresses.authority);
      expect(new Set(parsed.signers)).toEqual(new Set([world.addresses.authority, created]));
      expect(parsed.instructions).toHaveLength(1);
      expect(parsed.instructions[0]!.programAddress).toBe(MEMO_PROGRAM_ADDRESS);
      expect(parsed.instructions[0]!.accounts).toEqual([created, world.addresses.authority]);
      expect(parsed.memos[0]!.signerAccounts).toEqual([created, world.addresses.authority]);
      expect(parsed.memos[0]!.record?.kind).toBe(kind);
      expect(feePayerSignatureValid(tx.wire)).toBe(true);
    }
  });

  it('rejects a publication whose memo is too large for one transaction', async () => {
    const authority = await signerFromSeed(filledSeed(0x0a));
    const version = await signerFromSeed(filledSeed(0x0e));
    await expect(
      buildPublicationTransaction({
        authority,
        version,
        document: VERSION,
        number: 1,
        label: '😀'.repeat(16),
        title: '😀'.repeat(200),
        contentHash: '1'.repeat(64),
        fingerprint: '2'.repeat(64),
        effectiveAt: null,
        lifetime,
      }),
    ).rejects.toBeInstanceOf(TransactionTooLargeError);
  });

  it('sizes a co-signed memo transaction exactly as the builder encodes it, memos of 1 to 2-byte lengths included', async () => {
    const authority = await signerFromSeed(filledSeed(0x0a));
    const version = await signerFromSeed(filledSeed(0x0e));
    for (const title of ['t', 'é'.repeat(40), '中'.repeat(150), '🔒'.repeat(200)]) {
      const fields = { document: VERSION, number: 7, label: 'v7', title, contentHash: '1'.repeat(64), fingerprint: '2'.repeat(64), effectiveAt: 1_700_000_000 };
      const memo = encodeMemo({ kind: 'ver', ...fields });
      const size = coSignedMemoTransactionSize(memo);
      if (size <= TRANSACTION_SIZE_LIMIT) {
        expect([title.length, (await buildPublicationTransaction({ authority, version, ...fields, lifetime })).wire.length]).toEqual([title.length, size]);
      } else {
        await expect(buildPublicationTransaction({ authority, version, ...fields, lifetime })).rejects.toEqual(new TransactionTooLargeError(size, TRANSACTION_SIZE_LIMIT));
      }
    }
  });

  it('tells which version texts cannot be published, with the fields fixed later at their widest', async () => {
    expect(versionRecordSizeProblem({ label: 'v'.repeat(16), title: 'é'.repeat(200), effectiveAt: Number.MAX_SAFE_INTEGER })).toBeNull();
    expect(versionRecordSizeProblem({ label: '中'.repeat(16), title: '中'.repeat(200), effectiveAt: null })).toBeNull();
    expect(versionRecordSizeProblem({ label: '🔒'.repeat(16), title: '🔒'.repeat(140), effectiveAt: Number.MAX_SAFE_INTEGER })).toBeNull();
    expect(versionRecordSizeProblem({ label: 'v1', title: '🔒'.repeat(200), effectiveAt: null })).toMatch(/1[0-9]{3}-byte publication transaction, over the ledger's 1232 bytes/);
    // The widest title that passes is publishable at the widest number and effective date, and one more character is not.
    let n = 0;
    while (versionRecordSizeProblem({ label: 'v1', title: '🔒'.repeat(n + 1), effectiveAt: Number.MAX_SAFE_INTEGER }) === null) n++;
    const authority = await signerFromSeed(filledSeed(0x0a));
    const version = await signerFromSeed(filledSeed(0x0e));
    const widest = { document: bytesToBase58(new Uint8Array(32).fill(0xff)), number: 4_294_967_295, label: 'v1', contentHash: 'f'.repeat(64), fingerprint: 'f'.repeat(64), effectiveAt: Number.MAX_SAFE_INTEGER };
    expect((await buildPublicationTransaction({ authority, version, ...widest, title: '🔒'.repeat(n), lifetime })).wire.length).toBeLessThanOrEqual(TRANSACTION_SIZE_LIMIT);
    await expect(buildPublicationTransaction({ authority, version, ...widest, title: '🔒'.repeat(n + 1), lifetime })).rejects.toBeInstanceOf(TransactionTooLargeError);
  });

  it('refuses a new address equal to the authority', async () => {
    const authority = await signerFromSeed(filledSeed(0x0a));
    await expect(
      buildPublicationTransaction({ authority, version: authority, document: VERSION, number: 1, label: 'v', title: 't', contentHash: '1'.repeat(64), fingerprint: '2'.repeat(64), effectiveAt: null, lifetime }),
    ).rejects.toBeInstanceOf(FieldError);
  });
});

describe('parseEvidenceTransaction', () => {
  it('rejects garbage and trailing bytes', async () => {
    const world = await buildWorld();
    expect(() => parseEvidenceTransaction(new Uint8Array([1, 2, 3]))).toThrow(TransactionFormatError);
    const padded = new Uint8Array([...world.transactions.acceptance.wire, 0]);
    expect(() => parseEvidenceTransaction(padded)).toThrow(TransactionFormatError);
  });

  it('reports a malformed svc/1 memo without failing the whole transaction', async () => {
    const world = await buildWorld();
    const wire = world.transactions.acceptance.wire.slice();
    // Corrupt the first hex digit of the acceptance ID inside the memo (signatures no longer matter to the parser).
    const text = Buffer.from(wire).toString('latin1');
    const at = text.indexOf('svc/1 accept ') + 'svc/1 accept '.length;
    wire[at] = 'G'.charCodeAt(0);
    const parsed = parseEvidenceTransaction(wire);
    expect(parsed.memos[0]!.record).toBeNull();
    expect(parsed.memos[0]!.error).toMatch(/acceptanceId/);
  });
});
