/**
 * Document stream (spec §4.10 documents and publications; docs/api.md "Publishing", step 6): synced from its
 * creation transaction, then one `VersionPublished` per confirmed publication, numbered without gaps.
 */
import type { EventOf } from '../events';
import { A, documentSynced, HEX, ledgerTx, ORG_FACTS, SIG, versionPublished } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import { currentVersion, documentDecider, publicationRecord, type DocumentCommand, type VersionRecord } from './document.decider';
import type { LedgerTransactionFacts, OrganizationFacts } from './ledger-facts';

const PUBLISHER = '888F7TE5jVnmQpioyzmQZ6kpTCgVrUVmjpiCbBVnjs5F';
const ADMIN = 'BY9KQPY18vRr45Pa7raknMXugwn8m173eQCHFDMkQ9yQ';
/** The authority (every role), a publisher, and an admin who may not publish. */
const ORG: OrganizationFacts = {
  ...ORG_FACTS,
  members: [...ORG_FACTS.members, { address: PUBLISHER, roles: ['publisher'] }, { address: ADMIN, roles: ['admin'] }],
};
const OTHER_ORG: OrganizationFacts = { organizationId: A.otherOrgId, address: A.otherOrg, members: ORG_FACTS.members };

type Sync = Extract<DocumentCommand, { kind: 'SyncDocument' }>;
type Publish = Extract<DocumentCommand, { kind: 'PublishVersion' }>;

const docCreation: LedgerTransactionFacts = ledgerTx({ kind: 'doc', organization: A.org, slug: 'terms-of-service', title: 'Terms of Service' }, A.doc, SIG.doc);
const sync = (over: Partial<Sync> = {}): Sync => ({
  kind: 'SyncDocument',
  address: A.doc,
  wallet: A.authority,
  documentId: A.docId,
  organization: ORG,
  creation: { ...docCreation, slot: 3_120_101, blockTime: 1_741_944_000 },
  ...over,
});

/** The confirmation of version `number` (1 or 2) as recorded by `versionPublished(number)`. */
function publish(number: 1 | 2, over: Partial<Publish> = {}): Publish {
  const v = versionPublished(number).data;
  const record: VersionRecord = {
    kind: 'ver',
    document: A.doc,
    number,
    label: v.label,
    title: v.title,
    contentHash: v.contentHash,
    fingerprint: v.fingerprint,
    effectiveAt: v.effectiveAt,
  };
  const transaction = { ...ledgerTx(record, v.versionAddress, v.transactionSignature), slot: v.slot, blockTime: v.blockTime };
  return {
    kind: 'PublishVersion',
    wallet: A.authority,
    transaction,
    record,
    organization: ORG,
    recomputedFingerprint: v.fingerprint,
    draft: { draftId: A.draftId, number, fingerprint: v.fingerprint },
    addressCreation: v.transactionSignature,
    ...over,
  };
}

/** Version 1's confirmation with another version address: another publication claiming the same number. */
const rivalOfV1 = (over: Partial<Publish> = {}): Publish => {
  const p = publish(1);
  return { ...p, transaction: { ...p.transaction, objectSigner: A.v3, signature: SIG.v3 }, addressCreation: SIG.v3, ...over };
};

const withRecord = (p: Publish, change: Partial<VersionRecord>): Publish => ({ ...p, record: { ...p.record, ...change } });
const actor = (p: Publish, wallet: string | null): Publish => ({ ...p, transaction: { ...p.transaction, actor: wallet } });

describe('document decider: sync', () => {
  it('records a document created on the ledger by the organization', () => {
    expect(given(documentDecider).when(sync())).toEqual(decided(documentSynced()));
  });

  it('records a document created by the organization, synced by a member with the publisher role', () => {
    expect(given(documentDecider).when(sync({ wallet: PUBLISHER }))).toEqual(decided(documentSynced()));
  });

  it('a sync of a known document decides nothing', () => {
    expect(given(documentDecider, [documentSynced()]).when(sync({ creation: null }))).toEqual(decided());
  });

  it('refuses with not_found when the organization is unknown, the wallet is not a member, or the document is of another organization', () => {
    expect(given(documentDecider).when(sync({ organization: null }))).toEqual(refused('not_found'));
    expect(given(documentDecider).when(sync({ wallet: A.stranger }))).toEqual(refused('not_found'));
    expect(given(documentDecider, [documentSynced()]).when(sync({ organization: OTHER_ORG, creation: null }))).toEqual(refused('not_found'));
  });

  it('refuses an address with no transaction on the ledger with not_found', () => {
    expect(given(documentDecider).when(sync({ creation: null }))).toEqual(refused('not_found'));
  });

  it.each<[string, Partial<LedgerTransactionFacts>]>([
    ['a failed creation transaction', { succeeded: false }],
    ['a record that is not a document record', { record: { kind: 'org', name: 'Example Shop Inc.', domain: null } }],
    ['a memo not co-signed by the address', { objectSigner: A.otherDoc }],
    ['a document of another organization', { record: { kind: 'doc', organization: A.otherOrg, slug: 'terms-of-service', title: 'Terms of Service' } }],
    ['a document created by a wallet that is not a member', { actor: A.stranger }],
    ['a document created by an admin without the publisher role', { actor: ADMIN }],
    // docs/protocol.md §7.2: a verifier attributes the document only to the organization's own authority.
    ['a document created by a member with the publisher role', { actor: PUBLISHER }],
    ['a document record no authority co-signed', { actor: null }],
  ])('refuses %s with chain_state', (_what, change) => {
    expect(given(documentDecider).when(sync({ creation: { ...sync().creation!, ...change } }))).toEqual(refused('chain_state'));
  });

  it('checks membership (not_found) before the ledger facts (chain_state)', () => {
    expect(given(documentDecider).when(sync({ wallet: A.stranger, creation: { ...docCreation, succeeded: false } }))).toEqual(refused('not_found'));
  });
});

describe('document decider: publication confirm', () => {
  const synced = documentSynced();
  const v1 = versionPublished(1);
  const v2 = versionPublished(2);

  it('records version 1 from its transaction, record and prepared draft', () => {
    expect(given(documentDecider, [synced]).when(publish(1))).toEqual(decided(v1));
  });

  it('records version 2 after version 1, confirmed by a member with the publisher role and co-signed by the organization', () => {
    const expected: EventOf<'VersionPublished'> = { ...v2, data: { ...v2.data, publisher: A.authority } };
    expect(given(documentDecider, [synced, v1]).when(publish(2, { wallet: PUBLISHER }))).toEqual(decided(expected));
  });

  it('confirming a recorded version again decides nothing', () => {
    expect(given(documentDecider, [synced, v1]).when(publish(1))).toEqual(decided());
    expect(given(documentDecider, [synced, v1, v2]).when(publish(1, { draft: null }))).toEqual(decided());
    // The caller need not read the address's history again for a version recorded with this transaction.
    expect(given(documentDecider, [synced, v1]).when(publish(1, { addressCreation: null }))).toEqual(decided());
  });

  it('refuses a version address that is not a fresh key created by this publication with chain_state (docs/protocol.md §7.1–7.2)', () => {
    const p = publish(1);
    // The address was used before: its oldest successful transaction is another one (or was not read).
    expect(given(documentDecider, [synced]).when({ ...p, addressCreation: SIG.v3 })).toEqual(refused('chain_state'));
    expect(given(documentDecider, [synced]).when({ ...p, addressCreation: null })).toEqual(refused('chain_state'));
    // The publisher's own wallet as the version address, even where the ledger shows this transaction as its oldest.
    expect(given(documentDecider, [synced]).when(actor({ ...p, transaction: { ...p.transaction, objectSigner: A.authority } }, A.authority))).toEqual(refused('chain_state'));
    // Version 1's address again, in another transaction that would be version 2: not a repeat, and not recorded.
    const reuse = publish(2, { transaction: { ...publish(2).transaction, objectSigner: A.v1 }, addressCreation: SIG.v1 });
    expect(given(documentDecider, [synced, v1]).when(reuse)).toEqual(refused('chain_state'));
  });

  it('refuses a publication for a document that is not synced with not_found', () => {
    expect(given(documentDecider).when(publish(1))).toEqual(refused('not_found'));
  });

  it('refuses with not_found when the wallet is not a member or the organization is not the document’s', () => {
    expect(given(documentDecider, [synced]).when(publish(1, { wallet: A.stranger }))).toEqual(refused('not_found'));
    expect(given(documentDecider, [synced]).when(publish(1, { organization: OTHER_ORG }))).toEqual(refused('not_found'));
  });

  it('refuses a publication not co-signed by the organization authority with chain_state (docs/protocol.md §7.2)', () => {
    expect(given(documentDecider, [synced]).when(actor(publish(1), ADMIN))).toEqual(refused('chain_state'));
    expect(given(documentDecider, [synced]).when(actor(publish(1), A.stranger))).toEqual(refused('chain_state'));
    // A publisher may confirm, but a version its own key signed would not verify as the organization's.
    expect(given(documentDecider, [synced]).when(actor(publish(1, { wallet: PUBLISHER }), PUBLISHER))).toEqual(refused('chain_state'));
    // A record whose memo lists no second signer names no authority at all.
    expect(given(documentDecider, [synced]).when({ ...publish(1), transaction: { ...publish(1).transaction, actor: null } })).toEqual(refused('chain_state'));
  });

  it('refuses a fingerprint that does not match the version fields with chain_state', () => {
    expect(given(documentDecider, [synced]).when(publish(1, { recomputedFingerprint: HEX.fingerprint2 }))).toEqual(refused('chain_state'));
  });

  it('refuses a number that is taken with version_superseded', () => {
    expect(given(documentDecider, [synced, v1]).when(rivalOfV1())).toEqual(refused('version_superseded'));
    expect(given(documentDecider, [synced, v1, v2]).when(rivalOfV1())).toEqual(refused('version_superseded'));
  });

  it('refuses a gap in version numbers with chain_state', () => {
    expect(given(documentDecider, [synced]).when(publish(2))).toEqual(refused('chain_state'));
    const three = withRecord(publish(2), { number: 3 });
    expect(given(documentDecider, [synced, v1]).when({ ...three, draft: { ...three.draft!, number: 3 } })).toEqual(refused('chain_state'));
  });

  it('refuses a publication that no prepared draft matches (none, another fingerprint, another number) with chain_state', () => {
    const p = publish(1);
    expect(given(documentDecider, [synced]).when({ ...p, draft: null })).toEqual(refused('chain_state'));
    expect(given(documentDecider, [synced]).when({ ...p, draft: { ...p.draft!, fingerprint: HEX.fingerprint2 } })).toEqual(refused('chain_state'));
    expect(given(documentDecider, [synced]).when({ ...p, draft: { ...p.draft!, number: 2 } })).toEqual(refused('chain_state'));
  });

  it('checks membership → recorded already → organization authority → fresh address → fingerprint → number taken → gap → draft', () => {
    const noDraft = (p: Publish): Publish => ({ ...p, draft: null });
    // A rival of version 1 by an admin, with a wrong fingerprint and no draft: each fix reveals the next rule.
    const bad = noDraft(actor(rivalOfV1({ recomputedFingerprint: HEX.fingerprint2, wallet: A.stranger }), ADMIN));
    const s = given(documentDecider, [synced, v1]);
    expect(s.when(bad)).toEqual(refused('not_found'));
    expect(s.when({ ...bad, transaction: { ...bad.transaction, objectSigner: A.v1 } })).toEqual(refused('not_found'));
    // Version 1's own transaction again: recorded already, whatever else the command says.
    expect(s.when({ ...bad, wallet: A.authority, transaction: { ...bad.transaction, objectSigner: A.v1, signature: SIG.v1 } })).toEqual(decided());
    expect(s.when({ ...bad, wallet: A.authority })).toEqual(refused('chain_state'));
    expect(s.when(actor({ ...bad, wallet: A.authority }, A.authority))).toEqual(refused('chain_state'));
    // A used address is refused before the number is looked at (version_superseded below once it is fresh).
    expect(s.when(actor({ ...bad, wallet: A.authority, recomputedFingerprint: HEX.fingerprint1, addressCreation: SIG.v1 }, A.authority))).toEqual(refused('chain_state'));
    expect(s.when(actor({ ...bad, wallet: A.authority, recomputedFingerprint: HEX.fingerprint1 }, A.authority))).toEqual(refused('version_superseded'));
  });

  it('folds the versions in order; the current version is the last', () => {
    expect(currentVersion(given(documentDecider).state)).toBeNull();
    expect(currentVersion(given(documentDecider, [synced]).state)).toBeNull();
    const state = given(documentDecider, [synced, v1, v2]).state;
    expect(state?.versions.map((v) => v.number)).toEqual([1, 2]);
    expect(currentVersion(state)).toEqual(v2.data);
  });
});

describe('publicationRecord', () => {
  const tx = publish(1).transaction;

  it('returns the version record of a successful publication', () => {
    expect(publicationRecord(tx)).toEqual(publish(1).record);
  });

  it('returns the record of a failed publication too (the decider refuses it after the access checks), and refuses a failed transaction of another kind as not_a_publication', () => {
    expect(publicationRecord({ ...tx, succeeded: false })).toEqual(publish(1).record);
    expect(() => publicationRecord({ ...tx, succeeded: false, record: { kind: 'other' } })).toThrow(expect.objectContaining({ code: 'not_a_publication' }));
  });

  it('refuses a transaction without a version record or co-signing object with not_a_publication', () => {
    expect(() => publicationRecord({ ...tx, record: { kind: 'other' } })).toThrow(expect.objectContaining({ code: 'not_a_publication' }));
    expect(() => publicationRecord({ ...tx, record: null })).toThrow(expect.objectContaining({ code: 'not_a_publication' }));
    expect(() => publicationRecord({ ...tx, objectSigner: null })).toThrow(expect.objectContaining({ code: 'not_a_publication' }));
  });
});

describe('document decider: a publication that failed on the ledger', () => {
  const failed = (over: Partial<Publish> = {}) => publish(1, { transaction: { ...publish(1).transaction, succeeded: false }, addressCreation: null, ...over });

  it('is refused with transaction_failed for a wallet that may publish for the organization', () => {
    expect(given(documentDecider, [documentSynced()]).when(failed())).toEqual(refused('transaction_failed'));
    expect(given(documentDecider, [documentSynced()]).when(failed({ wallet: PUBLISHER }))).toEqual(refused('transaction_failed'));
  });

  it('is refused as any confirm would be for other wallets: not_found outside the organization, forbidden without the role', () => {
    expect(given(documentDecider, [documentSynced()]).when(failed({ wallet: ADMIN }))).toEqual(refused('forbidden'));
    expect(given(documentDecider, [documentSynced()]).when(failed({ wallet: A.stranger }))).toEqual(refused('not_found'));
    expect(given(documentDecider, [documentSynced()]).when(failed({ organization: OTHER_ORG }))).toEqual(refused('not_found'));
    expect(given(documentDecider).when(failed())).toEqual(refused('not_found'));
  });
});

describe('document decider: roles of the signed-in wallet', () => {
  it('refuses a sync and a confirm by an admin who may not publish with forbidden', () => {
    expect(given(documentDecider).when(sync({ wallet: ADMIN }))).toEqual(refused('forbidden'));
    expect(given(documentDecider, [documentSynced()]).when(publish(1, { wallet: ADMIN }))).toEqual(refused('forbidden'));
  });
});
