/**
 * Organization stream (spec §4.10 sync and refresh, §5 roles; docs/api.md "Publishing"): synced from its creation
 * transaction by its authority; a sync of a known organization is a no-op for its members.
 */
import type { EventOf } from '../events';
import { A, ledgerTx, SIG } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import type { LedgerTransactionFacts } from './ledger-facts';
import { organizationDecider, type OrganizationCommand } from './organization.decider';

const creation: LedgerTransactionFacts = ledgerTx({ kind: 'org', name: 'Example Shop Inc.', domain: 'shop.example.com' }, A.org, SIG.org);
const synced: EventOf<'OrganizationSynced'> = {
  type: 'OrganizationSynced',
  data: {
    organizationId: A.orgId,
    address: A.org,
    authority: A.authority,
    name: 'Example Shop Inc.',
    domain: 'shop.example.com',
    creationSignature: SIG.org,
    slot: creation.slot,
    blockTime: creation.blockTime,
    syncedBy: A.authority,
  },
};
const refreshed: EventOf<'OrganizationRefreshed'> = {
  type: 'OrganizationRefreshed',
  data: { organizationId: A.orgId, address: A.org, transactionCount: 7, refreshedBy: A.authority },
};

const sync = (over: Partial<Extract<OrganizationCommand, { kind: 'SyncOrganization' }>> = {}): OrganizationCommand => ({
  kind: 'SyncOrganization',
  address: A.org,
  wallet: A.authority,
  organizationId: A.orgId,
  creation,
  ...over,
});
const refresh = (wallet: string): OrganizationCommand => ({ kind: 'RefreshOrganization', wallet, transactionCount: 7 });

describe('organization decider: sync', () => {
  it('records a new organization created on the ledger by the signed-in wallet', () => {
    expect(given(organizationDecider).when(sync())).toEqual(decided(synced));
  });

  it('records a null domain as null', () => {
    const tx = ledgerTx({ kind: 'org', name: 'Example Shop Inc.', domain: null }, A.org, SIG.org);
    expect(given(organizationDecider).when(sync({ creation: tx }))).toEqual(decided({ ...synced, data: { ...synced.data, domain: null } }));
  });

  it('a sync of a known organization by a member decides nothing (the creation is not read again)', () => {
    expect(given(organizationDecider, [synced]).when(sync({ creation: null }))).toEqual(decided());
  });

  it('refuses a sync of a known organization by a wallet that is not a member with forbidden', () => {
    expect(given(organizationDecider, [synced]).when(sync({ wallet: A.stranger, creation: null }))).toEqual(refused('forbidden'));
  });

  it('refuses an address with no transaction on the ledger with not_found', () => {
    expect(given(organizationDecider).when(sync({ creation: null }))).toEqual(refused('not_found'));
  });

  it.each<[string, LedgerTransactionFacts]>([
    ['a failed creation transaction', { ...creation, succeeded: false }],
    ['a transaction without a protocol record', { ...creation, record: null }],
    ['a record that is not an organization record', { ...creation, record: { kind: 'doc', organization: A.org, slug: 'terms', title: 'Terms' } }],
    ['a memo not co-signed by the address', { ...creation, objectSigner: A.otherOrg }],
    ['a memo co-signed by no object', { ...creation, objectSigner: null }],
  ])('refuses %s with chain_state', (_what, tx) => {
    expect(given(organizationDecider).when(sync({ creation: tx }))).toEqual(refused('chain_state'));
  });

  it('refuses an organization created by another wallet with forbidden', () => {
    expect(given(organizationDecider).when(sync({ wallet: A.stranger }))).toEqual(refused('forbidden'));
  });

  it('checks what the address is (chain_state) before who created it (forbidden)', () => {
    expect(given(organizationDecider).when(sync({ wallet: A.stranger, creation: { ...creation, succeeded: false } }))).toEqual(refused('chain_state'));
  });

  it('folds the authority as the one member, with every role', () => {
    expect(given(organizationDecider, [synced, refreshed]).state).toEqual({
      organizationId: A.orgId,
      address: A.org,
      authority: A.authority,
      members: [{ address: A.authority, roles: ['owner', 'admin', 'publisher'] }],
    });
  });
});

describe('organization decider: refresh', () => {
  it('records a refresh by a member', () => {
    expect(given(organizationDecider, [synced]).when(refresh(A.authority))).toEqual(decided(refreshed));
  });

  it('refuses a refresh of an unknown organization, or by a wallet that is not a member, with not_found', () => {
    expect(given(organizationDecider).when(refresh(A.authority))).toEqual(refused('not_found'));
    expect(given(organizationDecider, [synced]).when(refresh(A.stranger))).toEqual(refused('not_found'));
  });
});
