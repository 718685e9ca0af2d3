import { AccountRole, address, type Instruction } from '@solana/kit';
import { buildTransaction } from '../../ledger/src/testing/test-transactions';
import { acceptanceIdOf } from './acceptance-message';
import { MEMO_PROGRAM_ADDRESS } from './constants';
import { buildEd25519Instruction } from './ed25519-instruction';
import { filledSeed, signerFromSeed } from './testing/keys';
import { base58ToBytes, bytesToBase58 } from './base58';
import { serializeReceipt, type AcceptanceReceiptV1 } from './receipt';
import { buildDocumentTransaction } from './transactions';
import { buildWorld, WORLD_ACCEPTANCE_BLOCK_TIME, type World } from './testing/world';
import { VERIFIER_CHECKS, verifyReceipt, type VerificationReport } from './verifier';

const now = new Date('2026-11-23T00:00:00Z');
const clone = (r: AcceptanceReceiptV1): AcceptanceReceiptV1 => JSON.parse(JSON.stringify(r));
const status = (report: VerificationReport, id: string) => report.checks.find((c) => c.id === id)?.status;
const failed = (report: VerificationReport) => report.checks.filter((c) => c.status === 'fail').map((c) => c.id);

describe('verifyReceipt', () => {
  let world: World;
  beforeEach(async () => {
    world = await buildWorld();
  });

  it('VALID for an honest receipt, with every check passing', async () => {
    const report = await verifyReceipt(world.receipt, world.ledger, { now });
    expect(report.checks.map((c) => c.id)).toEqual(VERIFIER_CHECKS.map((c) => c.id));
    expect(report.checks.filter((c) => c.status !== 'pass')).toEqual([]);
    expect(report.verdict).toBe('VALID');
  });

  it('accepts the receipt as canonical JSON text', async () => {
    const report = await verifyReceipt(serializeReceipt(world.receipt), world.ledger, { now });
    expect(report.verdict).toBe('VALID');
  });

  it('INVALID for receipt text that repeats a key, whichever copy a reader would keep', async () => {
    const text = serializeReceipt(world.receipt);
    const forgedFirst = `{"documentText":"I agree to pay 1,000,000 EUR.",${text.slice(1)}`;
    const organization = `"organization":${JSON.stringify(world.receipt.organization)}`;
    const forgedNested = text.replace(organization, organization.replace('{', `{"name":"Someone Else",`));
    expect(forgedNested).not.toBe(text);
    for (const [forged, where] of [
      [forgedFirst, 'repeats the key "documentText" in $'],
      [forgedNested, 'repeats the key "name" in $.organization'],
    ] as const) {
      expect(JSON.parse(forged)).toEqual(JSON.parse(text)); // a last-copy-wins reader sees the genuine receipt
      const report = await verifyReceipt(forged, world.ledger, { now });
      expect(report.verdict).toBe('INVALID');
      expect(failed(report)).toEqual(['receipt.format']);
      expect(report.checks.find((c) => c.id === 'receipt.format')!.detail).toContain(where);
    }
  });

  it('VALID_WITH_WARNINGS while the transaction is only confirmed', async () => {
    world.ledger.transactions.get(world.receipt.transaction.signature)!.confirmationStatus = 'confirmed';
    const report = await verifyReceipt(world.receipt, world.ledger, { now });
    expect(report.verdict).toBe('VALID_WITH_WARNINGS');
    expect(report.checks.find((c) => c.id === 'transaction.commitment')).toMatchObject({ status: 'warn', detail: 'not yet finalized (confirmed)' });
  });

  it('VALID_WITH_WARNINGS when the fee payer differs and when the block time is unknown', async () => {
    const r = clone(world.receipt);
    r.fees.payer = world.addresses.authority;
    world.ledger.transactions.get(r.transaction.signature)!.blockTime = null;
    const report = await verifyReceipt(r, world.ledger, { now });
    expect(report.verdict).toBe('VALID_WITH_WARNINGS');
    expect(status(report, 'transaction.fee-payer')).toBe('warn');
    expect(status(report, 'message.validity-window')).toBe('warn');
  });

  it('INVALID when the document text was tampered with', async () => {
    const r = clone(world.receipt);
    r.documentText = r.documentText.replace('excellent', 'terrible');
    const report = await verifyReceipt(r, world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(failed(report)).toEqual(['document.content-hash']);
  });

  it('a whitespace-only change to the text still verifies (canonical bytes)', async () => {
    const r = clone(world.receipt);
    r.documentText = r.documentText.replace(/\r\n/g, '\n') + '\n\n';
    expect((await verifyReceipt(r, world.ledger, { now })).verdict).toBe('VALID');
  });

  it('INVALID when the message was tampered with (one byte)', async () => {
    const r = clone(world.receipt);
    r.acceptance.message = r.acceptance.message.replace('nonce: 0', 'nonce: 1');
    const report = await verifyReceipt(r, world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(failed(report)).toEqual(expect.arrayContaining(['acceptance.id', 'acceptance.signature', 'transaction.signature-instruction']));
  });

  it('INVALID when the message was altered and its acceptance ID recomputed to match', async () => {
    const r = clone(world.receipt);
    r.acceptance.message = r.acceptance.message.replace('nonce: 0', 'nonce: 1');
    r.acceptanceId = acceptanceIdOf(r.acceptance.message);
    const report = await verifyReceipt(r, world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(failed(report)).toEqual(expect.arrayContaining(['acceptance.signature', 'transaction.signature-instruction', 'transaction.memo']));
  });

  it('INVALID when the signature was tampered with', async () => {
    const r = clone(world.receipt);
    const sig = world.signature.slice();
    sig[0]! ^= 1;
    r.acceptance.signature = bytesToBase58(sig);
    const report = await verifyReceipt(r, world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(failed(report)).toEqual(['acceptance.signature', 'transaction.signature-instruction']);
  });

  it('INVALID, naming the strict rule, for a signature that only lenient verification accepts (S + L)', async () => {
    const r = clone(world.receipt);
    const sig = world.signature.slice();
    // S + L: the same point equation, but S is not below the group order L (docs/protocol.md §13).
    let carry = 0;
    const L = Buffer.from('edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010', 'hex');
    for (let i = 0; i < 32; i++) {
      const sum = sig[32 + i]! + L[i]! + carry;
      sig[32 + i] = sum & 255;
      carry = sum >> 8;
    }
    r.acceptance.signature = bytesToBase58(sig);
    const report = await verifyReceipt(r, world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(report.checks.find((c) => c.id === 'acceptance.signature')).toMatchObject({
      status: 'fail',
      detail: 'strict Ed25519 verification refuses it: the signature S is not below the group order',
    });
  });

  it('INVALID when the receipt points at another transaction', async () => {
    const r = clone(world.receipt);
    r.transaction.signature = world.transactions.version.signature;
    const report = await verifyReceipt(r, world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(failed(report)).toEqual(expect.arrayContaining(['transaction.signature-instruction', 'transaction.memo', 'transaction.slot']));
  });

  it('INVALID when the ledger answers but does not know the transaction', async () => {
    world.ledger.transactions.delete(world.receipt.transaction.signature);
    const report = await verifyReceipt(world.receipt, world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(status(report, 'transaction.found')).toBe('fail');
    expect(status(report, 'transaction.memo')).toBe('skip');
  });

  it('INVALID when the transaction failed on the ledger', async () => {
    world.ledger.transactions.get(world.receipt.transaction.signature)!.err = { InstructionError: [0, { Custom: 2 }] };
    const report = await verifyReceipt(world.receipt, world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(failed(report)).toEqual(['transaction.succeeded']);
  });

  it('INVALID when the transaction landed after the message expired', async () => {
    world.ledger.transactions.get(world.receipt.transaction.signature)!.blockTime = WORLD_ACCEPTANCE_BLOCK_TIME + 3600;
    const r = clone(world.receipt);
    r.transaction.blockTime = WORLD_ACCEPTANCE_BLOCK_TIME + 3600;
    const report = await verifyReceipt(r, world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(failed(report)).toEqual(['message.validity-window']);
  });

  it('INVALID when the receipt misstates the slot, the version or the organization', async () => {
    const r = clone(world.receipt);
    r.transaction.slot += 1;
    r.organization.name = 'Acme Bank';
    r.version.publicationSignature = world.transactions.document.signature;
    const report = await verifyReceipt(r, world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(failed(report)).toEqual(['transaction.slot', 'version.publication', 'organization.registration']);
  });

  it('INVALID when the version was published by someone other than the document authority', async () => {
    const impostor = await buildWorld({ versionAuthoritySeed: 0x66 });
    const report = await verifyReceipt(impostor.receipt, impostor.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(failed(report)).toEqual(['document.registration']);
    expect(report.checks.find((c) => c.id === 'document.registration')!.detail).toMatch(/not by the document's authority/);
  });

  it('INCONCLUSIVE when the ledger is unreachable', async () => {
    world.ledger.failWith = new Error('connect ECONNREFUSED 127.0.0.1:8899');
    const report = await verifyReceipt(world.receipt, world.ledger, { now });
    expect(report.verdict).toBe('INCONCLUSIVE');
    expect(report.summary).toMatch(/ECONNREFUSED/);
    expect(status(report, 'acceptance.signature')).toBe('pass');
    expect(status(report, 'ledger.network')).toBe('skip');
    expect(status(report, 'transaction.found')).toBe('skip');
  });

  it('INCONCLUSIVE when the ledger fails midway', async () => {
    const original = world.ledger.getSignaturesForAddress.bind(world.ledger);
    world.ledger.getSignaturesForAddress = async () => {
      throw new Error('429 Too Many Requests');
    };
    const report = await verifyReceipt(world.receipt, world.ledger, { now });
    expect(report.verdict).toBe('INCONCLUSIVE');
    expect(status(report, 'transaction.found')).toBe('pass');
    expect(status(report, 'version.publication')).toBe('skip');
    world.ledger.getSignaturesForAddress = original;
  });

  it('reads an address history to its end through an RPC that answers fewer entries than asked for (a lower cap on limit)', async () => {
    // A later transaction co-signed by the document's key (anyone may add transactions to an address's history):
    // only the oldest one is its creation.
    const later = await buildDocumentTransaction({
      authority: await signerFromSeed(filledSeed(0x51)),
      document: await signerFromSeed(filledSeed(0x0d)),
      organization: world.addresses.organization,
      slug: 'later',
      title: 'Later',
      lifetime: world.lifetime,
    });
    world.ledger.add(later, { slot: 6000n });
    const original = world.ledger.getSignaturesForAddress.bind(world.ledger);
    world.ledger.getSignaturesForAddress = (address, options = {}) => original(address, { ...options, limit: 1 });
    const report = await verifyReceipt(world.receipt, world.ledger, { now });
    expect(failed(report)).toEqual([]);
    expect(report.verdict).toBe('VALID');
  });

  it('INCONCLUSIVE, not INVALID, when the ledger lists a creation transaction but does not return it (history pruned or lagging)', async () => {
    const original = world.ledger.getTransaction.bind(world.ledger);
    world.ledger.getTransaction = async (signature) => (signature === world.receipt.transaction.signature ? original(signature) : null);
    const report = await verifyReceipt(world.receipt, world.ledger, { now });
    expect(report.verdict).toBe('INCONCLUSIVE');
    expect(failed(report)).toEqual([]);
    expect(report.summary).toMatch(/but does not return it/);
  });

  it('INCONCLUSIVE, not INVALID, when the ledger answers a transaction with a malformed slot, block time or fee', async () => {
    const tx = world.ledger.transactions.get(world.receipt.transaction.signature)!;
    const genuine = { slot: tx.slot, blockTime: tx.blockTime, fee: tx.fee };
    for (const [field, value] of [
      ['slot', 'twelve'],
      ['slot', -1n],
      ['slot', 1.5],
      ['blockTime', '1700000000'],
      ['fee', Number.NaN],
    ] as const) {
      Object.assign(tx, genuine, { [field]: value });
      const report = await verifyReceipt(world.receipt, world.ledger, { now });
      expect(report.verdict).toBe('INCONCLUSIVE');
      expect(failed(report)).toEqual([]);
      expect(report.summary).toContain(`malformed: ${field}`);
    }
    Object.assign(tx, genuine);
    expect((await verifyReceipt(world.receipt, world.ledger, { now })).verdict).toBe('VALID');
  });

  it('INCONCLUSIVE, as an unreadable ledger and not another network, when the genesis hash answered is not one', async () => {
    for (const answer of [null, '', 'not base58 0OIl']) {
      world.ledger.getGenesisHash = async () => answer as string;
      const report = await verifyReceipt(world.receipt, world.ledger, { now });
      expect(report.verdict).toBe('INCONCLUSIVE');
      expect(status(report, 'ledger.network')).toBe('skip');
      expect(report.summary).toMatch(/getGenesisHash is not a genesis hash/);
    }
  });

  it('INCONCLUSIVE when the ledger is another network', async () => {
    const r = clone(world.receipt);
    const other = await buildWorld();
    (other.ledger as { genesisHash: string }).genesisHash = bytesToBase58(new Uint8Array(32).fill(0x43));
    const report = await verifyReceipt(r, other.ledger, { now });
    expect(report.verdict).toBe('INCONCLUSIVE');
    expect(status(report, 'ledger.network')).toBe('fail');
  });

  it('INCONCLUSIVE, not INVALID, for a proof receipt (svc-proof-v1), which it does not check; INVALID for an unknown format', async () => {
    const proof = { format: 'svc-proof-v1', proofId: 'ab'.repeat(32), statement: 'I confirm the order', transactionSignature: world.receipt.transaction.signature };
    const report = await verifyReceipt(proof, world.ledger, { now });
    expect(report.verdict).toBe('INCONCLUSIVE');
    expect(report.summary).toMatch(/proof receipt/);
    expect(status(report, 'receipt.format')).toBe('warn');
    expect(report.checks.filter((c) => c.id !== 'receipt.format').every((c) => c.status === 'skip')).toBe(true);
    expect((await verifyReceipt({ ...proof, format: 'svc-proof-v9' }, world.ledger, { now })).verdict).toBe('INVALID');
  });

  it('INVALID (not INCONCLUSIVE) for an offline failure even when the ledger is unreachable', async () => {
    world.ledger.failWith = new Error('down');
    const r = clone(world.receipt);
    r.documentText += 'extra clause';
    expect((await verifyReceipt(r, world.ledger, { now })).verdict).toBe('INVALID');
  });

  it.each([
    ['not JSON', '{'],
    ['a number', 42],
    ['null', null],
    ['an empty object', {}],
    ['a receipt with an extra key', { extra: 1 }],
  ])('INVALID, without throwing, for %s', async (_name, input) => {
    const value = _name === 'a receipt with an extra key' ? { ...world.receipt, extra: 1 } : input;
    const report = await verifyReceipt(value, world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(status(report, 'receipt.format')).toBe('fail');
    expect(report.checks.filter((c) => c.id !== 'receipt.format').every((c) => c.status === 'skip')).toBe(true);
  });

  it('warns about a receipt dated in the future', async () => {
    const report = await verifyReceipt(world.receipt, world.ledger, { now: new Date('2026-11-22T09:00:00Z') });
    expect(report.verdict).toBe('VALID_WITH_WARNINGS');
    expect(status(report, 'receipt.issued-at')).toBe('warn');
  });

  it('flags a message that names another signer than the receipt', async () => {
    const r = clone(world.receipt);
    r.acceptance.signer = world.addresses.relayer;
    const report = await verifyReceipt(r, world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(failed(report)).toEqual(expect.arrayContaining(['message.fields', 'acceptance.signature']));
  });
});

describe('verifyReceipt: the accept memo as docs/protocol.md §7.3 lays it out', () => {
  let world: World;
  beforeEach(async () => {
    world = await buildWorld();
  });

  /** The world's acceptance relayed again with `memos` after its precompile instruction; the receipt pointing at it. */
  async function relayedWith(memos: Instruction[]): Promise<AcceptanceReceiptV1> {
    const relayer = await signerFromSeed(filledSeed(0x0b));
    const precompile = buildEd25519Instruction({ publicKey: base58ToBytes(world.receipt.acceptance.signer), signature: world.signature, message: new TextEncoder().encode(world.message) });
    const signed = await buildTransaction({ blockhash: world.lifetime.blockhash, lastValidBlockHeight: world.lifetime.lastValidBlockHeight }, relayer, [precompile, ...memos], 'legacy');
    world.ledger.add(signed, { slot: 5000n, blockTime: WORLD_ACCEPTANCE_BLOCK_TIME, fee: 10000n });
    const r = clone(world.receipt);
    r.transaction.signature = signed.signature;
    return r;
  }
  const memo = (text: string, accounts: Instruction['accounts'] = []): Instruction => ({ programAddress: MEMO_PROGRAM_ADDRESS, accounts, data: new TextEncoder().encode(text) });
  const accept = () => `svc/1 accept ${world.receipt.acceptanceId} ${world.receipt.version.address}`;

  it('VALID for the same layout relayed again (the control)', async () => {
    expect((await verifyReceipt(await relayedWith([memo(accept())]), world.ledger, { now })).verdict).toBe('VALID');
  });

  it('INVALID when the accept memo names an account', async () => {
    const report = await verifyReceipt(await relayedWith([memo(accept(), [{ address: address(world.addresses.authority), role: AccountRole.READONLY }])]), world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(report.checks.find((c) => c.id === 'transaction.memo')).toMatchObject({ status: 'fail', detail: 'the accept memo names 1 account(s); it names none' });
  });

  it('INVALID beside a second, malformed accept memo', async () => {
    const report = await verifyReceipt(await relayedWith([memo(accept()), memo(`svc/1 accept  ${world.receipt.acceptanceId} ${world.receipt.version.address}`)]), world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(report.checks.find((c) => c.id === 'transaction.memo')).toMatchObject({ status: 'fail', detail: 'expected exactly one svc/1 accept memo, found 2' });
  });

  it('INVALID when the only accept memo is malformed', async () => {
    const report = await verifyReceipt(await relayedWith([memo(`svc/1 accept ${world.receipt.acceptanceId}`)]), world.ledger, { now });
    expect(report.verdict).toBe('INVALID');
    expect(status(report, 'transaction.memo')).toBe('fail');
  });
});
