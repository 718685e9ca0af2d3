import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { generateKeyPairSigner } from '@solana/kit';
import { serializeReceipt, type AcceptanceReceiptV1 } from '@svc/evidence';
import { ApiClient, saveSession } from '../apps/cli/src/api-client';
import { acceptAsWallet, fetchReceipt, signIn, signText } from '../apps/cli/src/operations';
import { cliMain } from '../apps/cli/src/paths';
import { publishThroughDraft } from './support/durability';
import { eventually, publishedDocument, type PublishedDocument } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';

const exec = promisify(execFile);

/** Runs the compiled `svc verify <file> --rpc <url> --json`; returns its exit code and verdict. */
async function svcVerify(receipt: unknown, rpc: string, dir: string, extra: string[] = []): Promise<{ code: number; verdict: string; failed: string[] }> {
  const file = path.join(dir, `receipt-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, typeof receipt === 'string' ? receipt : JSON.stringify(receipt));
  let stdout: string;
  let code = 0;
  try {
    ({ stdout } = await exec(process.execPath, [cliMain(), 'verify', file, '--rpc', rpc, '--json', ...extra]));
  } catch (err) {
    const e = err as { code: number; stdout: string };
    code = e.code;
    stdout = e.stdout;
  }
  const report = JSON.parse(stdout) as { verdict: string; checks: { id: string; status: string }[] };
  return { code, verdict: report.verdict, failed: report.checks.filter((c) => c.status === 'fail').map((c) => c.id) };
}

const built = existsSync(cliMain());

(built ? describe : describe.skip)(`svc verify on receipts${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  let service: TestService;
  let client: ApiClient;
  let doc: PublishedDocument;
  let receipt: AcceptanceReceiptV1;
  let otherSignature: string;
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-receipts-'));

  beforeAll(async () => {
    service = await startTestService();
    client = new ApiClient(service.baseUrl);
    doc = await publishedDocument(service, [1]);
    const signer = await generateKeyPairSigner();
    const other = await generateKeyPairSigner();
    const origin = 'https://shop.example.com';
    const result = await acceptAsWallet(client, signer, { organization: doc.organization.address, document: doc.document.address, origin });
    otherSignature = (await acceptAsWallet(client, other, { organization: doc.organization.address, document: doc.document.address, origin })).transactionSignature;
    await eventually(async () => {
      const { acceptance } = await client.request<{ acceptance: { commitment: string } }>('GET', `/v1/public/acceptances/${result.acceptanceId}`);
      return acceptance.commitment === 'finalized' ? true : undefined;
    });
    receipt = (await fetchReceipt(client, result.acceptanceId)).receipt as AcceptanceReceiptV1;
  });
  afterAll(() => service.destroy());

  const clone = (): AcceptanceReceiptV1 => JSON.parse(JSON.stringify(receipt));

  it('judges the untouched receipt VALID with only the receipt and the JSON-RPC endpoint', async () => {
    const r = await svcVerify(serializeReceipt(receipt), service.rpcUrl, dir);
    expect(r).toEqual({ code: 0, verdict: 'VALID', failed: [] });
    const report = await client.request<{ report: { verdict: string } }>('GET', `/v1/public/acceptances/${receipt.acceptanceId}/receipt`);
    expect(report.report.verdict).toBe('VALID');
  });

  it('a finalized summary reads the same every time, each answer with its own request id and the public headers', async () => {
    const read = async (requestId: string) => {
      const res = await fetch(`${service.baseUrl}/api/v1/public/acceptances/${receipt.acceptanceId}`, { headers: { origin: 'https://elsewhere.example', 'x-request-id': requestId } });
      return { status: res.status, type: res.headers.get('content-type'), id: res.headers.get('x-request-id'), cors: res.headers.get('access-control-allow-origin'), limit: res.headers.get('x-ratelimit-limit'), body: await res.text() };
    };
    const first = await read('first-read');
    const second = await read('second-read');
    expect(first).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', id: 'first-read', cors: '*' });
    expect(second).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', id: 'second-read', cors: '*', limit: first.limit });
    expect(Number(first.limit)).toBeGreaterThan(0);
    expect(second.body).toBe(first.body);
    const { acceptance, receiptUrl } = JSON.parse(first.body) as { acceptance: Record<string, unknown>; receiptUrl: string };
    expect(acceptance).toMatchObject({ acceptanceId: receipt.acceptanceId, commitment: 'finalized', transactionSignature: receipt.transaction.signature, externalUserRef: null });
    expect(receiptUrl).toMatch(new RegExp(`/receipts/${receipt.acceptanceId}$`));
  });

  it('a finalized receipt read again differs only in its issue time, and verifies VALID each time', async () => {
    const first = (await fetchReceipt(client, receipt.acceptanceId)).receipt as AcceptanceReceiptV1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = (await fetchReceipt(client, receipt.acceptanceId)).receipt as AcceptanceReceiptV1;
    expect(Date.parse(second.issuedAt)).toBeGreaterThan(Date.parse(first.issuedAt));
    expect({ ...second, issuedAt: first.issuedAt }).toEqual(first);
    expect({ ...first, issuedAt: receipt.issuedAt }).toEqual(receipt);
    expect(await svcVerify(serializeReceipt(second), service.rpcUrl, dir)).toEqual({ code: 0, verdict: 'VALID', failed: [] });
  });

  it('a fresh receipt is VALID_WITH_WARNINGS (exit 1) until finality; --wait-finalized waits for it and exits 0', async () => {
    const fresh = await acceptAsWallet(client, await generateKeyPairSigner(), { organization: doc.organization.address, document: doc.document.address, origin: 'https://shop.example.com' });
    const { receipt: young } = await fetchReceipt(client, fresh.acceptanceId);
    const now = await svcVerify(serializeReceipt(young), service.rpcUrl, dir);
    expect(now).toEqual({ code: 1, verdict: 'VALID_WITH_WARNINGS', failed: [] });
    const commitment = async () => (await client.request<{ acceptance: { commitment: string } }>('GET', `/v1/public/acceptances/${fresh.acceptanceId}`)).acceptance.commitment;
    expect(await commitment()).toBe('confirmed'); // read (and not kept) before finality
    // Three waits at once from one address stay inside the endpoint's request budget (300 a minute per client).
    const others = await Promise.all(
      [1, 2].map(async () => {
        const more = await acceptAsWallet(client, await generateKeyPairSigner(), { organization: doc.organization.address, document: doc.document.address, origin: 'https://shop.example.com' });
        return serializeReceipt((await fetchReceipt(client, more.acceptanceId)).receipt);
      }),
    );
    // Counted on the way (each verification makes about a dozen calls; the wait itself one every 2 s).
    let calls = 0;
    const target = new URL(service.rpcUrl);
    const counter = http.createServer((req, res) => {
      calls++;
      const upstream = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
    const via = `http://127.0.0.1:${(counter.address() as AddressInfo).port}/rpc`;
    const started = Date.now();
    try {
      const waited = await Promise.all([young, ...others].map((r) => svcVerify(typeof r === 'string' ? r : serializeReceipt(r), via, dir, ['--wait-finalized', '60'])));
      expect(waited).toEqual([0, 1, 2].map(() => ({ code: 0, verdict: 'VALID', failed: [] })));
    } finally {
      counter.close();
    }
    // Each process: two full verifications (about 11 calls each) and one status call per 2 s of waiting.
    expect(calls).toBeLessThanOrEqual(3 * (2 * 14 + Math.ceil((Date.now() - started) / 2000) + 1));
    await eventually(async () => ((await commitment()) === 'finalized' ? true : undefined));
  });

  it('--wait-finalized does not wait on a receipt that cannot become valid', async () => {
    const r = clone();
    r.documentText = r.documentText.replace('GitHub', 'GitLab');
    const started = Date.now();
    const v = await svcVerify(r, service.rpcUrl, dir, ['--wait-finalized']);
    expect(v.verdict).toBe('INVALID');
    expect(Date.now() - started).toBeLessThan(20_000);
    // Written before the file, the flag takes no value from it: the file is still the receipt to verify.
    const file = path.join(dir, 'flag-first-receipt.json');
    writeFileSync(file, JSON.stringify(r));
    const flagFirst = await exec(process.execPath, [cliMain(), 'verify', '--wait-finalized', file, '--rpc', service.rpcUrl, '--json']).then(
      () => ({ code: 0, stdout: '' }),
      (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
    );
    expect(flagFirst.code).toBe(1);
    expect(JSON.parse(flagFirst.stdout)).toMatchObject({ verdict: 'INVALID' });
  });

  it('a text starting with two BOMs, with blanks before U+2028/U+2029: its receipt verifies, its public bytes hash to its version', async () => {
    const other = await publishedDocument(service, [], 'edge-text');
    const source = '\uFEFF\uFEFFTerms \u2028of use\t\u2029for everyone \r\n';
    const { version } = await publishThroughDraft(other, 1, source);
    // docs/protocol.md §2, written out: every leading BOM removed, lines end at LF only.
    const canonical = Buffer.from('Terms \u2028of use\t\u2029for everyone\n', 'utf8');
    expect(version.contentHash).toBe(createHash('sha256').update(canonical).digest('hex'));
    const served = Buffer.from(await (await fetch(`${service.baseUrl}/api/v1/public/content/${version.contentHash}`)).arrayBuffer());
    expect(served.equals(canonical)).toBe(true);
    const accepted = await acceptAsWallet(client, await generateKeyPairSigner(), { organization: other.organization.address, document: other.document.address, origin: 'https://shop.example.com' });
    const { receipt: edge, report } = await fetchReceipt(client, accepted.acceptanceId);
    expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
    expect(await svcVerify(serializeReceipt(edge), service.rpcUrl, dir)).toEqual({ code: 1, verdict: 'VALID_WITH_WARNINGS', failed: [] });
  });

  it('judges a receipt with altered document text INVALID', async () => {
    const r = clone();
    r.documentText = r.documentText.replace('GitHub', 'GitHub, Inc.');
    const v = await svcVerify(r, service.rpcUrl, dir);
    expect(v.code).not.toBe(0);
    expect(v.verdict).toBe('INVALID');
  });

  it('judges a receipt with an altered message INVALID, even when re-signed by another key', async () => {
    const r = clone();
    r.acceptance.message = r.acceptance.message.replace(/\d+\n/, (m) => m);
    r.acceptance.message = r.acceptance.message.replace('shop.example.com', 'evil.example.com');
    expect(r.acceptance.message).not.toBe(receipt.acceptance.message);
    expect((await svcVerify(r, service.rpcUrl, dir)).verdict).toBe('INVALID');
    const impostor = await generateKeyPairSigner();
    const resigned = clone();
    resigned.acceptance.signature = await signText(impostor, resigned.acceptance.message);
    resigned.acceptance.signer = impostor.address;
    expect((await svcVerify(resigned, service.rpcUrl, dir)).verdict).toBe('INVALID');
  });

  it('judges a receipt with an altered signature INVALID', async () => {
    const r = clone();
    const s = r.acceptance.signature;
    r.acceptance.signature = (s[0] === '2' ? '3' : '2') + s.slice(1);
    const v = await svcVerify(r, service.rpcUrl, dir);
    expect(v.verdict).toBe('INVALID');
    expect(v.code).not.toBe(0);
  });

  it('judges a receipt pointing at another transaction INVALID', async () => {
    const r = clone();
    r.transaction.signature = otherSignature;
    expect((await svcVerify(r, service.rpcUrl, dir)).verdict).toBe('INVALID');
  });

  it('waits out an endpoint that refuses calls for its request budget (HTTP 429, retry-after), then judges VALID', async () => {
    // The first two calls are refused as a rate-limited public endpoint refuses them (the first saying when to come
    // back, the second not), and so is any call sent less than half a second after a refusal; the rest go through.
    let refused = 0;
    let lastRefusal = 0;
    const target = new URL(service.rpcUrl);
    const limited = http.createServer((req, res) => {
      if (refused < 2 || Date.now() - lastRefusal < 500) {
        refused++;
        lastRefusal = Date.now();
        req.resume();
        res.writeHead(429, { ...(refused === 1 ? { 'retry-after': '1' } : {}), 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":429,"message":"rate limited"},"id":null}');
        return;
      }
      const upstream = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => limited.listen(0, '127.0.0.1', resolve));
    try {
      const v = await svcVerify(serializeReceipt(receipt), `http://127.0.0.1:${(limited.address() as AddressInfo).port}/rpc`, dir);
      expect(v).toEqual({ code: 0, verdict: 'VALID', failed: [] });
      expect(refused).toBeGreaterThanOrEqual(2);
    } finally {
      limited.close();
    }
  });

  it('does not call a receipt valid when the ledger cannot be reached', async () => {
    const v = await svcVerify(serializeReceipt(receipt), 'http://127.0.0.1:9/', dir);
    expect(v.code).not.toBe(0);
    expect(v.verdict).toBe('INCONCLUSIVE');
  });

  it('gives up on a ledger endpoint that never answers after --timeout seconds: INCONCLUSIVE, exit 1', async () => {
    const held: http.ServerResponse[] = [];
    const silent = http.createServer((_req, res) => void held.push(res));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const v = await svcVerify(serializeReceipt(receipt), `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`, dir, ['--timeout', '1']);
      expect(v).toEqual({ code: 1, verdict: 'INCONCLUSIVE', failed: [] });
      expect(held.length).toBeGreaterThan(0);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('judges receipt text that repeats a key INVALID, though a last-copy-wins parser reads the genuine receipt', async () => {
    const text = serializeReceipt(receipt);
    const v = await svcVerify(`{"documentText":"Nothing was agreed.",${text.slice(1)}`, service.rpcUrl, dir);
    expect(v).toEqual({ code: 1, verdict: 'INVALID', failed: ['receipt.format'] });
  });

  it('says a receipt file is missing and a command line is incomplete (exit 2, on stderr); one that is not JSON is judged INVALID (exit 1), receipt.format failing', async () => {
    const refusal = async (...args: string[]) =>
      exec(process.execPath, [cliMain(), 'verify', ...args, '--rpc', service.rpcUrl]).then(
        (ok: { stdout: string }) => ({ code: 0, stderr: '', stdout: ok.stdout }),
        (err: { code: number; stderr: string; stdout: string }) => ({ code: err.code, stderr: err.stderr, stdout: err.stdout }),
      );
    const missing = await refusal(path.join(dir, 'no-such-receipt.json'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read the receipt file .*no-such-receipt\.json: ENOENT/);
    const missingJson = await refusal(path.join(dir, 'no-such-receipt.json'), '--json');
    expect(missingJson.code).toBe(2);
    expect(JSON.parse(missingJson.stdout)).toEqual({ error: { code: 'invalid_command_line', message: expect.stringMatching(/^cannot read the receipt file .*: ENOENT$/) } });
    // A verdict that cannot be written (stdout on a full disk) is no verdict: exit 2 with one line, not a stack trace.
    const file = path.join(dir, 'receipt-for-dev-full.json');
    writeFileSync(file, serializeReceipt(receipt));
    // Spawned without blocking this process, which serves the ledger endpoint the verification reads.
    const full = await new Promise<{ status: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [cliMain(), 'verify', file, '--rpc', service.rpcUrl], { stdio: ['ignore', openSync('/dev/full', 'w'), 'pipe'] });
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject).on('close', (status) => resolve({ status, stderr }));
    });
    expect(full).toEqual({ status: 2, stderr: 'error: cannot write the output: ENOSPC\n' });
    // An RPC URL with credentials cannot be sent (fetch refuses it): refused without repeating the password.
    const withPassword = await exec(process.execPath, [cliMain(), 'verify', path.join(dir, 'no-such-receipt.json'), '--rpc', 'http://auditor:s3cr3t-pw@127.0.0.1:1/rpc']).catch(
      (err: { code: number; stderr: string; stdout: string }) => err,
    );
    expect(withPassword).toMatchObject({ code: 2, stderr: expect.stringContaining('must not carry user:password@') });
    expect(`${withPassword.stderr}${withPassword.stdout}`).not.toContain('s3cr3t-pw');
    const noRpc = await exec(process.execPath, [cliMain(), 'verify', path.join(dir, 'no-such-receipt.json')]).catch((err: { code: number; stderr: string }) => err);
    expect(noRpc).toMatchObject({ code: 2, stderr: expect.stringContaining("required option '--rpc <url>' not specified") });
    // A wait no timer can keep (over 2^31 - 1 ms, under a millisecond) is a command line it cannot run, not INCONCLUSIVE.
    for (const timeout of ['3000000', '1e20', '0.0001', 'Infinity']) {
      const refused = await exec(process.execPath, [cliMain(), 'verify', path.join(dir, 'no-such-receipt.json'), '--rpc', service.rpcUrl, '--timeout', timeout]).catch((err: { code: number; stderr: string }) => err);
      expect([timeout, refused]).toMatchObject([timeout, { code: 2, stderr: expect.stringContaining('must be a number of seconds from 0.001 to 2147483') }]);
    }
    const notJson = path.join(dir, 'not-json.txt');
    writeFileSync(notJson, 'hello');
    const text = await refusal(notJson, '--json');
    expect(text.code).toBe(1);
    const report = JSON.parse(text.stdout) as { verdict: string; checks: { id: string; status: string }[] };
    expect(report.verdict).toBe('INVALID');
    expect(report.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual(['receipt.format']);
  });

  it('svc publish refuses a document file that is not UTF-8 before touching the ledger (exit 2, on stderr)', async () => {
    const latin1 = path.join(dir, 'terms-latin1.md');
    writeFileSync(latin1, Buffer.from('Conditions g\xe9n\xe9rales\n', 'latin1'));
    const answer = await exec(process.execPath, [cliMain(), 'publish', latin1, '--keypair', path.join(dir, 'absent.json'), '--org', doc.organization.address, '--document', doc.document.address, '--label', 'v9', '--title', 'T', '--api', service.baseUrl]).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    expect(answer).toEqual({ code: 2, stderr: `error: ${latin1} is not UTF-8 text: convert it first (for example: iconv -f latin1 -t utf-8 ${latin1} > converted.md)\n` });
  });

  it('svc doc create and publish refuse a key pair that is not the organization authority, and a writing command an --rpc of another network, before signing anything', async () => {
    const svc = (...args: string[]) =>
      exec(process.execPath, [cliMain(), ...args, '--api', service.baseUrl]).then(
        (ok: { stdout: string }) => ({ code: 0, stdout: ok.stdout, stderr: '' }),
        (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
      );
    const rpc = async (url: string, method: string, params: unknown[]) =>
      ((await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as { result: unknown }).result;
    const key = path.join(dir, 'stranger.json');
    const session = path.join(dir, 'stranger-session.json');
    const { address } = JSON.parse((await exec(process.execPath, [cliMain(), 'keygen', '--out', key, '--json'])).stdout) as { address: string };
    expect((await svc('airdrop', '--keypair', key, '--sol', '1')).code).toBe(0);
    // Signed in as the organization's owner, as an operator may be, with another key pair's file at hand.
    await saveSession(session, await signIn(new ApiClient(service.baseUrl), doc.owner));
    const landed = async () => ((await rpc(service.rpcUrl, 'getSignaturesForAddress', [address, { commitment: 'confirmed' }])) as unknown[]).length;
    const before = await landed();

    // A funded key that is not the organization's authority: the service would refuse what it signs, after it landed.
    const notAuthority = new RegExp(`key pair ${address} is not the authority \\w+ of organization ${doc.organization.address}: nothing was signed or sent`);
    const created = await svc('doc', 'create', '--keypair', key, '--org', doc.organization.address, '--slug', 'strangers', '--title', 'Strangers', '--session', session);
    expect(created).toMatchObject({ code: 1, stderr: expect.stringMatching(notAuthority) });
    const terms = path.join(dir, 'terms-v9.md');
    writeFileSync(terms, '# Terms\n\nVersion nine.\n');
    const published = await svc('publish', terms, '--keypair', key, '--org', doc.organization.address, '--document', doc.document.address, '--label', 'v9', '--title', 'T', '--session', session);
    expect(published).toMatchObject({ code: 1, stderr: expect.stringMatching(notAuthority) });
    expect(await landed()).toBe(before);

    // An RPC endpoint of another network (another genesis hash): asked for its genesis hash only.
    const asked: string[] = [];
    const other = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        asked.push(method);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: method === 'getGenesisHash' ? '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY' : null }));
      });
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const otherRpc = `http://127.0.0.1:${(other.address() as AddressInfo).port}/`;
      const onOther = await svc('org', 'create', '--keypair', key, '--name', 'Elsewhere Inc.', '--rpc', otherRpc);
      expect(onOther).toMatchObject({ code: 1, stderr: expect.stringContaining('--rpc serves another network (solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z)') });
      expect(onOther.stderr).not.toContain(otherRpc);
      expect(asked).toEqual(['getGenesisHash']);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('svc says a service it cannot reach is unreachable: exit 1, with --json the code service_unreachable', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const api = `http://127.0.0.1:${port}`;
    const answer = await exec(process.execPath, [cliMain(), 'receipt', 'ab'.repeat(32), '--api', api, '--json']).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(answer.code).toBe(1);
    expect(answer.stderr).toBe(`error: cannot reach the service at ${api} (ECONNREFUSED): is it running, and is --api right?\n`);
    expect(JSON.parse(answer.stdout)).toEqual({ error: { code: 'service_unreachable', message: `cannot reach the service at ${api} (ECONNREFUSED): is it running, and is --api right?` } });
  });

  it('svc accept tells a batched acceptance is pending its batch, rather than printing a null transaction and fee', async () => {
    const batched = await publishedDocument(service, [1], 'batched-terms');
    await batched.dashboard.request('PATCH', `/v1/organizations/${batched.organization.id}/settings`, { evidenceMode: 'MERKLE_BATCHED' });
    const key = path.join(dir, 'batched-signer.json');
    await exec(process.execPath, [cliMain(), 'keygen', '--out', key]);
    const { stdout } = await exec(process.execPath, [cliMain(), 'accept', '--keypair', key, '--org', batched.organization.address, '--document', batched.document.address, '--api', service.baseUrl]);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^accepted: [0-9a-f]{64}$/);
    expect(lines[1]).toMatch(/^pending_batch: recorded; its batch is anchored on the ledger within about 10 s/);
    expect(stdout).not.toMatch(/null|slot 0/);
  });

  it('svc receipt --wait waits for a batched acceptance\'s batch; without it the receipt is refused as pending (exit 1; with --json, the API\'s error as JSON on stdout)', async () => {
    const batched = await publishedDocument(service, [1], 'batched-receipts');
    await batched.dashboard.request('PATCH', `/v1/organizations/${batched.organization.id}/settings`, { evidenceMode: 'MERKLE_BATCHED' });
    const accepted = await acceptAsWallet(client, await generateKeyPairSigner(), { organization: batched.organization.address, document: batched.document.address, origin: 'https://shop.example.com' });
    expect(accepted.status).toBe('pending_batch');
    const at = (...args: string[]) =>
      exec(process.execPath, [cliMain(), 'receipt', accepted.acceptanceId, '--api', service.baseUrl, ...args]).then(
        (ok: { stdout: string; stderr: string }) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
        (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
      );
    const pending = await at('--json');
    expect(pending.code).toBe(1);
    expect(pending.stderr).toMatch(/^error: 409 pending_batch: /);
    expect(JSON.parse(pending.stdout)).toEqual({ error: { code: 'pending_batch', message: expect.stringMatching(/^409 pending_batch: /), status: 409 } });
    const waited = await at('--wait', '40');
    expect(waited).toMatchObject({ code: 0, stderr: '' });
    const fetched = JSON.parse(waited.stdout) as { format: string; evidenceMode: string; acceptanceId: string };
    expect(fetched).toMatchObject({ format: 'svc-receipt/2', evidenceMode: 'MERKLE_BATCHED', acceptanceId: accepted.acceptanceId });
    expect(await svcVerify(waited.stdout, service.rpcUrl, dir, ['--wait-finalized', '40'])).toMatchObject({ code: 0, verdict: 'VALID' });
  });

  it('exits 2 for a command line it cannot run (a malformed value, a file it cannot read, nothing asked of the service), 1 for a refusal; --json errors are JSON', async () => {
    const svc = (...args: string[]) =>
      exec(process.execPath, [cliMain(), ...args]).then(
        (ok: { stdout: string; stderr: string }) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
        (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
      );
    const key = path.join(dir, 'usage-signer.json');
    await svc('keygen', '--out', key);
    const org = ['--org', doc.organization.address, '--document', doc.document.address];
    const publish = (...args: string[]) => svc('publish', ...args, '--keypair', key, ...org, '--label', 'v9', '--title', 'T', '--api', service.baseUrl);
    expect(await publish(path.join(dir, 'no-such-terms.md'))).toMatchObject({ code: 2, stderr: expect.stringMatching(/^error: cannot read .*no-such-terms\.md: ENOENT\n$/) });
    const terms = path.join(dir, 'usage-terms.md');
    writeFileSync(terms, '# Terms\n');
    for (const value of ['1.5', '-1', '0', '9007199254740992', '1e9']) {
      expect([value, await publish(terms, '--effective-at', value)]).toMatchObject([value, { code: 2, stderr: expect.stringContaining("option '--effective-at <unix>' argument") }]);
    }
    const notAnId = await svc('receipt', 'not-an-acceptance-id', '--api', service.baseUrl, '--json');
    expect(notAnId).toMatchObject({ code: 2, stderr: expect.stringContaining('must be an acceptance id: 64 lower-case hexadecimal characters') });
    expect(JSON.parse(notAnId.stdout)).toEqual({ error: { code: 'invalid_command_line', message: expect.stringContaining('must be an acceptance id') } });
    expect(await svc('accept', '--keypair', key, ...org, '--api', 'notaurl')).toMatchObject({ code: 2, stderr: expect.stringContaining("option '--api <url>' argument 'notaurl' is invalid") });
    const missingKey = await svc('accept', '--keypair', path.join(dir, 'no-such-key.json'), ...org, '--api', service.baseUrl, '--json');
    expect(missingKey).toMatchObject({ code: 2, stderr: expect.stringMatching(/^error: cannot read the key pair file .*no-such-key\.json: ENOENT\n$/) });
    expect(JSON.parse(missingKey.stdout)).toEqual({ error: { code: 'invalid_command_line', message: expect.stringContaining('cannot read the key pair file') } });
    // A refusal of the service stays exit 1; with --json its error comes on stdout too, status included.
    const unknown = await svc('receipt', 'ab'.repeat(32), '--api', service.baseUrl, '--json');
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: 404 not_found: /) });
    expect(JSON.parse(unknown.stdout)).toMatchObject({ error: { code: 'not_found', status: 404 } });
  });

  it('warns of a key pair file others can read, and says in plain words that an unfunded key pair cannot pay the fee', async () => {
    const key = path.join(dir, 'loose-key.json');
    await exec(process.execPath, [cliMain(), 'keygen', '--out', key]);
    chmodSync(key, 0o644);
    const created = await exec(process.execPath, [cliMain(), 'org', 'create', '--keypair', key, '--name', 'Unfunded Inc.', '--api', service.baseUrl, '--json']).catch((err: { code: number; stdout: string; stderr: string }) => err);
    expect(created).toMatchObject({ code: 1 });
    expect(JSON.parse(created.stdout)).toMatchObject({ error: { code: 'ledger_AccountNotFound', message: expect.stringContaining('cannot pay the transaction fee') } });
    const [warning, error] = created.stderr.trim().split('\n');
    expect(warning).toBe(`warning: the key pair file ${key} (mode 0644) can be read by others: chmod 600 ${key}`);
    expect(error).toMatch(/^error: key pair \w+ cannot pay the transaction fee on this ledger \(it holds no lamports\): fund it first \(on a test network: svc airdrop --keypair <file>\); nothing was recorded on the ledger$/);
    chmodSync(key, 0o600);
    const quiet = await exec(process.execPath, [cliMain(), 'keygen', '--out', path.join(dir, 'tight-key.json')]);
    expect(quiet.stderr).toBe('');
  });

  it('judges the receipt endpoint\'s whole answer INVALID (it is no receipt), with a hint on stderr to verify its receipt member', async () => {
    const file = path.join(dir, 'receipt-answer.json');
    writeFileSync(file, JSON.stringify(await client.request('GET', `/v1/public/acceptances/${receipt.acceptanceId}/receipt`)));
    const answer = await exec(process.execPath, [cliMain(), 'verify', file, '--rpc', service.rpcUrl, '--json']).catch((err: { code: number; stdout: string; stderr: string }) => err);
    expect(answer).toMatchObject({ code: 1 });
    expect((JSON.parse(answer.stdout) as { verdict: string }).verdict).toBe('INVALID');
    expect(answer.stderr).toBe(`hint: ${file} is the service's answer {receipt, report}: verify its "receipt" member alone (for example: jq .receipt ${file} > receipt.json)\n`);
  });

  it('judges garbage INVALID', async () => {
    const v = await svcVerify('{"format":"svc-receipt-v1"}', service.rpcUrl, dir);
    expect(v.verdict).toBe('INVALID');
  });
});
