import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { DomainError, documentDecider, streams } from '@svc/domain';
import type { DocumentDoc } from '@svc/projections';
import { type CommandContext, Decisions, EventLog, LedgerHistory, OrganizationFactsReader } from '@svc/application';
import { DashboardAccess } from './access.service';

/** Reads a document from the ledger (its creation memo names the organization) and records it. Idempotent. */
export class SyncDocument extends Command<DocumentDoc> {
  constructor(readonly organizationId: string, readonly address: string, readonly wallet: string, readonly ctx: CommandContext) {
    super();
  }
}

@CommandHandler(SyncDocument)
export class SyncDocumentHandler implements ICommandHandler<SyncDocument, DocumentDoc> {
  constructor(
    private readonly decisions: Decisions,
    private readonly log: EventLog,
    private readonly history: LedgerHistory,
    private readonly access: DashboardAccess,
    private readonly facts: OrganizationFactsReader,
  ) {}

  /**
   * A slug names one document of an organization (spec §4.2 `…/documents/{slug}`, sessions, the widget): a document
   * whose slug another synced document of the organization holds is refused. The documents read model says which
   * slugs are held (two first syncs racing with one slug may both pass it; slug reads then answer one of them,
   * docs/api.md "Publishing").
   * @throws DomainError not_found (organization, or no transaction for the address), forbidden (403: neither owner
   * nor publisher), chain_state (409: not a document of this organization on the ledger, created by a key that may
   * not publish for it, or its slug held by another document of the organization).
   */
  async execute({ organizationId, address, wallet, ctx }: SyncDocument): Promise<DocumentDoc> {
    const org = await this.access.organization(organizationId, wallet);
    const organization = await this.facts.organization(org.address);
    const decided = await this.decisions.handle(
      streams.document(address),
      documentDecider,
      async (state) => {
        const command = {
          kind: 'SyncDocument' as const,
          address,
          wallet,
          documentId: randomUUID(),
          organization,
          creation: state ? null : LedgerHistory.factsOf(await this.history.creationOf(address)),
        };
        // The decider's refusals (access, a creation that is not this organization's document) come first.
        const synced = documentDecider.decide(command, state);
        const created = synced[0]?.type === 'DocumentSynced' ? synced[0].data : null;
        const holder = created && (await this.access.documents.findOne({ organization: created.organization, slug: created.slug }));
        if (holder && holder.address !== address) {
          throw new DomainError('chain_state', `the slug "${created.slug}" is document ${holder.address}'s in this organization; create the document with another slug`);
        }
        return command;
      },
      ctx,
    );
    await this.log.settledAfter(decided.appended);
    const stored = await this.access.documents.findOne({ address });
    if (!stored) throw new DomainError('chain_state', 'document is being synced; retry');
    return stored;
  }
}

export const DocumentHandlers = [SyncDocumentHandler];
