import { Injectable, Logger } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import {
  contentDecider,
  currentVersion,
  draftDecider,
  draftVersionFields,
  DomainError,
  isAuthority,
  streams,
  type DocumentState,
  type DraftCommand,
  type DraftState,
  type DraftUpdatedData,
  type OrganizationFacts,
  type VersionFields,
} from '@svc/domain';
import { canonicalContent, contentHash, encodeMemo, versionFingerprint } from '@svc/evidence';
import type { DraftDoc } from '@svc/projections';
import { type CommandContext, Decisions, EventLog, faultPoint, LedgerHistory, OrganizationFactsReader, QuotaTurns } from '@svc/application';
import { DashboardAccess } from './access.service';
import { DraftQuotaReader } from './draft-quota.service';

/** Fields of a draft as the dashboard sends them. */
export interface DraftInput {
  title?: string;
  versionLabel?: string;
  effectiveAt?: number | null;
  source?: string;
  changeSummary?: string | null;
}

/** What the organization's wallet must put on the ledger to publish a prepared draft. */
export interface PreparedPublication extends VersionFields {
  organization: string;
  fingerprint: string;
  /** The exact memo text the publication transaction carries (docs/protocol.md). */
  memo: string;
}

/** A draft source in canonical form (docs/protocol.md "Content"), not stored yet. */
interface CanonicalSource {
  hash: string;
  text: string;
  byteLength: number;
}

function canonicalSource(source: string): CanonicalSource {
  const bytes = canonicalContent(source);
  return { hash: contentHash(bytes), text: bytes.toString('utf8'), byteLength: bytes.length };
}

/** Stores canonical bytes on their content stream (a no-op for known content). */
async function storeContent(decisions: Decisions, content: CanonicalSource, ctx: CommandContext): Promise<void> {
  const stored = { contentHash: content.hash, text: content.text, byteLength: content.byteLength, mediaType: 'text/markdown' };
  await decisions.handle(streams.content(content.hash), contentDecider, { kind: 'StoreContent', content: stored }, ctx);
}

/** Shared steps of the draft commands: decide on the draft's stream, wait for the read model, return the draft. */
@Injectable()
abstract class DraftCommandHandler {
  constructor(
    protected readonly decisions: Decisions,
    protected readonly log: EventLog,
    protected readonly access: DashboardAccess,
    protected readonly facts: OrganizationFactsReader,
    protected readonly quotas: DraftQuotaReader,
    protected readonly turns: QuotaTurns,
  ) {}

  /**
   * Runs a decision that counts the organization's draft quota in the organization's turn, which ends once the
   * read models show what it stored (docs/api.md "Quotas").
   */
  protected inQuotaTurn<T>(organizationId: string, decision: () => Promise<T>): Promise<T> {
    return this.turns.take(`drafts:${organizationId}`, decision);
  }

  /** The organization of a draft as its stream says (null when unknown: the decider answers 404). */
  protected async organizationOf(state: DraftState | null): Promise<OrganizationFacts | null> {
    return state ? this.facts.organization(await this.facts.organizationAddress(state.organizationId)) : null;
  }

  protected async decide(draftId: string, wallet: string, ctx: CommandContext, command: (state: DraftState | null) => Promise<DraftCommand>, recorded?: () => void): Promise<DraftDoc> {
    const decided = await this.decisions.handle(streams.draft(draftId), draftDecider, command, ctx);
    recorded?.();
    await this.log.settledAfter(decided.appended);
    return (await this.access.draft(draftId, wallet)).draft;
  }
}

export class CreateDraft extends Command<DraftDoc> {
  constructor(
    readonly documentId: string,
    readonly input: Required<Pick<DraftInput, 'title' | 'versionLabel' | 'source'>> & DraftInput,
    readonly wallet: string,
    readonly ctx: CommandContext,
    /** The new draft's id: named by the request's Idempotency-Key run when it has one (`createdIdOf`). */
    readonly draftId: string = randomUUID(),
  ) {
    super();
  }
}

@CommandHandler(CreateDraft)
export class CreateDraftHandler extends DraftCommandHandler implements ICommandHandler<CreateDraft, DraftDoc> {
  /**
   * A draft already recorded under the command's id (a retry, with the same Idempotency-Key, of a request whose
   * process died after recording it and before answering) is answered again rather than made twice.
   * @throws DomainError not_found (404: unknown document, or the wallet is not a member of its organization),
   *   chain_state (409: the organization's draft quota is used up; nothing is stored).
   */
  async execute({ documentId, input, wallet, ctx, draftId }: CreateDraft): Promise<DraftDoc> {
    const { document, organization } = await this.facts.documentWithOrganization(await this.facts.documentAddress(documentId));
    if (!organization?.members.some((m) => m.address === wallet)) throw new DomainError('not_found', 'document not found');
    if ((await this.decisions.load(streams.draft(draftId), draftDecider)).state?.documentId === document.documentId) {
      await this.log.settledAtHead();
      // Recorded but not shown yet by its read model (the projections lag): a 5xx, which is not stored and keeps the
      // key's run, so that a later retry finds the draft; never a 404 that would be replayed for 24 hours.
      const shown = await this.access.draft(draftId, wallet).catch((err: unknown) => {
        if (err instanceof DomainError && err.code === 'not_found') throw new DomainError('internal_error', 'the recorded draft is not in its read model yet');
        throw err;
      });
      return shown.draft;
    }
    const content = canonicalSource(input.source);
    const hash = content.hash;
    const draft = {
      draftId,
      documentId: document.documentId,
      organizationId: document.organizationId,
      title: input.title,
      versionLabel: input.versionLabel,
      effectiveAt: input.effectiveAt ?? null,
      contentHash: hash,
      changeSummary: input.changeSummary ?? null,
      createdBy: wallet,
    };
    return this.inQuotaTurn(document.organizationId, async () => {
      const quota = await this.quotas.forSource(document.organizationId, content);
      const command: DraftCommand = { kind: 'CreateDraft', draft, wallet, organization, quota };
      // The decider is pure: asked first, it refuses what it would refuse (role, title fit, quota) before the content
      // is stored, so a refused draft grows nothing. `decide` asks it again on the stream.
      draftDecider.decide(command, draftDecider.initialState);
      await storeContent(this.decisions, content, ctx);
      return this.decide(draftId, wallet, ctx, async () => command, () => faultPoint('draft:after-create'));
    });
  }
}

export class UpdateDraft extends Command<DraftDoc> {
  constructor(readonly draftId: string, readonly input: DraftInput, readonly wallet: string, readonly ctx: CommandContext) {
    super();
  }
}

@CommandHandler(UpdateDraft)
export class UpdateDraftHandler extends DraftCommandHandler implements ICommandHandler<UpdateDraft, DraftDoc> {
  /** @throws DomainError not_found (404), draft_published / draft_closed (409), chain_state (409: draft quota used up) */
  async execute({ draftId, input, wallet, ctx }: UpdateDraft): Promise<DraftDoc> {
    const change: Omit<DraftUpdatedData, 'draftId'> = {};
    if (input.title !== undefined) change.title = input.title;
    if (input.versionLabel !== undefined) change.versionLabel = input.versionLabel;
    if (input.effectiveAt !== undefined) change.effectiveAt = input.effectiveAt;
    if (input.changeSummary !== undefined) change.changeSummary = input.changeSummary;
    const content = input.source === undefined ? null : canonicalSource(input.source);
    if (content) change.contentHash = content.hash;
    // A new source counts against the quota: decided in the organization's turn. The draft's organization, read
    // from its read model only to pick the turn, never changes; the decision itself reads the draft's stream.
    const organizationId = content ? (await this.access.draft(draftId, wallet).catch(() => null))?.draft.organizationId : undefined;
    if (organizationId === undefined) return this.update(draftId, change, content, wallet, ctx);
    return this.inQuotaTurn(organizationId, () => this.update(draftId, change, content, wallet, ctx));
  }

  private update(draftId: string, change: Omit<DraftUpdatedData, 'draftId'>, content: ReturnType<typeof canonicalSource> | null, wallet: string, ctx: CommandContext): Promise<DraftDoc> {
    return this.decide(draftId, wallet, ctx, async (state) => {
      const organization = await this.organizationOf(state);
      if (!content || !state || !organization || state.status === 'published' || state.status === 'abandoned') return { kind: 'UpdateDraft', change, wallet, organization };
      const quota = content.hash === state.contentHash ? undefined : await this.quotas.forSource(state.organizationId, content, draftId);
      const command: DraftCommand = { kind: 'UpdateDraft', change, wallet, organization, quota };
      // Content is stored only once the decider (pure) accepts the change on this state: role, open draft, title
      // fit and quota. A refusal stores nothing.
      draftDecider.decide(command, state);
      await storeContent(this.decisions, content, ctx);
      return command;
    });
  }
}

export class AbandonDraft extends Command<DraftDoc> {
  constructor(readonly draftId: string, readonly wallet: string, readonly ctx: CommandContext) {
    super();
  }
}

@CommandHandler(AbandonDraft)
export class AbandonDraftHandler extends DraftCommandHandler implements ICommandHandler<AbandonDraft, DraftDoc> {
  /** @throws DomainError not_found (404), draft_published / draft_closed (409) */
  async execute({ draftId, wallet, ctx }: AbandonDraft): Promise<DraftDoc> {
    return this.decide(draftId, wallet, ctx, async (state) => ({ kind: 'AbandonDraft', wallet, organization: await this.organizationOf(state) }));
  }
}

export class PrepareDraft extends Command<{ draft: DraftDoc; publication: PreparedPublication }> {
  constructor(readonly draftId: string, readonly wallet: string, readonly ctx: CommandContext) {
    super();
  }
}

/**
 * Most signatures of the organization's wallet a prepare reads (newest first) looking for an unrecorded version: past
 * them the check covers only those, so that dust sent to the wallet cannot stall or block publishing.
 */
const PREPARE_SCAN_LIMIT = 10_000;
/** Seconds before the document's creation from which the ledger is read for versions published since (clock skew). */
const LEDGER_SKEW_SECONDS = 120;

@CommandHandler(PrepareDraft)
export class PrepareDraftHandler extends DraftCommandHandler implements ICommandHandler<PrepareDraft, { draft: DraftDoc; publication: PreparedPublication }> {
  private readonly logger = new Logger(PrepareDraftHandler.name);

  constructor(decisions: Decisions, log: EventLog, access: DashboardAccess, facts: OrganizationFactsReader, quotas: DraftQuotaReader, turns: QuotaTurns, private readonly history: LedgerHistory) {
    super(decisions, log, access, facts, quotas, turns);
  }

  /**
   * Fixes the next version number (from the document's stream) and the fingerprint. The ledger is read first for a
   * version of the document that the organization's wallet published without a prepared draft (docs/api.md
   * "Publishing"): its number is taken on the ledger, so another text prepared under it would give the document two
   * different versions of one number. Only that version's own fields (the same fingerprint) may be prepared under it.
   * @throws DomainError not_found (404), forbidden (403), draft_published / draft_closed (409), version_superseded
   *   (409: the ledger holds an unrecorded version of this number, named in the message).
   */
  async execute({ draftId, wallet, ctx }: PrepareDraft): Promise<{ draft: DraftDoc; publication: PreparedPublication }> {
    let publication: PreparedPublication | null = null;
    const draft = await this.decide(draftId, wallet, ctx, async (state) => {
      const organization = await this.organizationOf(state);
      if (!state || !organization) return { kind: 'PrepareDraft', number: 0, fingerprint: '', wallet, organization };
      const document = (await this.facts.document(await this.facts.documentAddress(state.documentId)))!;
      const version = draftVersionFields(state, document.address, (currentVersion(document)?.number ?? 0) + 1);
      const fingerprint = versionFingerprint({ organization: organization.address, ...version });
      publication = { organization: organization.address, ...version, fingerprint, memo: encodeMemo({ kind: 'ver', ...version, fingerprint }) };
      const command: DraftCommand = { kind: 'PrepareDraft', number: version.number, fingerprint, wallet, organization };
      // The decider's refusals (access, state) come before the ledger is read.
      draftDecider.decide(command, state);
      await this.refuseVersionTakenOnLedger(document, organization, version.number, fingerprint);
      return command;
    });
    if (!publication) throw new DomainError('internal_error', 'the draft was prepared without a publication');
    return { draft, publication };
  }

  /**
   * @throws DomainError version_superseded (409) when the organization's wallet (its authority) landed a `ver` record
   *   that confirming would record as this very version, other than this draft's own publication: numbered `number`,
   *   its fingerprint that of its own fields, the creation of its version address (docs/protocol.md §3, §7.2), and
   *   not in the document's stream. A record confirming would refuse anyway (another number, a fingerprint that does
   *   not match its fields, a version key used before) is no version and takes no number.
   */
  private async refuseVersionTakenOnLedger(document: DocumentState, organization: OrganizationFacts, number: number, fingerprint: string): Promise<void> {
    const authority = organization.members.find((m) => isAuthority(organization, m.address))?.address;
    if (!authority) return;
    // Nothing of the document lands before its creation (the documents read model's creation time only bounds the
    // read: every record found is judged on its own); a version numbered past the last recorded one may have landed
    // before that one, so the read goes back to the creation every time.
    const createdAt = (await this.access.documents.findOne({ address: document.address }))?.createdAt;
    const since = createdAt ? Date.parse(createdAt) / 1000 - LEDGER_SKEW_SECONDS : 0;
    const recorded = new Set(document.versions.map((v) => v.transactionSignature));
    // Bounded: transfers anyone may send to the wallet cannot make a prepare slow or impossible (docs/api.md).
    const { records, complete } = await this.history.versionRecordsSince(authority, since, undefined, PREPARE_SCAN_LIMIT, true);
    if (!complete) this.logger.warn(`prepare of a draft of document ${document.address}: the organization's wallet has more than ${PREPARE_SCAN_LIMIT} transactions since the document's creation; only the newest were read for unrecorded versions`);
    const candidates = records.filter(
      ({ signature, record, facts }) =>
        record.document === document.address &&
        record.number === number &&
        record.fingerprint !== fingerprint &&
        facts.actor === authority &&
        facts.objectSigner !== authority &&
        !recorded.has(signature) &&
        versionFingerprint({ organization: organization.address, ...record }) === record.fingerprint,
    );
    for (const candidate of candidates) {
      if ((await this.history.creationOf(candidate.facts.objectSigner!)).signature !== candidate.signature) continue;
      throw new DomainError(
        'version_superseded',
        `version ${number} of this document is on the ledger (transaction ${candidate.signature}) and not recorded here: confirm that transaction first (POST /v1/publications/confirm); one published without a prepared draft is recorded by preparing a draft with its exact text, title, label and effective date, then confirming it`,
      );
    }
  }
}

export const DraftHandlers = [CreateDraftHandler, UpdateDraftHandler, AbandonDraftHandler, PrepareDraftHandler];
