/**
 * Organization stream (spec §4.10 sync and refresh, §5 roles; docs/api.md "Publishing"): synced from its creation
 * transaction by its authority; a sync of a known organization is a no-op for its members.
 */
import type { EventOf, MemberChangedData } from '../events';
import { A, ledgerTx, SIG } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import { requireRole, type LedgerTransactionFacts, type MemberRecordFacts } from './ledger-facts';
import { organizationDecider, type OrganizationCommand, type OrganizationEvent } from './organization.decider';

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
    // docs/protocol.md §7.1–7.2: the memo's second signer is the authority; a record with none names no authority.
    ['a record no authority co-signed', { ...creation, actor: null }],
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
      creationSignature: SIG.org,
      members: [{ address: A.authority, roles: ['owner', 'admin', 'publisher'] }],
      memberRecords: [],
      lastMemberRecord: null,
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

describe('organization decider: members from the ledger and their labels', () => {
  const record = (over: Partial<MemberRecordFacts> = {}): MemberRecordFacts => ({
    signature: SIG.v1,
    slot: 3_120_500,
    blockTime: 1_741_944_500,
    succeeded: true,
    signedBy: A.authority,
    organization: A.org,
    member: A.signer,
    roles: ['publisher'],
    active: true,
    ...over,
  });
  const changed = (over: Partial<MemberChangedData>): EventOf<'MemberChanged'> => ({
    type: 'MemberChanged',
    data: {
      organizationId: A.orgId,
      organization: A.org,
      member: A.signer,
      roles: ['publisher'],
      active: true,
      change: 'added',
      transactionSignature: SIG.v1,
      slot: 3_120_500,
      blockTime: 1_741_944_500,
      ...over,
    },
  });
  const added = changed({});

  it('records the member records of a new organization with its creation', () => {
    expect(given(organizationDecider).when(sync({ memberRecords: [record()] }))).toEqual(decided<OrganizationEvent>(synced, added));
  });

  it('a refresh records added, updated and revoked members in ledger order', () => {
    const records = [
      record(),
      record({ signature: SIG.v2, roles: ['admin', 'publisher'] }),
      record({ signature: SIG.v3, roles: [], active: false }),
    ];
    expect(given(organizationDecider, [synced]).when({ kind: 'RefreshOrganization', wallet: A.authority, transactionCount: 7, memberRecords: records })).toEqual(
      decided<OrganizationEvent>(
        refreshed,
        added,
        changed({ roles: ['admin', 'publisher'], change: 'updated', transactionSignature: SIG.v2 }),
        changed({ roles: [], active: false, change: 'revoked', transactionSignature: SIG.v3 }),
      ),
    );
  });

  it.each<[string, Partial<MemberRecordFacts>]>([
    ['a failed transaction', { succeeded: false }],
    ['a record not signed by the authority', { signedBy: A.stranger }],
    ['a record of another organization', { organization: A.otherOrg }],
    ['a record about the authority (the owner cannot be demoted)', { member: A.authority }],
    ['a revocation of a wallet that is not a member', { active: false, roles: [] }],
  ])('skips %s', (_what, over) => {
    expect(given(organizationDecider, [synced]).when(sync({ creation: null, memberRecords: [record(over)] }))).toEqual(decided());
  });

  it('skips a record already applied and one that changes nothing', () => {
    const again = [record(), record({ signature: SIG.v2 })];
    expect(given(organizationDecider, [synced, added]).when(sync({ creation: null, memberRecords: again }))).toEqual(decided());
  });

  it('folds members with their roles; a revoked member is no longer a member', () => {
    expect(given(organizationDecider, [synced, added]).state?.members).toEqual([
      { address: A.authority, roles: ['owner', 'admin', 'publisher'] },
      { address: A.signer, roles: ['publisher'] },
    ]);
    expect(given(organizationDecider, [synced, added]).state?.lastMemberRecord).toBe(SIG.v1);
    const revoked = changed({ roles: [], active: false, change: 'revoked', transactionSignature: SIG.v2 });
    expect(given(organizationDecider, [synced, added, revoked]).state?.members).toEqual([{ address: A.authority, roles: ['owner', 'admin', 'publisher'] }]);
  });

  it('lets a member added by a record sync the known organization', () => {
    expect(given(organizationDecider, [synced]).when(sync({ wallet: A.signer, creation: null, memberRecords: [record()] }))).toEqual(decided(added));
  });

  const label = (wallet: string, member: string, text: string | null = 'Legal team'): OrganizationCommand => ({ kind: 'SetMemberLabel', wallet, member, label: text });
  const labelSet = (text: string | null): EventOf<'MemberLabelSet'> => ({ type: 'MemberLabelSet', data: { organizationId: A.orgId, member: A.signer, label: text, setBy: A.authority } });

  it('records a label set by the owner, and a cleared label', () => {
    expect(given(organizationDecider, [synced, added]).when(label(A.authority, A.signer))).toEqual(decided(labelSet('Legal team')));
    expect(given(organizationDecider, [synced, added]).when(label(A.authority, A.signer, null))).toEqual(decided(labelSet(null)));
  });

  it('refuses a label from a publisher with forbidden', () => {
    expect(given(organizationDecider, [synced, added]).when(label(A.signer, A.authority))).toEqual(refused('forbidden'));
  });

  it('refuses a label from a non-member, on an unknown organization, or for a wallet that is not a member with not_found', () => {
    expect(given(organizationDecider, [synced, added]).when(label(A.stranger, A.signer))).toEqual(refused('not_found'));
    expect(given(organizationDecider).when(label(A.authority, A.signer))).toEqual(refused('not_found'));
    expect(given(organizationDecider, [synced]).when(label(A.authority, A.stranger))).toEqual(refused('not_found'));
  });
});

describe('requireRole', () => {
  const facts = { organizationId: A.orgId, address: A.org, members: [{ address: A.authority, roles: ['owner', 'admin', 'publisher'] as const }, { address: A.signer, roles: ['publisher'] as const }] };
  it('passes a member with one of the roles', () => {
    expect(() => requireRole(facts, A.signer, ['owner', 'publisher'])).not.toThrow();
  });
  it('refuses a member without the role with forbidden, and a non-member or unknown organization with not_found', () => {
    expect(() => requireRole(facts, A.signer, ['owner', 'admin'])).toThrow(expect.objectContaining({ code: 'forbidden' }));
    expect(() => requireRole(facts, A.stranger, ['owner', 'admin'])).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(() => requireRole(null, A.authority, ['owner'])).toThrow(expect.objectContaining({ code: 'not_found' }));
  });
});
