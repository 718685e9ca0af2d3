import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError } from '@svc/domain';
import { READ_STORE, type Filter, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type AcceptanceDoc } from '@svc/projections';
import { receiptUrlOf } from '../submit.handler';
import { acceptanceRecord, type AcceptanceRecord } from '../views';
import { secondsCoveredBy, type AcceptanceSearchQuery } from './acceptance-search.dto';
import { PageCursors, type CursorScope } from '../../system/page-cursor';

const DEFAULT_LIMIT = 50;

/** A page of acceptance search (spec §4.5). */
export interface AcceptancePage {
  acceptances: AcceptanceRecord[];
  nextCursor: string | null;
}

/**
 * An organization's recorded acceptances (direct ones once relayed, batched ones from their `pending_batch`
 * answer on), newest first by the order they were recorded (`confirmedSeq`), answered from the indexes of the
 * acceptances read model. Because that order only grows, a cursor walk sees every acceptance recorded before it
 * started exactly once, however many arrive meanwhile.
 */
@Injectable()
export class AcceptanceSearch {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly cursors: PageCursors,
  ) {}

  private get acceptances() {
    return this.readStore.collection<AcceptanceDoc>(COLLECTIONS.acceptances);
  }

  /**
   * `from`/`to` are inclusive and `before` exclusive bounds on `blockTime` (whole seconds on the ledger; a batched
   * acceptance awaiting its batch, the time it was recorded).
   * @throws DomainError invalid_cursor (400: malformed, changed, or of another organization or filter set).
   */
  async search(organizationId: string, query: AcceptanceSearchQuery): Promise<AcceptancePage> {
    const scope: CursorScope = [organizationId, query.document ?? null, query.version ?? null, query.signer ?? null, query.externalUserRef ?? null, query.from ?? null, query.to ?? null, query.before ?? null];
    const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
    const filter: Filter = { organizationId, confirmedSeq: query.cursor === undefined ? { $gte: 0 } : { $gte: 0, $lt: this.cursors.decode(query.cursor, scope) } };
    if (query.document !== undefined) filter.document = query.document;
    if (query.version !== undefined) filter.versionAddress = query.version;
    if (query.signer !== undefined) filter.signer = query.signer;
    if (query.externalUserRef !== undefined) filter.externalUserRef = query.externalUserRef;
    const time: Record<string, number> = {};
    // blockTime is whole seconds: each bound is the first or last whole second it covers.
    if (query.from !== undefined) time.$gte = secondsCoveredBy(query.from).first;
    if (query.to !== undefined) time.$lte = secondsCoveredBy(query.to).last;
    if (query.before !== undefined) time.$lt = secondsCoveredBy(query.before).first;
    if (Object.keys(time).length > 0) filter.blockTime = time;
    const rows = await this.acceptances.find(filter, { sort: { confirmedSeq: -1 }, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      acceptances: page.map(acceptanceRecord),
      nextCursor: rows.length > limit && last?.confirmedSeq != null ? this.cursors.encode(last.confirmedSeq, scope) : null,
    };
  }

  /**
   * One recorded acceptance of the organization (relayed, or batched and awaiting its batch): `{acceptance, receiptUrl}`.
   * @throws DomainError not_found (404: unknown, not recorded, or of another organization).
   */
  async one(organizationId: string, acceptanceId: string): Promise<{ acceptance: AcceptanceRecord; receiptUrl: string }> {
    const a = await this.acceptances.findOne({ _id: acceptanceId });
    if (!a || a.confirmedSeq === null || a.organizationId !== organizationId) throw new DomainError('not_found', 'acceptance not found');
    return { acceptance: acceptanceRecord(a), receiptUrl: receiptUrlOf(this.config.publicBaseUrl, acceptanceId) };
  }
}
