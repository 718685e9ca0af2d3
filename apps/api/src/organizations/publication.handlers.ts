import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DomainError, documentDecider, draftDecider, publicationRecord, streams, type PreparedDraftFacts, type VersionRecord } from '@svc/domain';
import { versionFingerprint } from '@svc/evidence';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type DocumentDoc, type VersionDoc } from '@svc/projections';
import { type CommandContext, Decisions, EventLog, faultPoint, LedgerHistory, type LedgerRecord, OrganizationFactsReader } from '@svc/application';
import { LedgerError } from '@svc/ledger';
import { DashboardAccess } from './access.service';

/**
 * Records a version published by the organization's wallet: reads the publication transaction from the
 * ledger, checks it against a prepared draft, and appends `VersionPublished` on the document's stream
 * (whose expected revision keeps version numbers in order). Idempotent for an already recorded version.
 */
export class ConfirmPublication extends Command<{ version: VersionDoc; document: DocumentDoc }> {
  constructor(readonly signature: string, readonly wallet: string, readonly ctx: CommandContext) {
    super();
  }
}

@CommandHandler(ConfirmPublication)
export class ConfirmPublicationHandler implements ICommandHandler<ConfirmPublication, { version: VersionDoc; document: DocumentDoc }> {
  constructor(
    private readonly decisions: Decisions,
    private readonly log: EventLog,
    private readonly history: LedgerHistory,
    private readonly access: DashboardAccess,
    private readonly facts: OrganizationFactsReader,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /**
   * @throws DomainError not_found (404: transaction unknown; document or organization unknown to this wallet),
   * forbidden (403: a member who is neither owner nor publisher), not_a_publication (400: no version record, whether
   * the transaction succeeded or not), transaction_failed (409: a publication of this wallet's organization that failed
   * on the ledger), version_superseded (409: a version with this number exists),
   * chain_state (409: no prepared draft matches, fingerprint mismatch, a record not co-signed by the organization's authority, a version address that
   * is not a fresh key: another version's, the publisher's own, or one used before this publication); the ledger's error
   * (500 internal_error, to retry) when the transaction cannot be read.
   */
  async execute({ signature, wallet, ctx }: ConfirmPublication): Promise<{ version: VersionDoc; document: DocumentDoc }> {
    let tx: LedgerRecord | null;
    try {
      tx = await this.history.transaction(signature);
    } catch (err) {
      // A ledger that cannot answer now is not a verdict on the transaction.
      if (err instanceof LedgerError) throw err;
      throw new DomainError('not_a_publication', 'the transaction does not carry a well-formed publication record');
    }
    if (!tx) throw new DomainError('not_found', `transaction ${signature} not found on the ledger`);
    const transaction = LedgerHistory.factsOf(tx);
    const record = publicationRecord(transaction);
    const document = await this.facts.document(record.document);
    if (!document) throw new DomainError('not_found', 'the publication names a document that is not synced');
    const organization = await this.facts.organization(document.organization);
    if (!organization) throw new DomainError('not_found', 'document not found');
    // The version address's creation (docs/protocol.md §7.2), which the decider requires to be this publication. A
    // version recorded with this very transaction (the read model is a hint; the decider re-checks it on the stream)
    // spares reading the address's history again.
    const versionAddress = transaction.objectSigner!;
    const known = await this.readStore.collection<VersionDoc>(COLLECTIONS.versions).findOne({ _id: versionAddress });
    // A failed publication created nothing (the decider refuses it after the access checks), so nothing is read.
    const addressCreation = !transaction.succeeded || known?.transactionSignature === signature ? null : (await this.history.creationOf(versionAddress)).signature;

    const matched: { draft: PreparedDraftFacts | null } = { draft: null };
    const decided = await this.decisions.handle(
      streams.document(record.document),
      documentDecider,
      async () => {
        const draft = (matched.draft = await this.preparedDraft(document.documentId, record));
        return {
          kind: 'PublishVersion' as const,
          wallet,
          transaction,
          record,
          organization,
          recomputedFingerprint: versionFingerprint({ organization: organization.address, ...record }),
          draft,
          addressCreation,
        };
      },
      ctx,
    );
    let position = decided.appended?.position ?? -1n;
    const published = decided.events[0];
    // The draft the version completes: the one it names when recorded now; when it was recorded before (a repeated
    // confirm), a prepared draft that still matches it, left unmarked by a confirm stopped between its two steps.
    const draftId = published?.type === 'VersionPublished' ? published.data.draftId : decided.events.length === 0 ? matched.draft?.draftId : undefined;
    if (draftId) {
      faultPoint('publication:before-draft-mark');
      const marked = await this.decisions.handle(
        streams.draft(draftId),
        draftDecider,
        { kind: 'MarkDraftPublished', versionAddress, transactionSignature: signature, fingerprint: record.fingerprint },
        ctx,
      );
      if (marked.appended && marked.appended.position > position) position = marked.appended.position;
    }
    // Recorded before, perhaps by a concurrent confirm or challenge a moment ago: wait for the read models to show it.
    if (position < 0n) await this.log.settledAtHead();
    else await this.log.settled(position);
    const version = await this.readStore.collection<VersionDoc>(COLLECTIONS.versions).findOne({ _id: versionAddress });
    if (!version) throw new DomainError('chain_state', 'the version is being recorded; retry');
    return { version, document: (await this.access.document(document.documentId, wallet)).document };
  }

  /**
   * The prepared draft a publication completes. The drafts read model names the candidates (a hint); each is
   * re-checked against its own stream, which alone decides.
   */
  private async preparedDraft(documentId: string, record: VersionRecord): Promise<PreparedDraftFacts | null> {
    const candidates = await this.access.drafts.find({ documentId, status: 'prepared' });
    for (const candidate of candidates) {
      const { state } = await this.decisions.load(streams.draft(candidate.draftId), draftDecider);
      const prepared = state?.status === 'prepared' ? state.prepared : null;
      if (prepared && prepared.fingerprint === record.fingerprint && prepared.number === record.number) {
        return { draftId: candidate.draftId, number: prepared.number, fingerprint: prepared.fingerprint };
      }
    }
    return null;
  }
}

export const PublicationHandlers = [ConfirmPublicationHandler];
