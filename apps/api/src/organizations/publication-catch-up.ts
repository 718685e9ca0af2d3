import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { LRUCache } from 'lru-cache';
import { DomainError } from '@svc/domain';
import { type CommandContext, EventLog, LedgerHistory, OrganizationFactsReader } from '@svc/application';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type DocumentDoc, type DraftDoc } from '@svc/projections';
import { ConfirmPublication } from './publication.handlers';

/** A document's organization wallet is read at most once in this many milliseconds (challenges are public). */
const RESCAN_MS = 2_000;
/** Seconds before a draft's last change from which a landed publication of it is looked for (clock skew). */
const SKEW_SECONDS = 120;

/** What the catch-up needs of a document: its ID, its address and its organization's address. */
export type CatchUpDocument = Pick<DocumentDoc, 'documentId' | 'address' | 'organization'>;

/**
 * Keeps a document's current version live at the moment a signer asks to accept it (spec §4.4: the message is
 * "rebuilt from live ledger state"). The organization's wallet publishes a prepared draft on the ledger and then
 * has the service read it (`POST /v1/publications/confirm`); a challenge asked for between those two steps would
 * name the superseded version. So, when the document has a prepared draft, the history of the organization's wallet
 * (its authority, which co-signs every version of the organization: docs/protocol.md §7.2) is read from the ledger,
 * and a landed `ver` record of the document is recorded exactly as the confirm endpoint records it (same command,
 * same checks; the authority is the confirming wallet, the service the actor). Without a prepared draft nothing can
 * be published (a publication must match a prepared draft), so the common case costs one indexed read of the drafts.
 * One document's wallet is read by one caller at a time (others wait for that read) and, for challenges, at most
 * every two seconds; a signed submission reads it again whatever the last read's age. The first read goes back to
 * shortly before the document's drafts were prepared, each later one covers everything that landed since the last
 * read, however many transactions that is (transfers to the wallet cannot hide a publication; docs/api.md
 * "Signing an acceptance").
 */
@Injectable()
export class PublicationCatchUp {
  private readonly logger = new Logger(PublicationCatchUp.name);
  /** Per document address: when its organization's wallet was last read, the newest signature then listed, the read running. */
  private readonly scans = new LRUCache<string, { at: number; seen: string | undefined; running: Promise<boolean> | null }>({ max: 1_000 });

  constructor(
    private readonly commands: CommandBus,
    private readonly history: LedgerHistory,
    private readonly facts: OrganizationFactsReader,
    private readonly log: EventLog,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /**
   * Records the publications of `doc` that landed on the ledger but were not confirmed yet, and waits until the
   * read models show them.
   * @param doc the document: its ID, address and organization's address.
   * @param options.fresh read the wallet even if it was read less than two seconds ago (a signed submission, which
   *   is about to be recorded against the version it names); a read already running is waited for, then the wallet
   *   is read again.
   * @returns true when a landed publication of one of the document's prepared drafts was found (recorded now, or
   *   meanwhile by another caller): the caller reads the document again.
   * Errors of the ledger or of a publication that does not qualify are logged and leave the document as it was.
   */
  async catchUp(doc: CatchUpDocument, ctx: CommandContext, options: { fresh?: boolean } = {}): Promise<boolean> {
    const fresh = options.fresh === true;
    // Asked on every call (one indexed probe, about 10 µs): a draft prepared a moment ago may already have landed.
    const drafts = this.readStore.collection<DraftDoc>(COLLECTIONS.drafts);
    const filter = { documentId: doc.documentId, status: 'prepared' };
    if ((await drafts.findOne(filter)) === null) return false;
    const prepared = await drafts.find(filter);
    if (prepared.length === 0) return false;
    let scan = this.scans.get(doc.address);
    if (scan?.running) {
      const found = await scan.running;
      if (found || !fresh) return found;
      // Another caller's read began before this caller asked: it may have missed what landed since.
      if (scan.running) return scan.running;
    }
    if (!fresh && scan && Date.now() - scan.at < RESCAN_MS) return false;
    scan ??= { at: 0, seen: undefined, running: null };
    this.scans.set(doc.address, scan);
    const current = scan;
    current.at = Date.now();
    current.running = this.scan(doc, prepared, current, ctx).finally(() => {
      current.running = null;
    });
    return current.running;
  }

  private async scan(doc: CatchUpDocument, prepared: DraftDoc[], progress: { seen: string | undefined }, ctx: CommandContext): Promise<boolean> {
    const since = Math.min(...prepared.map((d) => Date.parse(d.updatedAt) / 1000)) - SKEW_SECONDS;
    const fingerprints = new Set(prepared.map((d) => d.prepared?.fingerprint));
    let found = false;
    try {
      const organization = await this.facts.organization(doc.organization);
      const authority = organization?.members.find((m) => m.roles.includes('owner'))?.address;
      if (!authority) return false;
      const { records, newest } = await this.history.versionRecordsSince(authority, since, progress.seen);
      let retry = false;
      for (const { signature, record } of records) {
        if (record.document !== doc.address || !fingerprints.has(record.fingerprint)) continue;
        found = true;
        try {
          await this.commands.execute(new ConfirmPublication(signature, authority, { ...ctx, actor: 'service:publication-catch-up' }));
        } catch (err) {
          if (!(err instanceof DomainError)) throw err;
          // Recorded meanwhile by another caller (the version exists, or is being projected): the wait below covers it.
          if (err.code === 'version_superseded' || err.code === 'chain_state') continue;
          this.logger.warn(`publication ${signature} of document ${doc.address} not recorded: ${err.code} ${err.message}`);
          // Perhaps a ledger read that failed this time (it is refused as not_a_publication): read it again next time.
          retry = true;
        }
      }
      // Read again from the start next time when a record seen here may not have been recorded.
      progress.seen = retry ? undefined : newest;
    } catch (err) {
      progress.seen = undefined;
      this.logger.warn(`publications of document ${doc.address} not caught up: ${(err as Error).message}`);
    }
    if (found) await this.log.settledAtHead();
    return found;
  }
}
