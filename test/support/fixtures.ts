import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { RpcLedger } from '@svc/ledger';
import { ApiClient } from '../../apps/cli/src/api-client';
import { documentsDir } from '../../apps/cli/src/paths';
import {
  createDocumentOnLedger,
  createOrganizationOnLedger,
  publishVersion,
  signIn,
  syncDocument,
  syncOrganization,
  type PublishedVersion,
} from '../../apps/cli/src/operations';
import type { TestService } from './test-service';

/** The real Terms of Service, version `n` (1 to 4), from the CC0 documents shipped with the project. */
export function termsOfService(n: 1 | 2 | 3 | 4): string {
  return readFileSync(path.join(documentsDir(), `github-terms-of-service.v${n}.md`), 'utf8');
}

/** An organization with one document on the ledger, synced by a signed-in dashboard session. */
export interface PublishedDocument {
  ledger: RpcLedger;
  owner: KeyPairSigner;
  dashboard: ApiClient;
  organization: { id: string; address: string };
  document: { id: string; address: string; slug: string };
  versions: PublishedVersion[];
  publish(n: 1 | 2 | 3 | 4): Promise<PublishedVersion>;
}

/** Creates an organization and a document on the ledger, syncs them, and publishes the given ToS versions. */
export async function publishedDocument(service: Pick<TestService, 'baseUrl' | 'rpcUrl'>, versions: (1 | 2 | 3 | 4)[] = [1], slug = 'terms-of-service'): Promise<PublishedDocument> {
  const ledger = new RpcLedger({ url: service.rpcUrl });
  const owner = await generateKeyPairSigner();
  await ledger.requestAirdrop(owner.address, 1_000_000_000n);
  const org = await createOrganizationOnLedger(ledger, owner, 'Example Shop Inc.', null);
  const doc = await createDocumentOnLedger(ledger, owner, org.address, slug, 'Terms of Service');
  const dashboard = new ApiClient(service.baseUrl).useSession(await signIn(new ApiClient(service.baseUrl), owner));
  const organization = await syncOrganization(dashboard, org.address);
  const document = await syncDocument(dashboard, organization.id, doc.address);
  const published: PublishedVersion[] = [];
  const publish = async (n: 1 | 2 | 3 | 4) => {
    const { version } = await publishVersion(dashboard, ledger, owner, { documentId: document.id, source: termsOfService(n), label: `v${n}`, title: 'Terms of Service' });
    published.push(version);
    return version;
  };
  for (const n of versions) await publish(n);
  return {
    ledger,
    owner,
    dashboard,
    organization: { id: organization.id, address: organization.address },
    document: { id: document.id, address: document.address, slug },
    versions: published,
    publish,
  };
}

/** Polls `check` until it returns a value other than undefined, for at most `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
