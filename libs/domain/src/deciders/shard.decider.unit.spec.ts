/** Shard stream (spec §4.10 shards; docs/protocol.md "Shard record"): synced from its creation transaction. */
import type { EventOf } from '../events';
import { A, ORG_FACTS, SIG, ledgerTx } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import type { LedgerTransactionFacts, OrganizationFacts } from './ledger-facts';
import { shardDecider, type SyncShardCommand } from './shard.decider';

const SHARD = A.v3;
const creation: LedgerTransactionFacts = ledgerTx({ kind: 'shard', organization: A.org, operator: A.relayer }, SHARD, SIG.v3);
const command = (over: Partial<SyncShardCommand> = {}): SyncShardCommand => ({
  kind: 'SyncShard',
  shard: SHARD,
  wallet: A.authority,
  organization: ORG_FACTS,
  authority: A.authority,
  operator: A.relayer,
  creation,
  nonceAuthority: A.relayer,
  balanceLamports: 51_447_680,
  rentExemptLamports: 1_447_680,
  ...over,
});
const synced: EventOf<'ShardSynced'> = {
  type: 'ShardSynced',
  data: {
    organizationId: A.orgId,
    organization: A.org,
    shard: SHARD,
    operator: A.relayer,
    creationSignature: SIG.v3,
    slot: creation.slot,
    blockTime: creation.blockTime,
    balanceLamports: 51_447_680,
    rentExemptLamports: 1_447_680,
    syncedBy: A.authority,
  },
};

describe('shard decider', () => {
  it('records a shard created by the authority, operated by the relayer', () => {
    expect(given(shardDecider).when(command())).toEqual(decided(synced));
  });

  it('decides nothing for a known shard of the same organization', () => {
    expect(given(shardDecider, [synced]).when(command({ creation: null }))).toEqual(decided());
  });

  it("refuses another organization's known shard, a non-member and an address without transactions with not_found", () => {
    const other: OrganizationFacts = { organizationId: A.otherOrgId, address: A.otherOrg, members: ORG_FACTS.members };
    expect(given(shardDecider, [synced]).when(command({ organization: other, creation: null }))).toEqual(refused('not_found'));
    expect(given(shardDecider).when(command({ wallet: A.stranger }))).toEqual(refused('not_found'));
    expect(given(shardDecider).when(command({ creation: null }))).toEqual(refused('not_found'));
  });

  it('refuses a publisher with forbidden', () => {
    const org: OrganizationFacts = { ...ORG_FACTS, members: [...ORG_FACTS.members, { address: A.signer, roles: ['publisher'] }] };
    expect(given(shardDecider).when(command({ organization: org, wallet: A.signer }))).toEqual(refused('forbidden'));
  });

  it.each<[string, Partial<SyncShardCommand>]>([
    ['a failed transaction', { creation: { ...creation, succeeded: false } }],
    ['a record of another kind', { creation: { ...creation, record: { kind: 'org', name: 'X', domain: null } } }],
    ['a record not co-signed by the shard', { creation: { ...creation, objectSigner: A.v2 } }],
    ['a shard of another organization', { creation: ledgerTx({ kind: 'shard', organization: A.otherOrg, operator: A.relayer }, SHARD, SIG.v3) }],
    ['a shard created by another wallet', { creation: ledgerTx({ kind: 'shard', organization: A.org, operator: A.relayer }, SHARD, SIG.v3, A.stranger) }],
    ['a shard operated by another key', { creation: ledgerTx({ kind: 'shard', organization: A.org, operator: A.stranger }, SHARD, SIG.v3) }],
    ['an account that is not a nonce account of the relayer', { nonceAuthority: null }],
  ])('refuses %s with chain_state', (_what, over) => {
    expect(given(shardDecider).when(command(over))).toEqual(refused('chain_state'));
  });
});
