import { generateKeyPairSigner } from '@solana/kit';
import { serializeReceipt, type AcceptanceReceiptV1 } from '@svc/evidence';
import { ApiClient } from '../apps/cli/src/api-client';
import { acceptAsWallet, fetchReceipt, publishVersion, type AcceptanceResult } from '../apps/cli/src/operations';
import { eventually, publishedDocument, type PublishedDocument } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";
const ORIGIN = 'https://shop.example.com';

/** Independent of the page's own escaping code on purpose. */
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

async function get(url: string): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('public receipt page', () => {
  let service: TestService;
  let client: ApiClient;
  let doc: PublishedDocument;
  let accepted: AcceptanceResult;
  let signer: string;

  /** Accepts the document's current version with a new wallet and waits until the acceptance is finalized. */
  async function accept(): Promise<{ result: AcceptanceResult; signer: string }> {
    const wallet = await generateKeyPairSigner();
    const result = await acceptAsWallet(client, wallet, { organization: doc.organization.address, document: doc.document.address, origin: ORIGIN });
    await eventually(async () => {
      const { acceptance } = await client.request<{ acceptance: { commitment: string } }>('GET', `/v1/public/acceptances/${result.acceptanceId}`);
      return acceptance.commitment === 'finalized' ? true : undefined;
    });
    return { result, signer: wallet.address };
  }

  beforeAll(async () => {
    service = await startTestService();
    client = new ApiClient(service.baseUrl);
    doc = await publishedDocument(service, [1]);
    ({ result: accepted, signer } = await accept());
  });
  afterAll(() => service.destroy());

  it('serves the receiptUrl of an acceptance as a self-contained HTML page with the verdict and the evidence', async () => {
    expect(accepted.receiptUrl).toBe(`${service.baseUrl}/receipts/${accepted.acceptanceId}`);
    const page = await get(accepted.receiptUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8/);
    expect(page.headers.get('content-security-policy')).toBe(CSP);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');

    const { receipt, report } = await fetchReceipt(client, accepted.acceptanceId);
    expect(report.verdict).toBe('VALID');
    expect(page.text).toContain('(VALID)');
    expect(page.text).toContain(escape(report.summary));
    for (const check of report.checks) expect(page.text).toContain(escape(check.label));
    expect(page.text).toContain(signer);
    expect(page.text).toContain(accepted.transactionSignature);
    expect(page.text).toContain(`<pre>${escape(accepted.message)}</pre>`);
    expect(page.text).toContain(receipt.version.contentHash);
    expect(page.text).toContain(receipt.version.fingerprint);
    expect(page.text).toContain('shop.example.com');
    expect(page.text).toContain('<dd>finalized</dd>');
    expect(page.text).toContain(`href="/receipts/${accepted.acceptanceId}.json"`);
    expect(page.text).toContain(`svc verify receipt-${accepted.acceptanceId}.json --rpc ${service.rpcUrl}`);
    expect(page.text).toMatch(/<details>\s*<summary>/);
    // Dependency-free: no scripts, no external resources.
    expect(page.text).not.toMatch(/<script|<link rel="stylesheet"|\ssrc=/i);
  });

  it('serves the canonical receipt JSON as a download equal to the API receipt', async () => {
    const file = await get(`${service.baseUrl}/receipts/${accepted.acceptanceId}.json`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^application\/json/);
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="receipt-${accepted.acceptanceId}.json"`);
    const downloaded = JSON.parse(file.text) as AcceptanceReceiptV1;
    expect(file.text).toBe(serializeReceipt(downloaded));
    const { receipt } = await fetchReceipt(client, accepted.acceptanceId);
    expect({ ...downloaded, issuedAt: null }).toEqual({ ...receipt, issuedAt: null });
  });

  it('escapes the document text and titles', async () => {
    const source = '# Terms\n\nBy signing you agree.\n\n<script>alert(1)</script>\n';
    await publishVersion(doc.dashboard, doc.ledger, doc.owner, { documentId: doc.document.id, source, label: 'v2', title: 'Terms <b>"&"</b>' });
    const { result } = await accept();
    const page = await get(result.receiptUrl);
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/<script/i);
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).not.toContain('<b>');
    expect(page.text).toContain('Terms &lt;b&gt;&quot;&amp;&quot;&lt;/b&gt;');
  });

  it('answers an unknown acceptance with a 404 page and a malformed ID with a 400 page', async () => {
    const unknown = await get(`${service.baseUrl}/receipts/${'0'.repeat(64)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^text\/html/);
    expect(unknown.headers.get('content-security-policy')).toBe(CSP);
    expect(unknown.text).toContain('Receipt not found');

    const bad = await get(`${service.baseUrl}/receipts/not-an-id%3Cscript%3E`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^text\/html/);
    expect(bad.text).toContain('Not a receipt address');
    expect(bad.text).not.toMatch(/<script/i);

    const upper = await get(`${service.baseUrl}/receipts/${accepted.acceptanceId.toUpperCase()}`);
    expect(upper.status).toBe(400);

    expect((await get(`${service.baseUrl}/receipts/${'0'.repeat(64)}.json`)).status).toBe(404);
    expect((await get(`${service.baseUrl}/receipts/xyz.json`)).status).toBe(400);
  });
});
