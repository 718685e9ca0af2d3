import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { DomainError, PUBLISHERS } from '@svc/domain';
import { type CommandContext, LedgerHistory, OrganizationFactsReader } from '@svc/application';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type DocumentDoc, type DraftDoc } from '@svc/projections';
import { ConfirmPublication } from './publication.handlers';

/** Newest transactions of each publishing wallet read when a document has a prepared draft. */
const SCAN_LIMIT = 25;
/** Seconds before a draft's last change from which a landed publication of it is looked for (clock skew). */
const SKEW_SECONDS = 120;

/**
 * Keeps a document's current version live at the moment a signer asks to accept it (spec §4.4: the message is
 * "rebuilt from live ledger state"). The organization's wallet publishes a prepared draft on the ledger and then
 * has the service read it (`POST /v1/publications/confirm`); a challenge asked for between those two steps would
 * name the superseded version. So, when the document has a prepared draft, the recent transactions of the wallets
 * that may publish for the organization are read from the ledger, and a landed `ver` record of the document is
 * recorded exactly as the confirm endpoint records it (same command, same checks; the wallet that signed it is
 * the confirming wallet). Without a prepared draft nothing can be published (a publication must match a prepared
 * draft), so the common case costs one indexed read.
 */
@Injectable()
export class PublicationCatchUp {
  private readonly logger = new Logger(PublicationCatchUp.name);

  constructor(
    private readonly commands: CommandBus,
    private readonly history: LedgerHistory,
    private readonly facts: OrganizationFactsReader,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /**
   * Records the publications of `doc` that landed on the ledger but were not confirmed yet.
   * @returns true when a version was recorded (the caller reads the document again).
   * Errors of the ledger or of a publication that does not qualify are logged and leave the document as it was.
   */
  async catchUp(doc: DocumentDoc, ctx: CommandContext): Promise<boolean> {
    const prepared = await this.readStore.collection<DraftDoc>(COLLECTIONS.drafts).find({ documentId: doc.documentId, status: 'prepared' });
    if (prepared.length === 0) return false;
    const since = Math.min(...prepared.map((d) => Date.parse(d.updatedAt) / 1000)) - SKEW_SECONDS;
    const fingerprints = new Set(prepared.map((d) => d.prepared?.fingerprint));
    try {
      const organization = await this.facts.organization(doc.organization);
      if (!organization) return false;
      const publishers = organization.members.filter((m) => m.roles.some((r) => PUBLISHERS.includes(r))).map((m) => m.address);
      const landed = await this.history.versionRecordsSince(publishers, since, SCAN_LIMIT);
      let recorded = false;
      for (const { signature, record, actor } of landed) {
        if (record.document !== doc.address || !fingerprints.has(record.fingerprint)) continue;
        try {
          await this.commands.execute(new ConfirmPublication(signature, actor, { ...ctx, actor: `wallet:${actor}` }));
          recorded = true;
        } catch (err) {
          if (!(err instanceof DomainError)) throw err;
          // version_superseded: recorded meanwhile (by the confirm endpoint or another challenge); others do not qualify.
          if (err.code !== 'version_superseded') this.logger.warn(`publication ${signature} of document ${doc.address} not recorded: ${err.code} ${err.message}`);
        }
      }
      return recorded;
    } catch (err) {
      this.logger.warn(`could not read the ledger for publications of document ${doc.address}: ${(err as Error).message}`);
      return false;
    }
  }
}
