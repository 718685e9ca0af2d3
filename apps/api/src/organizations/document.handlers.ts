import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { DomainError, streams } from '@svc/domain';
import type { DocumentDoc } from '@svc/projections';
import { newEvent, type CommandContext } from '../infrastructure/command-context';
import { EventLog } from '../shared/event-log.service';
import { LedgerHistory } from '../shared/ledger-history.service';
import { DashboardAccess } from './access.service';

/** Reads a document from the ledger (its creation memo names the organization) and records it. Idempotent. */
export class SyncDocument {
  constructor(readonly organizationId: string, readonly address: string, readonly wallet: string, readonly ctx: CommandContext) {}
}

@CommandHandler(SyncDocument)
export class SyncDocumentHandler implements ICommandHandler<SyncDocument, DocumentDoc> {
  constructor(
    private readonly log: EventLog,
    private readonly history: LedgerHistory,
    private readonly access: DashboardAccess,
  ) {}

  /**
   * @throws DomainError not_found (organization, or no transaction for the address), chain_state (409: not a
   * document of this organization on the ledger, or created by a key that is not the organization's authority).
   */
  async execute({ organizationId, address, wallet, ctx }: SyncDocument): Promise<DocumentDoc> {
    const org = await this.access.organization(organizationId, wallet);
    const known = await this.access.documents.findOne({ address });
    if (known) {
      if (known.organizationId !== organizationId) throw new DomainError('not_found', 'document not found');
      return known;
    }
    const creation = await this.history.creationOf(address);
    const memo = creation.memo;
    if (creation.err !== null || !memo || memo.record.kind !== 'doc' || memo.signerAccounts[0] !== address) {
      throw new DomainError('chain_state', `${address} was not created as a document on the ledger`);
    }
    if (memo.record.organization !== org.address) throw new DomainError('chain_state', 'the document belongs to another organization');
    const creator = memo.signerAccounts.find((a) => a !== address) ?? creation.feePayer;
    if (!org.members.some((m) => m.address === creator && (m.roles.includes('owner') || m.roles.includes('publisher')))) {
      throw new DomainError('chain_state', 'the document was created by a key that may not publish for this organization');
    }
    const appended = await this.log.tryAppend(
      streams.document(address),
      [
        newEvent(
          'DocumentSynced',
          {
            documentId: randomUUID(),
            address,
            organizationId,
            organization: org.address,
            slug: memo.record.slug,
            title: memo.record.title,
            creationSignature: creation.signature,
            slot: creation.slot,
            blockTime: creation.blockTime,
          },
          ctx,
        ),
      ],
      'no_stream',
    );
    if (appended) await this.log.settled(appended.position);
    const stored = await this.access.documents.findOne({ address });
    if (!stored) throw new DomainError('chain_state', 'document is being synced; retry');
    return stored;
  }
}

export const DocumentHandlers = [SyncDocumentHandler];
