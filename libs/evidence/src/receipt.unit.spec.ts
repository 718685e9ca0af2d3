import { acceptanceIdOf } from './acceptance-message';
import { ReceiptFormatError } from './errors';
import { buildReceipt, parseReceipt, receiptProblems, serializeReceipt, type AcceptanceReceiptV1 } from './receipt';
import { buildWorld } from './testing/world';

describe('receipts', () => {
  let receipt: AcceptanceReceiptV1;
  beforeAll(async () => {
    receipt = (await buildWorld()).receipt;
  });

  it('derives format and acceptance ID', () => {
    expect(receipt.format).toBe('svc-receipt-v1');
    expect(receipt.acceptanceId).toBe(acceptanceIdOf(receipt.acceptance.message));
    expect(receiptProblems(receipt)).toEqual([]);
  });

  it('serializes as RFC 8785 canonical JSON', () => {
    const text = serializeReceipt(receipt);
    expect(text.startsWith('{"acceptance":{"message":')).toBe(true);
    expect(text).not.toMatch(/\n|": |, "/);
    expect(JSON.parse(text)).toEqual(receipt);
    // Same bytes whatever the key order of the input.
    const reverseKeys = (v: unknown): unknown =>
      v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reverseKeys(x)])) : v;
    expect(serializeReceipt(reverseKeys(receipt) as AcceptanceReceiptV1)).toBe(text);
    expect(parseReceipt(text)).toEqual(receipt);
  });

  it('lists every shape problem', () => {
    const bad = JSON.parse(JSON.stringify(receipt));
    bad.format = 'svc-receipt-v2';
    bad.version.number = 0;
    bad.fees.sponsor = 'someone';
    bad.extra = true;
    expect(receiptProblems(bad)).toEqual(['receipt: must have exactly the keys format, acceptanceId, network, transaction, acceptance, organization, document, version, documentText, fees, issuedAt']);
    delete bad.extra;
    expect(receiptProblems(bad)).toEqual([
      'format: must be "svc-receipt-v1" or "svc-receipt/2"',
      'version.number: must be an integer from 1 to 4294967295',
      'fees.sponsor: must be "svc" or "organization"',
    ]);
    expect(() => parseReceipt(bad)).toThrow(ReceiptFormatError);
    expect(() => parseReceipt('{')).toThrow(ReceiptFormatError);
    const text = serializeReceipt(receipt);
    expect(() => parseReceipt(`{"issuedAt":"2020-01-01T00:00:00Z",${text.slice(1)}`)).toThrow('receipt repeats the key "issuedAt" in $');
    expect(receiptProblems(null)).toEqual(['receipt: must be an object']);
  });

  it('refuses to build a malformed receipt', () => {
    const { format: _f, acceptanceId: _a, ...input } = receipt;
    expect(() => buildReceipt({ ...input, network: { ...input.network, programId: input.acceptance.signer } })).toThrow(ReceiptFormatError);
  });
});
