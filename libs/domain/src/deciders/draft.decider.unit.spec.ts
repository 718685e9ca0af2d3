/**
 * Draft stream (spec §4.10 drafts; states in docs/api.md "Publishing"): `open` → `prepared` → `published`, a
 * prepared draft that is edited returns to `open`, `abandoned` from `open` or `prepared`.
 */
import type { DraftCreatedData, EventOf } from '../events';
import { A, HEX, ORG_FACTS, SIG } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import type { OrganizationFacts } from './ledger-facts';
import { draftDecider, draftVersionFields, type DraftCommand, type DraftEvent, type DraftQuota } from './draft.decider';

const CREATED: DraftCreatedData = {
  draftId: A.draftId,
  documentId: A.docId,
  organizationId: A.orgId,
  title: 'Terms of Service',
  versionLabel: '2024-01',
  effectiveAt: 1_735_689_600,
  contentHash: HEX.content1,
  changeSummary: null,
  createdBy: A.authority,
};
const OTHER_ORG: OrganizationFacts = { ...ORG_FACTS, organizationId: A.otherOrgId, address: A.otherOrg };

const created: EventOf<'DraftCreated'> = { type: 'DraftCreated', data: CREATED };
const prepared = (number: number, contentHash: string = HEX.content1, fingerprint: string = HEX.fingerprint1): EventOf<'DraftPrepared'> => ({
  type: 'DraftPrepared',
  data: { draftId: A.draftId, number, contentHash, fingerprint, preparedBy: A.authority },
});
const edited: EventOf<'DraftUpdated'> = {
  type: 'DraftUpdated',
  data: { draftId: A.draftId, contentHash: HEX.content2, changeSummary: 'Clarifies section 4 (payments).' },
};
const abandoned: EventOf<'DraftAbandoned'> = { type: 'DraftAbandoned', data: { draftId: A.draftId, abandonedBy: A.authority } };
const published: EventOf<'DraftPublished'> = { type: 'DraftPublished', data: { draftId: A.draftId, versionAddress: A.v1, transactionSignature: SIG.v1 } };

const member = { wallet: A.authority, organization: ORG_FACTS };
const stranger = { wallet: A.stranger, organization: ORG_FACTS };
type Of<K extends DraftCommand['kind']> = Extract<DraftCommand, { kind: K }>;
const create: Of<'CreateDraft'> = { kind: 'CreateDraft', draft: CREATED, ...member };
const edit: Of<'UpdateDraft'> = { kind: 'UpdateDraft', change: { contentHash: HEX.content2, changeSummary: 'Clarifies section 4 (payments).' }, ...member };
const prepare = (number: number, fingerprint: string = HEX.fingerprint1): Of<'PrepareDraft'> => ({ kind: 'PrepareDraft', number, fingerprint, ...member });
const abandon: Of<'AbandonDraft'> = { kind: 'AbandonDraft', ...member };
const markPublished = (fingerprint: string = HEX.fingerprint1): DraftCommand => ({ kind: 'MarkDraftPublished', versionAddress: A.v1, transactionSignature: SIG.v1, fingerprint });

const statusAfter = (events: readonly DraftEvent[]) => given(draftDecider, events).state?.status;

describe('draft decider: creation', () => {
  it('creates a draft for a member of the organization', () => {
    expect(given(draftDecider).when(create)).toEqual(decided(created));
    expect(statusAfter([created])).toBe('open');
  });

  it('refuses a wallet that is not a member, an unknown organization or another organization with not_found', () => {
    expect(given(draftDecider).when({ ...create, ...stranger })).toEqual(refused('not_found'));
    expect(given(draftDecider).when({ ...create, organization: null })).toEqual(refused('not_found'));
    expect(given(draftDecider).when({ ...create, organization: OTHER_ORG })).toEqual(refused('not_found'));
  });

  it('refuses a draft id in use with internal_error, whoever asks', () => {
    expect(given(draftDecider, [created]).when(create)).toEqual(refused('internal_error'));
    expect(given(draftDecider, [created]).when({ ...create, ...stranger })).toEqual(refused('internal_error'));
  });
});

describe('draft decider: texts that a publication transaction can carry (docs/protocol.md "Field rules")', () => {
  const emojiTitle = '🔒'.repeat(200);

  it('refuses a title and label whose version record would pass 1232 bytes, on creation and on edit, with invalid_request', () => {
    expect(given(draftDecider).when({ ...create, draft: { ...CREATED, title: emojiTitle } })).toEqual(refused('invalid_request'));
    expect(given(draftDecider, [created]).when({ ...edit, change: { title: emojiTitle } })).toEqual(refused('invalid_request'));
    // A label edit is judged with the title already stored.
    const longTitle = { ...CREATED, title: '🔒'.repeat(160) };
    expect(given(draftDecider).when({ ...create, draft: longTitle })).toEqual(decided({ type: 'DraftCreated', data: longTitle }));
    expect(given(draftDecider, [{ type: 'DraftCreated', data: longTitle }]).when({ ...edit, change: { versionLabel: '🔒'.repeat(16) } })).toEqual(refused('invalid_request'));
  });

  it('accepts 200 characters of two or three bytes each', () => {
    for (const title of ['é'.repeat(200), '中'.repeat(200)]) {
      expect(given(draftDecider).when({ ...create, draft: { ...CREATED, title } })).toEqual(decided({ type: 'DraftCreated', data: { ...CREATED, title } }));
    }
  });
});

describe('draft decider: the state machine', () => {
  it('open → prepared → edited back to open → prepared again → published', () => {
    expect(given(draftDecider, [created]).when(prepare(1))).toEqual(decided(prepared(1)));
    expect(statusAfter([created, prepared(1)])).toBe('prepared');

    expect(given(draftDecider, [created, prepared(1)]).when(edit)).toEqual(decided(edited));
    const afterEdit = given(draftDecider, [created, prepared(1), edited]).state;
    expect(afterEdit).toMatchObject({ status: 'open', prepared: null, contentHash: HEX.content2, versionLabel: '2024-01' });

    // The new preparation commits the edited content.
    expect(given(draftDecider, [created, prepared(1), edited]).when(prepare(1, HEX.fingerprint2))).toEqual(
      decided(prepared(1, HEX.content2, HEX.fingerprint2)),
    );
    const history = [created, prepared(1), edited, prepared(1, HEX.content2, HEX.fingerprint2)];
    expect(given(draftDecider, history).state).toMatchObject({ status: 'prepared', prepared: { number: 1, contentHash: HEX.content2, fingerprint: HEX.fingerprint2 } });

    expect(given(draftDecider, history).when(markPublished(HEX.fingerprint2))).toEqual(decided(published));
    expect(statusAfter([...history, published])).toBe('published');
  });

  it('preparing a prepared draft again fixes the number and fingerprint anew', () => {
    expect(given(draftDecider, [created, prepared(1)]).when(prepare(2, HEX.fingerprint2))).toEqual(decided(prepared(2, HEX.content1, HEX.fingerprint2)));
  });

  it('abandons an open or a prepared draft', () => {
    expect(given(draftDecider, [created]).when(abandon)).toEqual(decided(abandoned));
    expect(given(draftDecider, [created, prepared(1)]).when(abandon)).toEqual(decided(abandoned));
    expect(statusAfter([created, prepared(1), abandoned])).toBe('abandoned');
  });

  it('marking a published draft published again decides nothing', () => {
    expect(given(draftDecider, [created, prepared(1), published]).when(markPublished())).toEqual(decided());
  });

  it('marks a draft published only while it is still prepared for the recorded version; an edit or abandon answered in between stands', () => {
    expect(given(draftDecider, [created, prepared(1)]).when(markPublished())).toEqual(decided(published));
    // Edited after the prepare (the version recorded has the prepared text, the draft another one).
    expect(given(draftDecider, [created, prepared(1), edited]).when(markPublished())).toEqual(decided());
    // Edited and prepared again for another text: still not the version recorded.
    expect(given(draftDecider, [created, prepared(1), edited, prepared(1, HEX.content2, HEX.fingerprint2)]).when(markPublished())).toEqual(decided());
    expect(given(draftDecider, [created, prepared(1), abandoned]).when(markPublished())).toEqual(decided());
    expect(given(draftDecider, [created]).when(markPublished())).toEqual(decided());
  });

  it.each<[string, DraftCommand]>([
    ['edit', edit],
    ['prepare', prepare(2)],
    ['abandon', abandon],
  ])('refuses to %s a published draft with draft_published and an abandoned one with draft_closed', (_op, command) => {
    expect(given(draftDecider, [created, prepared(1), published]).when(command)).toEqual(refused('draft_published'));
    expect(given(draftDecider, [created, abandoned]).when(command)).toEqual(refused('draft_closed'));
  });

  it.each<[string, DraftCommand]>([
    ['edit', edit],
    ['prepare', prepare(1)],
    ['abandon', abandon],
    ['mark published', markPublished()],
  ])('refuses to %s an unknown draft with not_found', (_op, command) => {
    expect(given(draftDecider).when(command)).toEqual(refused('not_found'));
  });

  it.each<[string, DraftCommand]>([
    ['edit', { ...edit, ...stranger }],
    ['prepare', { ...prepare(1), ...stranger }],
    ['abandon', { ...abandon, ...stranger }],
    ['edit from another organization', { ...edit, organization: OTHER_ORG }],
    ['prepare without a known organization', { ...prepare(1), organization: null }],
  ])('refuses to %s as a non-member with not_found, before the state checks', (_op, command) => {
    expect(given(draftDecider, [created]).when(command)).toEqual(refused('not_found'));
    expect(given(draftDecider, [created, abandoned]).when(command)).toEqual(refused('not_found'));
  });
});

describe('draft decider: quotas (docs/api.md "Quotas")', () => {
  /** 19 of 20 open drafts, 900,000 of 1,000,000 source bytes in use. */
  const USAGE: DraftQuota = { openDrafts: 19, bytesInUse: 900_000, maxOpenDrafts: 20, maxBytes: 1_000_000 };
  const within = (usage: Partial<DraftQuota> = {}, addedBytes = 100_000) => ({ usage: { ...USAGE, ...usage }, addedBytes });

  it('creates and edits a draft up to the limits exactly', () => {
    expect(given(draftDecider).when({ ...create, quota: within() })).toEqual(decided(created));
    expect(given(draftDecider, [created]).when({ ...edit, quota: within({ openDrafts: 20 }) })).toEqual(decided(edited));
  });

  it('refuses a new draft beyond the open drafts allowed with chain_state (an edit opens none)', () => {
    expect(given(draftDecider).when({ ...create, quota: within({ openDrafts: 20 }, 0) })).toEqual(refused('chain_state'));
  });

  it('refuses source bytes beyond the quota with chain_state, on creation and on edit', () => {
    expect(given(draftDecider).when({ ...create, quota: within({}, 100_001) })).toEqual(refused('chain_state'));
    expect(given(draftDecider, [created]).when({ ...edit, quota: within({}, 100_001) })).toEqual(refused('chain_state'));
  });

  it('checks the id, membership and the draft’s state before the quota', () => {
    const over = within({ openDrafts: 20 }, 100_001);
    expect(given(draftDecider, [created]).when({ ...create, quota: over })).toEqual(refused('internal_error'));
    expect(given(draftDecider).when({ ...create, ...stranger, quota: over })).toEqual(refused('not_found'));
    expect(given(draftDecider, [created]).when({ ...edit, ...stranger, quota: over })).toEqual(refused('not_found'));
    expect(given(draftDecider, [created, prepared(1), published]).when({ ...edit, quota: over })).toEqual(refused('draft_published'));
    expect(given(draftDecider, [created, abandoned]).when({ ...edit, quota: over })).toEqual(refused('draft_closed'));
  });
});

describe('draftVersionFields', () => {
  it('gives the fields a prepared draft publishes as version `number` of the document', () => {
    const state = given(draftDecider, [created, prepared(1), edited]).state!;
    expect(draftVersionFields(state, A.doc, 3)).toEqual({
      document: A.doc,
      number: 3,
      label: '2024-01',
      title: 'Terms of Service',
      contentHash: HEX.content2,
      effectiveAt: 1_735_689_600,
    });
  });
});

describe('draft decider: roles (docs/api.md "Members and roles")', () => {
  const reader: OrganizationFacts = { ...ORG_FACTS, members: [...ORG_FACTS.members, { address: A.signer, roles: ['admin'] }] };
  const publisher: OrganizationFacts = { ...ORG_FACTS, members: [...ORG_FACTS.members, { address: A.signer, roles: ['publisher'] }] };

  it('refuses a member who is neither owner nor publisher with forbidden, on every draft write', () => {
    const byAdmin = { wallet: A.signer, organization: reader };
    expect(given(draftDecider).when({ ...create, ...byAdmin })).toEqual(refused('forbidden'));
    expect(given(draftDecider, [created]).when({ ...edit, ...byAdmin })).toEqual(refused('forbidden'));
    expect(given(draftDecider, [created]).when({ ...prepare(1), ...byAdmin })).toEqual(refused('forbidden'));
    expect(given(draftDecider, [created]).when({ ...abandon, ...byAdmin })).toEqual(refused('forbidden'));
  });

  it('lets a publisher prepare a draft', () => {
    expect(given(draftDecider, [created]).when({ ...prepare(1), wallet: A.signer, organization: publisher })).toEqual(
      decided({ type: 'DraftPrepared', data: { ...prepared(1).data, preparedBy: A.signer } }),
    );
  });
});
