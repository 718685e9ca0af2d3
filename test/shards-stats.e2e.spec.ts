/**
 * Capacity shards and acceptance statistics over real HTTP (spec §4.10; docs/protocol.md "Shard record"; docs/api.md
 * "Shards", "Stats"): a shard created on the embedded ledger by the organization's wallet is read by sync; stats count
 * the acceptances the ledger confirmed, per document, version and day, with signers and fees.
 */
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { SHARD_ACCOUNT_SPACE } from '@svc/evidence';
import { ApiClient } from '../apps/cli/src/api-client';
import { acceptAsWallet, createShardOnLedger, signIn, writeMemberOnLedger } from '../apps/cli/src/operations';
import { codeOf, ORIGIN } from './support/durability';
import { eventually, publishedDocument, type PublishedDocument } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';

interface Shard {
  address: string;
  organization: string;
  operator: string;
  creationSignature: string;
  balanceLamports: number;
  rentExemptLamports: number;
  spendableLamports: number;
}
interface Stats {
  totals: { acceptances: number; signers: number; feeLamports: number };
  documents: { documentSlug: string; acceptances: number; feeLamports: number; versions: { versionNumber: number; acceptances: number; feeLamports: number }[] }[];
  days: { day: string; acceptances: number; feeLamports: number }[];
}

describe('shards and stats', () => {
  let service: TestService;
  let doc: PublishedDocument;
  let other: PublishedDocument;
  let relayer: string;

  beforeAll(async () => {
    service = await startTestService({ env: { RATE_LIMIT_SIGNIN_PER_MINUTE: '1000', LEDGER_AIRDROPS_PER_MINUTE: '1000' } });
    [doc, other] = await Promise.all([publishedDocument(service, [1]), publishedDocument(service, [1], 'privacy')]);
    relayer = (await new ApiClient(service.baseUrl).request<{ relayer: string }>('GET', '/v1/network')).relayer;
  });
  afterAll(() => service.destroy());

  const shardsOf = (d: PublishedDocument) => `/v1/organizations/${d.organization.id}/shards`;
  const session = async (wallet: KeyPairSigner) => new ApiClient(service.baseUrl).useSession(await signIn(new ApiClient(service.baseUrl), wallet));

  it('syncs a shard created on the ledger by the organization wallet and lists it', async () => {
    const deposit = 50_000_000n;
    const rent = await doc.ledger.getMinimumBalanceForRentExemption(SHARD_ACCOUNT_SPACE);
    const created = await createShardOnLedger(doc.ledger, doc.owner, { organization: doc.organization.address, operator: relayer, lamports: rent + deposit });
    const { shard } = await doc.dashboard.request<{ shard: Shard }>('POST', `${shardsOf(doc)}/sync`, { address: created.address });
    expect(shard).toMatchObject({
      address: created.address,
      organization: doc.organization.address,
      operator: relayer,
      creationSignature: created.signature,
      balanceLamports: Number(rent + deposit),
      rentExemptLamports: Number(rent),
      spendableLamports: Number(deposit),
    });
    // Syncing at once from several requests answers every one with the shard, recorded once (another organization).
    const busy = await publishedDocument(service, [], 'busy');
    const second = await createShardOnLedger(busy.ledger, busy.owner, { organization: busy.organization.address, operator: relayer, lamports: rent + deposit });
    const concurrent = await Promise.all(Array.from({ length: 5 }, () => codeOf(busy.dashboard.request<{ shard: Shard }>('POST', `${shardsOf(busy)}/sync`, { address: second.address }))));
    expect(concurrent).toEqual(Array(5).fill('ok'));
    expect((await busy.dashboard.request<{ shards: Shard[] }>('GET', shardsOf(busy))).shards.map((s) => s.address)).toEqual([second.address]);
    // Syncing again answers the same shard; the list holds it once.
    expect((await doc.dashboard.request<{ shard: Shard }>('POST', `${shardsOf(doc)}/sync`, { address: created.address })).shard.address).toBe(created.address);
    expect((await doc.dashboard.request<{ shards: Shard[] }>('GET', shardsOf(doc))).shards.map((s) => s.address)).toEqual([created.address]);
    // Another organization neither syncs nor sees it.
    expect(await codeOf(other.dashboard.request('POST', `${shardsOf(other)}/sync`, { address: created.address }))).toBe('404 not_found');
    expect((await other.dashboard.request<{ shards: Shard[] }>('GET', shardsOf(other))).shards).toEqual([]);
    expect(await codeOf(other.dashboard.request('GET', shardsOf(doc)))).toBe('404 not_found');
  });

  it('refuses addresses that are not shards of this organization operated by this service', async () => {
    const sync = (address: unknown) => codeOf(doc.dashboard.request('POST', `${shardsOf(doc)}/sync`, { address }));
    expect(await sync((await generateKeyPairSigner()).address)).toBe('404 not_found');
    expect(await sync(doc.organization.address)).toBe('409 chain_state');
    const rent = await doc.ledger.getMinimumBalanceForRentExemption(SHARD_ACCOUNT_SPACE);
    const foreignOperator = await createShardOnLedger(doc.ledger, doc.owner, { organization: doc.organization.address, operator: doc.owner.address, lamports: rent + 1000n });
    expect(await sync(foreignOperator.address)).toBe('409 chain_state');
    const forOther = await createShardOnLedger(doc.ledger, doc.owner, { organization: other.organization.address, operator: relayer, lamports: rent + 1000n });
    expect(await sync(forOther.address)).toBe('409 chain_state');
    // Created by a wallet that is not the organization's authority.
    const stranger = await generateKeyPairSigner();
    await doc.ledger.requestAirdrop(stranger.address, 100_000_000n);
    const notByAuthority = await createShardOnLedger(doc.ledger, stranger, { organization: doc.organization.address, operator: relayer, lamports: rent + 1000n });
    expect(await sync(notByAuthority.address)).toBe('409 chain_state');

    expect(await sync('not-an-address')).toBe('400 invalid_address');
    expect(await codeOf(doc.dashboard.request('POST', `${shardsOf(doc)}/sync`, { address: doc.organization.address, extra: 1 }))).toBe('400 invalid_request');
    expect(await codeOf(doc.dashboard.request('POST', `/v1/organizations/nope/shards/sync`, { address: doc.organization.address }))).toBe('400 invalid_request');

    const publisher = await generateKeyPairSigner();
    await writeMemberOnLedger(doc.ledger, doc.owner, { organization: doc.organization.address, member: publisher.address, roles: ['publisher'], active: true });
    await doc.dashboard.request('POST', `/v1/organizations/${doc.organization.id}/refresh`);
    const asPublisher = await session(publisher);
    expect(await codeOf(asPublisher.request('POST', `${shardsOf(doc)}/sync`, { address: forOther.address }))).toBe('403 forbidden');
    expect((await asPublisher.request<{ shards: Shard[] }>('GET', shardsOf(doc))).shards).toHaveLength(1);
  });

  it('counts confirmed acceptances per document, version and day, with signers and fees', async () => {
    const statsPath = `/v1/organizations/${doc.organization.id}/stats`;
    const empty = await doc.dashboard.request<{ stats: Stats }>('GET', statsPath);
    expect(empty.stats).toEqual({ totals: { acceptances: 0, signers: 0, feeLamports: 0 }, documents: [], days: [] });

    const client = new ApiClient(service.baseUrl);
    const target = { organization: doc.organization.address, document: doc.document.address, origin: ORIGIN };
    const [alice, bob] = [await generateKeyPairSigner(), await generateKeyPairSigner()];
    const first = await acceptAsWallet(client, alice, target);
    await acceptAsWallet(client, bob, target);
    await doc.publish(2);
    await acceptAsWallet(client, alice, target);

    const stats = await eventually(async () => {
      const s = (await doc.dashboard.request<{ stats: Stats }>('GET', statsPath)).stats;
      return s.totals.acceptances === 3 ? s : undefined;
    });
    const fee = first.fee.lamports;
    expect(stats.totals).toEqual({ acceptances: 3, signers: 2, feeLamports: 3 * fee });
    expect(stats.documents).toEqual([
      {
        documentId: doc.document.id,
        documentSlug: 'terms-of-service',
        acceptances: 3,
        feeLamports: 3 * fee,
        versions: [
          expect.objectContaining({ versionNumber: 2, acceptances: 1, feeLamports: fee }),
          expect.objectContaining({ versionNumber: 1, acceptances: 2, feeLamports: 2 * fee }),
        ],
      },
    ]);
    expect(stats.days).toEqual([{ day: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), acceptances: 3, feeLamports: 3 * fee }]);
    // Other organizations' acceptances are not counted here; non-members get 404.
    expect((await other.dashboard.request<{ stats: Stats }>('GET', `/v1/organizations/${other.organization.id}/stats`)).stats.totals.acceptances).toBe(0);
    expect(await codeOf(other.dashboard.request('GET', statsPath))).toBe('404 not_found');
  });
});
