import type { AcceptanceReceipt, VerificationReport } from '@svc/evidence';
import { termsOfService } from '../../../../test/support/fixtures';
import { receiptWithReportJson } from './receipt-json';

describe('receipt JSON', () => {
  const report = {
    verdict: 'VALID_WITH_WARNINGS',
    summary: 'checked "now"',
    checks: [{ id: 'receipt.format', label: 'Receipt is a well-formed svc-receipt-v1', status: 'pass', detail: 'line\nbreak \u2028 and a quote "' }],
  } as unknown as VerificationReport;
  const receipt = {
    format: 'svc-receipt-v1',
    acceptanceId: 'a'.repeat(64),
    network: { chainId: 'solana:GufmsdnS9EMfERCXgPMC6uWjidjVgWZL', label: 'localnet', programId: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' },
    transaction: { signature: '3Gut45Pj8CyxrMRF5BfC4oqrrKqpeiooerrTsDfVTAj8kkuyYUumdi5Cg5LfQwqykwrZtcMsfVc52CKUP4zdyHo1', slot: 4, blockTime: 1795625870 },
    acceptance: { signer: 'FgM4y4C28HMMrRCUvMZyxSvSBDSitBTyHHrWdBC9TeAU', signerType: 'wallet', message: 'svc/1 acceptance\nI accept', signature: 'zPEN', requestDomain: 'shop.example.com' },
    documentText: '',
    fees: { payer: 'FgM4y4C28HMMrRCUvMZyxSvSBDSitBTyHHrWdBC9TeAU', lamports: 10000, sponsor: 'svc', reimbursedLamports: null },
    issuedAt: '2026-11-25T17:00:00.000Z',
  } as unknown as AcceptanceReceipt;

  it('is exactly JSON.stringify of {receipt, report}, for real and awkward document texts, again and again', () => {
    const texts = [termsOfService(1), termsOfService(4), '', 'quotes " and \\ backslashes', 'controls \u0000\u001f\u007f, separators \u2028\u2029', 'lone \ud800 surrogate', '😀 astral'];
    for (let round = 0; round < 2; round++) {
      for (const documentText of texts) {
        const result = { receipt: { ...receipt, documentText }, report };
        const bytes = receiptWithReportJson(result);
        expect(bytes.toString('utf8')).toBe(JSON.stringify(result));
        expect(bytes.equals(Buffer.from(JSON.stringify(result), 'utf8'))).toBe(true);
      }
    }
  });

  it('leaves a field that looks like the placeholder alone', () => {
    const result = { receipt: { ...receipt, documentText: 'text' }, report: { ...report, summary: '\u0000document-text-' } };
    expect(receiptWithReportJson(result).toString('utf8')).toBe(JSON.stringify(result));
  });
});
