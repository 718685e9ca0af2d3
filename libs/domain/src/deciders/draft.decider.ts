/**
 * Stream `draft-<id>`: a version being written in the dashboard (spec §4.10 drafts; states in docs/api.md):
 * `open` → (`prepared` ⇄ `open` on edit) → `published`, or `abandoned` from `open`/`prepared`.
 */
import { versionRecordSizeProblem } from '@svc/evidence';
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { DraftCreatedData, DraftUpdatedData, EventOf } from '../events';
import type { VersionFields } from '../version';
import { requireRole, type MemberRole, type OrganizationFacts } from './ledger-facts';

/** Who prepares and confirms publications (docs/api.md "Members and roles"). */
export const PUBLISHERS: readonly MemberRole[] = ['owner', 'publisher'];

export type DraftEvent =
  | EventOf<'DraftCreated'>
  | EventOf<'DraftUpdated'>
  | EventOf<'DraftPrepared'>
  | EventOf<'DraftAbandoned'>
  | EventOf<'DraftPublished'>;

export type DraftStatus = 'open' | 'prepared' | 'published' | 'abandoned';

export interface DraftState {
  draftId: string;
  documentId: string;
  organizationId: string;
  status: DraftStatus;
  title: string;
  versionLabel: string;
  effectiveAt: number | null;
  contentHash: string;
  prepared: { number: number; contentHash: string; fingerprint: string } | null;
}

/** The version a prepared draft would publish as `number` of `document` (fingerprint computed by the caller). */
export function draftVersionFields(state: DraftState, document: string, number: number): VersionFields {
  return { document, number, label: state.versionLabel, title: state.title, contentHash: state.contentHash, effectiveAt: state.effectiveAt };
}

/**
 * An organization's use of its draft quota: drafts open (`open` or `prepared`) and the bytes of their canonical
 * sources, with the configured limits (docs/api.md "Quotas"). Counted on the query side: concurrent creations may
 * pass the limit by the few in flight.
 */
export interface DraftQuota {
  openDrafts: number;
  bytesInUse: number;
  maxOpenDrafts: number;
  maxBytes: number;
}

/**
 * Checks a draft change against the organization's quota.
 * @param newDraft whether the change opens a draft; `addedBytes` the canonical source bytes it stores.
 * @throws DomainError chain_state (409) naming the quota exceeded.
 */
export function checkDraftQuota(quota: DraftQuota, newDraft: boolean, addedBytes: number): void {
  if (newDraft && quota.openDrafts + 1 > quota.maxOpenDrafts) {
    throw new DomainError('chain_state', `quota: at most ${quota.maxOpenDrafts} open drafts per organization; publish or abandon one first`);
  }
  if (addedBytes > 0 && quota.bytesInUse + addedBytes > quota.maxBytes) {
    throw new DomainError('chain_state', `quota: the open drafts of an organization hold at most ${quota.maxBytes} bytes of source; ${quota.bytesInUse} are in use`);
  }
}

interface ByMember {
  wallet: string;
  /** The draft's organization as folded from its stream; null when unknown. */
  organization: OrganizationFacts | null;
}

export type DraftCommand =
  | ({ kind: 'CreateDraft'; draft: DraftCreatedData; quota?: { usage: DraftQuota; addedBytes: number } } & ByMember)
  | ({ kind: 'UpdateDraft'; change: Omit<DraftUpdatedData, 'draftId'>; quota?: { usage: DraftQuota; addedBytes: number } } & ByMember)
  | ({ kind: 'AbandonDraft' } & ByMember)
  | ({ kind: 'PrepareDraft'; number: number; fingerprint: string } & ByMember)
  /** `fingerprint`: the recorded version's, which the draft must still be prepared for. */
  | { kind: 'MarkDraftPublished'; versionAddress: string; transactionSignature: string; fingerprint: string };

function assertMember(command: ByMember, organizationId: string): void {
  const org = command.organization;
  if (!org || org.organizationId !== organizationId || !org.members.some((m) => m.address === command.wallet)) {
    throw new DomainError('not_found', 'draft not found');
  }
  // Drafts are how versions are prepared for publication: owners and publishers write them, other members read.
  requireRole(org, command.wallet, PUBLISHERS);
}

/**
 * A draft's texts must make a version record that fits one publication transaction (docs/protocol.md "Field rules"),
 * so that every draft accepted can be prepared and published. @throws DomainError invalid_request (400) naming the title.
 */
function assertPublishable(fields: { title: string; versionLabel: string; effectiveAt: number | null }): void {
  const problem = versionRecordSizeProblem({ label: fields.versionLabel, title: fields.title, effectiveAt: fields.effectiveAt });
  if (problem) throw new DomainError('invalid_request', `title: ${problem}`);
}

function assertOpen(state: DraftState): void {
  if (state.status === 'published') throw new DomainError('draft_published', 'the draft was already published');
  if (state.status === 'abandoned') throw new DomainError('draft_closed', 'the draft was abandoned');
}

export const draftDecider: Decider<DraftCommand, DraftEvent, DraftState | null> = {
  eventTypes: ['DraftCreated', 'DraftUpdated', 'DraftPrepared', 'DraftAbandoned', 'DraftPublished'],
  initialState: null,
  evolve(state, event) {
    switch (event.type) {
      case 'DraftCreated': {
        const d = event.data;
        return {
          draftId: d.draftId,
          documentId: d.documentId,
          organizationId: d.organizationId,
          status: 'open',
          title: d.title,
          versionLabel: d.versionLabel,
          effectiveAt: d.effectiveAt,
          contentHash: d.contentHash,
          prepared: null,
        };
      }
      case 'DraftUpdated': {
        if (!state) return state;
        const { draftId: _id, ...change } = event.data;
        return { ...state, ...change, status: 'open', prepared: null };
      }
      case 'DraftPrepared':
        return state && { ...state, status: 'prepared', prepared: { number: event.data.number, contentHash: event.data.contentHash, fingerprint: event.data.fingerprint } };
      case 'DraftAbandoned':
        return state && { ...state, status: 'abandoned' };
      case 'DraftPublished':
        return state && { ...state, status: 'published' };
    }
  },
  /**
   * Marking a published draft published again is a no-op (publication confirms are idempotent). A draft is marked
   * published only while it is still prepared for the recorded version (same fingerprint). The version is recorded
   * on the document's stream first, from the ledger, which holds it for good; an edit or an abandon that reached the
   * draft's stream in between was answered and stands, so the draft is then left as it is (open with its new text,
   * prepared for another text, or abandoned) rather than marked published with a text that is not the version's
   * (docs/api.md "Publishing (dashboard)").
   * @throws DomainError not_found (404: unknown draft, or not a member of its organization), forbidden (403: a member who is neither owner nor publisher),
   *   invalid_request (400: a title and label whose version record would not fit one publication transaction), draft_published (409),
   *   draft_closed (409: abandoned), chain_state (409: the organization's draft quota is used up);
   *   internal_error (500) when a new draft's id is taken (ids are random UUIDs).
   */
  decide(command, state) {
    if (command.kind === 'CreateDraft') {
      if (state) throw new DomainError('internal_error', 'draft id already in use');
      assertMember(command, command.draft.organizationId);
      assertPublishable(command.draft);
      if (command.quota) checkDraftQuota(command.quota.usage, true, command.quota.addedBytes);
      return [{ type: 'DraftCreated', data: command.draft }];
    }
    if (!state) throw new DomainError('not_found', 'draft not found');
    switch (command.kind) {
      case 'MarkDraftPublished':
        if (state.status !== 'prepared' || state.prepared?.fingerprint !== command.fingerprint) return [];
        return [{ type: 'DraftPublished', data: { draftId: state.draftId, versionAddress: command.versionAddress, transactionSignature: command.transactionSignature } }];
      case 'UpdateDraft':
        assertMember(command, state.organizationId);
        assertOpen(state);
        assertPublishable({ ...state, ...command.change });
        if (command.quota) checkDraftQuota(command.quota.usage, false, command.quota.addedBytes);
        return [{ type: 'DraftUpdated', data: { draftId: state.draftId, ...command.change } }];
      case 'AbandonDraft':
        assertMember(command, state.organizationId);
        assertOpen(state);
        return [{ type: 'DraftAbandoned', data: { draftId: state.draftId, abandonedBy: command.wallet } }];
      case 'PrepareDraft':
        assertMember(command, state.organizationId);
        assertOpen(state);
        return [
          {
            type: 'DraftPrepared',
            data: { draftId: state.draftId, number: command.number, contentHash: state.contentHash, fingerprint: command.fingerprint, preparedBy: command.wallet },
          },
        ];
    }
  },
};
