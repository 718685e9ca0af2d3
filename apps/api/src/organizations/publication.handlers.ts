import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DomainError, streams } from '@svc/domain';
import { versionFingerprint } from '@svc/evidence';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type DocumentDoc, type VersionDoc } from '@svc/projections';
import { newEvent, type CommandContext } from '../infrastructure/command-context';
import { EventLog } from '../shared/event-log.service';
import { LedgerHistory, type LedgerRecord } from '../shared/ledger-history.service';
import { DashboardAccess } from './access.service';

/**
 * Records a version published by the organization's wallet: reads the publication transaction from the
 * ledger, checks it against a prepared draft, and appends `VersionPublished` on the document's stream
 * (whose expected revision keeps version numbers in order). Idempotent for an already recorded version.
 */
export class ConfirmPublication {
  constructor(readonly signature: string, readonly wallet: string, readonly ctx: CommandContext) {}
}

@CommandHandler(ConfirmPublication)
export class ConfirmPublicationHandler implements ICommandHandler<ConfirmPublication, { version: VersionDoc; document: DocumentDoc }> {
  constructor(
    private readonly log: EventLog,
    private readonly history: LedgerHistory,
    private readonly access: DashboardAccess,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /**
   * @throws DomainError not_found (transaction or document unknown), transaction_failed (409: it failed on the
   * ledger), not_a_publication (400), version_superseded (409: a version with this number exists),
   * chain_state (409: no prepared draft matches, fingerprint mismatch, publisher not allowed).
   */
  async execute({ signature, wallet, ctx }: ConfirmPublication) {
    let tx: LedgerRecord | null;
    try {
      tx = await this.history.transaction(signature);
    } catch {
      throw new DomainError('not_a_publication', 'the transaction does not carry a well-formed publication record');
    }
    if (!tx) throw new DomainError('not_found', `transaction ${signature} not found on the ledger`);
    if (tx.err !== null) throw new DomainError('transaction_failed', 'the publication transaction failed on the ledger');
    const memo = tx.memo;
    if (!memo || memo.record.kind !== 'ver') throw new DomainError('not_a_publication', 'the transaction is not a version publication');
    const record = memo.record;
    const versionAddress = memo.signerAccounts[0];
    const publisher = memo.signerAccounts.find((a) => a !== versionAddress) ?? tx.feePayer;
    const versions = this.readStore.collection<VersionDoc>(COLLECTIONS.versions);

    const documentDoc = await this.access.documents.findOne({ address: record.document });
    if (!documentDoc) throw new DomainError('not_found', 'the publication names a document that is not synced');
    const { organization } = await this.access.document(documentDoc.documentId, wallet);
    const recorded = await versions.findOne({ _id: versionAddress });
    if (recorded) return { version: recorded, document: (await this.access.document(documentDoc.documentId, wallet)).document };

    if (!organization.members.some((m) => m.address === publisher && (m.roles.includes('owner') || m.roles.includes('publisher')))) {
      throw new DomainError('chain_state', 'the publication was signed by a key that may not publish for this organization');
    }
    const fingerprint = versionFingerprint({
      organization: organization.address,
      document: record.document,
      number: record.number,
      label: record.label,
      title: record.title,
      contentHash: record.contentHash,
      effectiveAt: record.effectiveAt,
    });
    if (fingerprint !== record.fingerprint) throw new DomainError('chain_state', 'the fingerprint on the ledger does not match the version fields');

    const stream = await this.log.load(streams.document(record.document));
    const current = stream.events.filter((e) => e.type === 'VersionPublished').length;
    if (record.number <= current) throw new DomainError('version_superseded', `version ${record.number} already exists; the next number is ${current + 1}`);
    if (record.number !== current + 1) throw new DomainError('chain_state', `the next version number is ${current + 1}, the ledger says ${record.number}`);

    const drafts = await this.access.drafts.find({ documentId: documentDoc.documentId, status: 'prepared' });
    const draft = drafts.find((d) => d.prepared?.fingerprint === record.fingerprint && d.prepared.number === record.number);
    if (!draft) throw new DomainError('chain_state', 'no prepared draft matches this publication (content hash, number and fingerprint)');

    const appended = await this.log.tryAppend(
      streams.document(record.document),
      [
        newEvent(
          'VersionPublished',
          {
            documentId: documentDoc.documentId,
            document: record.document,
            organizationId: organization.organizationId,
            organization: organization.address,
            versionAddress,
            number: record.number,
            label: record.label,
            title: record.title,
            contentHash: record.contentHash,
            fingerprint: record.fingerprint,
            effectiveAt: record.effectiveAt,
            transactionSignature: signature,
            slot: tx.slot,
            blockTime: tx.blockTime,
            publisher,
            draftId: draft.draftId,
          },
          ctx,
        ),
      ],
      stream.revision,
    );
    if (!appended) throw new DomainError('version_superseded', 'another version was recorded meanwhile');
    const draftStream = await this.log.load(streams.draft(draft.draftId));
    const published = await this.log.append(
      streams.draft(draft.draftId),
      [newEvent('DraftPublished', { draftId: draft.draftId, versionAddress, transactionSignature: signature }, ctx)],
      draftStream.revision,
    );
    await this.log.settled(published.position > appended.position ? published.position : appended.position);
    const version = await versions.findOne({ _id: versionAddress });
    if (!version) throw new DomainError('chain_state', 'the version is being recorded; retry');
    return { version, document: (await this.access.document(documentDoc.documentId, wallet)).document };
  }
}

export const PublicationHandlers = [ConfirmPublicationHandler];
