import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { generateKeypairFile, loadKeypairSigner, RpcLedger } from '@svc/ledger';
import { serializeReceipt } from '@svc/evidence';
import { ApiClient, ApiError } from './api-client';
import {
  acceptAsWallet,
  createDocumentOnLedger,
  createOrganizationOnLedger,
  fetchReceipt,
  publishVersion,
  signIn,
  syncDocument,
  syncOrganization,
  type AcceptanceResult,
} from './operations';
import type { Output } from './output';
import { cliMain, documentsDir } from './paths';
import { startService } from './service-process';

const run = promisify(execFile);

export interface DemoOptions {
  dataDir: string;
  port?: number;
  keepRunning: boolean;
  output: Output;
}

interface DemoAcceptance {
  who: string;
  signer: string;
  version: number;
  acceptanceId: string;
  transactionSignature: string;
  feeLamports: number;
  receiptFile?: string;
  verdict?: string;
}

async function keypair(dir: string, name: string) {
  const file = path.join(dir, `${name}.json`);
  try {
    await fs.access(file);
  } catch {
    await generateKeypairFile(file);
  }
  return loadKeypairSigner(file);
}

/**
 * The main job: starts the service on its embedded default (in `dataDir`), publishes the real Terms of Service
 * v1, has two wallets accept it, publishes v2, shows that the latest version changed and that v1's acceptance
 * does not cover v2, has one wallet accept v2, shows a repeated acceptance refused with 409 already_accepted,
 * waits for finality, then fetches every receipt and verifies each with `svc verify` against the ledger's
 * JSON-RPC endpoint. Returns true when every receipt is VALID.
 */
export async function runDemo(options: DemoOptions): Promise<boolean> {
  const { output } = options;
  const say = (line: string) => {
    if (!output.json) process.stdout.write(`${line}\n`);
  };
  const demoDir = path.join(options.dataDir, 'demo');
  const receiptsDir = path.join(demoDir, 'receipts');
  await fs.mkdir(receiptsDir, { recursive: true });

  const progress = output.progress(15, 'demo');
  const service = await startService({ dataDir: options.dataDir, port: options.port });
  let keepRunning = false;
  try {
    progress.step('service ready');
    const client = new ApiClient(service.baseUrl);
    const ledger = new RpcLedger({ url: service.rpcUrl });
    const origin = 'https://shop.example.com';

    const orgWallet = await keypair(demoDir, 'organization-wallet');
    const alice = await keypair(demoDir, 'alice');
    const bob = await keypair(demoDir, 'bob');
    await ledger.requestAirdrop(orgWallet.address, 2_000_000_000n);
    progress.step('organization wallet funded');

    const org = await createOrganizationOnLedger(ledger, orgWallet, 'Example Shop Inc.', 'shop.example.com');
    const document = await createDocumentOnLedger(ledger, orgWallet, org.address, 'terms-of-service', 'Terms of Service');
    progress.step('organization and document created on the ledger');

    const session = await signIn(client, orgWallet);
    const dashboard = new ApiClient(service.baseUrl).useSession(session);
    const orgRecord = await syncOrganization(dashboard, org.address);
    const docRecord = await syncDocument(dashboard, orgRecord.id, document.address);
    progress.step('signed in; organization and document synced');

    const docs = documentsDir();
    const v1Text = await fs.readFile(path.join(docs, 'github-terms-of-service.v1.md'), 'utf8');
    const v2Text = await fs.readFile(path.join(docs, 'github-terms-of-service.v2.md'), 'utf8');
    const v1 = await publishVersion(dashboard, ledger, orgWallet, { documentId: docRecord.id, source: v1Text, label: '2022-09', title: 'Terms of Service' });
    progress.step('version 1 published');

    const accepted: DemoAcceptance[] = [];
    const record = (who: string, signer: string, version: number, r: AcceptanceResult) =>
      accepted.push({ who, signer, version, acceptanceId: r.acceptanceId, transactionSignature: r.transactionSignature, feeLamports: r.fee.lamports });
    const input = { organization: org.address, document: document.address, origin };
    const a1 = await acceptAsWallet(client, alice, input);
    record('alice', alice.address, 1, a1);
    const b1 = await acceptAsWallet(client, bob, input);
    record('bob', bob.address, 1, b1);
    progress.step('alice and bob accepted version 1');

    const v2 = await publishVersion(dashboard, ledger, orgWallet, { documentId: docRecord.id, source: v2Text, label: '2023-12', title: 'Terms of Service' });
    const publicDoc = await client.request<{ version: { number: number; address: string } }>(
      'GET',
      `/v1/public/organizations/${org.address}/documents/terms-of-service`,
    );
    progress.step('version 2 published');

    const aliceEvidence = await client.request<{ acceptances: { versionAddress: string }[] }>('GET', `/v1/public/signers/${alice.address}`);
    const aliceHasV1 = aliceEvidence.acceptances.some((a) => a.versionAddress === v1.version.address);
    const aliceHasV2Before = aliceEvidence.acceptances.some((a) => a.versionAddress === v2.version.address);
    progress.step('checked what alice has accepted');

    const a2 = await acceptAsWallet(client, alice, input);
    record('alice', alice.address, 2, a2);
    progress.step('alice accepted version 2');

    let repeat: { status: number; code: string } = { status: 0, code: 'none' };
    try {
      await acceptAsWallet(client, alice, input);
    } catch (err) {
      if (err instanceof ApiError) repeat = { status: err.status, code: err.code };
      else throw err;
    }
    progress.step('a repeated acceptance was refused');

    // The shop's server, with an API key: links bob's acceptance to its customer through an acceptance session
    // (off the ledger), then asks whether that customer accepted the current version.
    const { key } = await dashboard.request<{ key: string }>('POST', `/v1/organizations/${orgRecord.id}/api-keys`, {
      name: 'Shop checkout server',
      scopes: ['acceptances:write', 'acceptances:read', 'documents:read'],
      expiresInDays: 30,
    });
    const shop = <T>(method: string, route: string, body?: unknown) => client.request<T>(method, route, body, { headers: { authorization: `Bearer ${key}` } });
    const customer = 'customer-1042';
    const { sessionToken } = await shop<{ sessionToken: string }>('POST', '/v1/acceptance-sessions', { document: 'terms-of-service', externalUserRef: customer });
    const b2 = await acceptAsWallet(client, bob, { ...input, sessionToken });
    record('bob', bob.address, 2, b2);
    const latest = await shop<{ version: { address: string; number: number } }>('GET', '/v1/documents/by-slug/terms-of-service/latest');
    const found = await shop<{ acceptances: { acceptanceId: string }[] }>('GET', `/v1/acceptances?externalUserRef=${customer}&version=${latest.version.address}&limit=1`);
    const customerAccepted = found.acceptances[0]?.acceptanceId === b2.acceptanceId;
    progress.step("the shop's server linked bob's acceptance to its customer");

    // Receipts are verified once the ledger has finalized their transactions (32 slots deep).
    const deadline = Date.now() + 90_000;
    for (;;) {
      const states = await Promise.all(
        accepted.map((a) => client.request<{ acceptance: { commitment: string } }>('GET', `/v1/public/acceptances/${a.acceptanceId}`)),
      );
      if (states.every((s) => s.acceptance.commitment === 'finalized')) break;
      if (Date.now() > deadline) throw new Error('the acceptances were not finalized within 90 s');
      await new Promise((r) => setTimeout(r, 500));
    }
    progress.step('acceptances finalized on the ledger');

    for (const a of accepted) {
      const { receipt } = await fetchReceipt(client, a.acceptanceId);
      a.receiptFile = path.join(receiptsDir, `${a.acceptanceId}.json`);
      await fs.writeFile(a.receiptFile, `${serializeReceipt(receipt)}\n`);
    }
    progress.step('receipts fetched');

    for (const a of accepted) {
      try {
        const { stdout } = await run(process.execPath, [cliMain(), 'verify', a.receiptFile as string, '--rpc', service.rpcUrl, '--json']);
        a.verdict = (JSON.parse(stdout) as { verdict: string }).verdict;
      } catch (err) {
        const stdout = (err as { stdout?: string }).stdout;
        a.verdict = stdout ? (JSON.parse(stdout) as { verdict: string }).verdict : 'ERROR';
      }
    }
    progress.step('receipts verified with svc verify');
    progress.stop();

    const allValid = accepted.every((a) => a.verdict === 'VALID');
    const summary = {
      service: service.baseUrl,
      rpc: service.rpcUrl,
      dataDir: options.dataDir,
      organization: org.address,
      document: document.address,
      versions: [
        { number: v1.version.number, address: v1.version.address, contentHash: v1.version.contentHash, transactionSignature: v1.signature },
        { number: v2.version.number, address: v2.version.address, contentHash: v2.version.contentHash, transactionSignature: v2.signature },
      ],
      latestVersion: publicDoc.version.number,
      aliceAcceptedV1: aliceHasV1,
      aliceAcceptedV2BeforeSigning: aliceHasV2Before,
      repeatedAcceptance: repeat,
      customerLink: { externalUserRef: customer, version: latest.version.number, acceptanceId: b2.acceptanceId, found: customerAccepted },
      acceptances: accepted,
      allValid,
    };
    output.result(summary, [
      '',
      `Service ${service.baseUrl}/api, ledger JSON-RPC ${service.rpcUrl}, data in ${options.dataDir}`,
      `Organization ${org.address} published "Terms of Service" (${document.address}):`,
      `  v1 ${v1.version.address} content ${v1.version.contentHash.slice(0, 16)}…`,
      `  v2 ${v2.version.address} content ${v2.version.contentHash.slice(0, 16)}…`,
      `Latest version is now ${publicDoc.version.number}; alice had accepted v1 (${aliceHasV1 ? 'yes' : 'no'}) but not v2 (${aliceHasV2Before ? 'she had' : 'right'}) until she signed it.`,
      `A second acceptance of v2 by alice was refused: ${repeat.status} ${repeat.code}.`,
      `The shop's server (API key) opened an acceptance session for ${customer}; bob signed v2 in it, and one search for`,
      `  "${customer} accepted v${latest.version.number}" answers ${customerAccepted ? 'yes' : 'NO'} (the link stays off the ledger).`,
      'Acceptances (relayed by the service, fee paid by its relayer):',
      ...accepted.map((a) => `  ${a.who.padEnd(5)} v${a.version}  ${a.acceptanceId.slice(0, 16)}…  tx ${a.transactionSignature.slice(0, 20)}…  ${a.feeLamports} lamports  ${a.verdict}`),
      allValid ? 'Every receipt verified VALID against the ledger with svc verify.' : 'SOME RECEIPTS DID NOT VERIFY.',
      `Receipts: ${receiptsDir}`,
    ]);
    if (options.keepRunning) {
      keepRunning = true;
      say(`\nThe service keeps running at ${service.baseUrl} (Ctrl-C to stop). Try: curl ${service.baseUrl}/api/v1/network`);
      await new Promise<void>((resolve) => {
        const stop = () => void service.stop().then(resolve);
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    }
    return allValid && customerAccepted && repeat.code === 'already_accepted' && aliceHasV1 && !aliceHasV2Before && publicDoc.version.number === 2;
  } catch (err) {
    progress.stop();
    throw err;
  } finally {
    if (!keepRunning) await service.stop();
  }
}
