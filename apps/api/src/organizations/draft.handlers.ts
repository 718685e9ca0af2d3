import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { DomainError, streams, type DraftUpdatedData } from '@svc/domain';
import { canonicalContent, contentHash, encodeMemo, versionFingerprint } from '@svc/evidence';
import type { DraftDoc } from '@svc/projections';
import type { NewEvent } from '@svc/event-store';
import { newEvent, type CommandContext } from '../infrastructure/command-context';
import { EventLog } from '../shared/event-log.service';
import { DashboardAccess } from './access.service';

/** Fields of a draft as the dashboard sends them. */
export interface DraftInput {
  title?: string;
  versionLabel?: string;
  effectiveAt?: number | null;
  source?: string;
  changeSummary?: string | null;
}

/** Canonical bytes and hash of a draft's source; the `ContentStored` event when the text is new. */
function storeContent(source: string, ctx: CommandContext): { hash: string; text: string; event: NewEvent } {
  const bytes = canonicalContent(source);
  const hash = contentHash(bytes);
  const text = bytes.toString('utf8');
  return { hash, text, event: newEvent('ContentStored', { contentHash: hash, text, byteLength: bytes.length, mediaType: 'text/markdown' }, ctx) };
}

function assertOpen(draft: DraftDoc): void {
  if (draft.status === 'published') throw new DomainError('draft_published', 'the draft was already published');
  if (draft.status === 'abandoned') throw new DomainError('draft_closed', 'the draft was abandoned');
}

export class CreateDraft {
  constructor(readonly documentId: string, readonly input: Required<Pick<DraftInput, 'title' | 'versionLabel' | 'source'>> & DraftInput, readonly wallet: string, readonly ctx: CommandContext) {}
}

@CommandHandler(CreateDraft)
export class CreateDraftHandler implements ICommandHandler<CreateDraft, DraftDoc> {
  constructor(private readonly log: EventLog, private readonly access: DashboardAccess) {}

  async execute({ documentId, input, wallet, ctx }: CreateDraft): Promise<DraftDoc> {
    const { document, organization } = await this.access.document(documentId, wallet);
    const content = storeContent(input.source, ctx);
    await this.log.tryAppend(streams.content(content.hash), [content.event], 'no_stream');
    const draftId = randomUUID();
    const appended = await this.log.append(
      streams.draft(draftId),
      [
        newEvent(
          'DraftCreated',
          {
            draftId,
            documentId: document.documentId,
            organizationId: organization.organizationId,
            title: input.title,
            versionLabel: input.versionLabel,
            effectiveAt: input.effectiveAt ?? null,
            contentHash: content.hash,
            changeSummary: input.changeSummary ?? null,
            createdBy: wallet,
          },
          ctx,
        ),
      ],
      'no_stream',
    );
    await this.log.settled(appended.position);
    return (await this.access.draft(draftId, wallet)).draft;
  }
}

export class UpdateDraft {
  constructor(readonly draftId: string, readonly input: DraftInput, readonly wallet: string, readonly ctx: CommandContext) {}
}

@CommandHandler(UpdateDraft)
export class UpdateDraftHandler implements ICommandHandler<UpdateDraft, DraftDoc> {
  constructor(private readonly log: EventLog, private readonly access: DashboardAccess) {}

  /** @throws DomainError draft_published / draft_closed (409) */
  async execute({ draftId, input, wallet, ctx }: UpdateDraft): Promise<DraftDoc> {
    const { draft } = await this.access.draft(draftId, wallet);
    assertOpen(draft);
    const change: DraftUpdatedData = { draftId };
    if (input.title !== undefined) change.title = input.title;
    if (input.versionLabel !== undefined) change.versionLabel = input.versionLabel;
    if (input.effectiveAt !== undefined) change.effectiveAt = input.effectiveAt;
    if (input.changeSummary !== undefined) change.changeSummary = input.changeSummary;
    if (input.source !== undefined) {
      const content = storeContent(input.source, ctx);
      await this.log.tryAppend(streams.content(content.hash), [content.event], 'no_stream');
      change.contentHash = content.hash;
    }
    const stream = await this.log.load(streams.draft(draftId));
    if (stream.events.some((e) => e.type === 'DraftPublished')) throw new DomainError('draft_published', 'the draft was already published');
    const appended = await this.log.tryAppend(streams.draft(draftId), [newEvent('DraftUpdated', change, ctx)], stream.revision);
    if (!appended) throw new DomainError('chain_state', 'the draft changed meanwhile; retry');
    await this.log.settled(appended.position);
    return (await this.access.draft(draftId, wallet)).draft;
  }
}

export class AbandonDraft {
  constructor(readonly draftId: string, readonly wallet: string, readonly ctx: CommandContext) {}
}

@CommandHandler(AbandonDraft)
export class AbandonDraftHandler implements ICommandHandler<AbandonDraft, DraftDoc> {
  constructor(private readonly log: EventLog, private readonly access: DashboardAccess) {}

  async execute({ draftId, wallet, ctx }: AbandonDraft): Promise<DraftDoc> {
    const { draft } = await this.access.draft(draftId, wallet);
    assertOpen(draft);
    const stream = await this.log.load(streams.draft(draftId));
    const appended = await this.log.tryAppend(streams.draft(draftId), [newEvent('DraftAbandoned', { draftId, abandonedBy: wallet }, ctx)], stream.revision);
    if (!appended) throw new DomainError('chain_state', 'the draft changed meanwhile; retry');
    await this.log.settled(appended.position);
    return (await this.access.draft(draftId, wallet)).draft;
  }
}

/** What the organization's wallet must put on the ledger to publish a prepared draft. */
export interface PreparedPublication {
  organization: string;
  document: string;
  number: number;
  label: string;
  title: string;
  contentHash: string;
  fingerprint: string;
  effectiveAt: number | null;
  /** The exact memo text the publication transaction carries (docs/protocol.md). */
  memo: string;
}

export class PrepareDraft {
  constructor(readonly draftId: string, readonly wallet: string, readonly ctx: CommandContext) {}
}

@CommandHandler(PrepareDraft)
export class PrepareDraftHandler implements ICommandHandler<PrepareDraft, { draft: DraftDoc; publication: PreparedPublication }> {
  constructor(private readonly log: EventLog, private readonly access: DashboardAccess) {}

  /** Fixes the next version number and fingerprint. @throws DomainError draft_published / draft_closed (409) */
  async execute({ draftId, wallet, ctx }: PrepareDraft) {
    const { draft, document, organization } = await this.access.draft(draftId, wallet);
    assertOpen(draft);
    const version = {
      document: document.address,
      number: (document.currentVersion?.number ?? 0) + 1,
      label: draft.versionLabel,
      title: draft.title,
      contentHash: draft.contentHash,
      effectiveAt: draft.effectiveAt,
    };
    const fingerprint = versionFingerprint({ organization: organization.address, ...version });
    const stream = await this.log.load(streams.draft(draftId));
    const appended = await this.log.tryAppend(
      streams.draft(draftId),
      [newEvent('DraftPrepared', { draftId, number: version.number, contentHash: draft.contentHash, fingerprint, preparedBy: wallet }, ctx)],
      stream.revision,
    );
    if (!appended) throw new DomainError('chain_state', 'the draft changed meanwhile; retry');
    await this.log.settled(appended.position);
    const publication: PreparedPublication = {
      organization: organization.address,
      ...version,
      fingerprint,
      memo: encodeMemo({ kind: 'ver', ...version, fingerprint }),
    };
    return { draft: (await this.access.draft(draftId, wallet)).draft, publication };
  }
}

export const DraftHandlers = [CreateDraftHandler, UpdateDraftHandler, AbandonDraftHandler, PrepareDraftHandler];
