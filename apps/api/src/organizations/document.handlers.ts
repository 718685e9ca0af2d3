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
   * @throws DomainError not_found (organization, or no transaction for the address), chain_state (409: not a
   * document of this organization on the ledger, or created by a key that may not publish for it).
   */
  async execute({ organizationId, address, wallet, ctx }: SyncDocument): Promise<DocumentDoc> {
    const org = await this.access.organization(organizationId, wallet);
    const organization = await this.facts.organization(org.address);
    const decided = await this.decisions.handle(
      streams.document(address),
      documentDecider,
      async (state) => ({
        kind: 'SyncDocument' as const,
        address,
        wallet,
        documentId: randomUUID(),
        organization,
        creation: state ? null : LedgerHistory.factsOf(await this.history.creationOf(address)),
      }),
      ctx,
    );
    await this.log.settledAfter(decided.appended);
    const stored = await this.access.documents.findOne({ address });
    if (!stored) throw new DomainError('chain_state', 'document is being synced; retry');
    return stored;
  }
}

export const DocumentHandlers = [SyncDocumentHandler];
