import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, UuidParam } from '@svc/http';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type AcceptanceStatDoc, type SignerStatDoc } from '@svc/projections';
import { CurrentSession, SessionGuard, type DashboardSession } from '../auth/session.guard';
import { DashboardAccess } from './access.service';
import type { DayStat, DocumentStat, StatsView, VersionStat } from './stats.dto';
import { StatsResponse } from './stats.dto';
import { Authenticated } from '../auth/authenticated';

/**
 * Acceptance statistics of an organization (spec §4.10; docs/api.md "Stats"), from the counters the stats projection
 * keeps per version and UTC day: one indexed read of those counters and one indexed count of signers.
 */
@ApiTags('dashboard: stats')
@ApiCookieAuth()
@Authenticated(SessionGuard)
@Controller('v1/organizations/:orgId/stats')
export class StatsController {
  constructor(
    private readonly access: DashboardAccess,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /** `{stats: {totals, documents, days}}`; any member. */
  @Get()
  @ApiOkResponse({ type: StatsResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  async stats(@Param('orgId', UuidParam('orgId')) orgId: string, @CurrentSession() session: DashboardSession): Promise<{ stats: StatsView }> {
    await this.access.organization(orgId, session.address);
    const [rows, signers] = await Promise.all([
      this.readStore.collection<AcceptanceStatDoc>(COLLECTIONS.acceptanceStats).find({ organizationId: orgId }, { sort: { day: 1 } }),
      this.readStore.collection<SignerStatDoc>(COLLECTIONS.signerStats).count({ organizationId: orgId }),
    ]);
    return { stats: summarize(rows, signers) };
  }
}

/** Folds the per-version, per-day counters into totals, documents (with versions) and days. */
export function summarize(rows: readonly AcceptanceStatDoc[], signers: number): StatsView {
  const versions = new Map<string, VersionStat>();
  const days = new Map<string, DayStat>();
  const totals = { acceptances: 0, signers, feeLamports: 0 };
  for (const r of rows) {
    totals.acceptances += r.acceptances;
    totals.feeLamports += r.feeLamports;
    const v = versions.get(r.versionAddress) ?? { documentId: r.documentId, documentSlug: r.documentSlug, version: r.versionAddress, versionNumber: r.versionNumber, acceptances: 0, feeLamports: 0 };
    v.acceptances += r.acceptances;
    v.feeLamports += r.feeLamports;
    versions.set(r.versionAddress, v);
    const d = days.get(r.day) ?? { day: r.day, acceptances: 0, feeLamports: 0 };
    d.acceptances += r.acceptances;
    d.feeLamports += r.feeLamports;
    days.set(r.day, d);
  }
  const documents = new Map<string, DocumentStat>();
  for (const v of versions.values()) {
    const doc = documents.get(v.documentId) ?? { documentId: v.documentId, documentSlug: v.documentSlug, acceptances: 0, feeLamports: 0, versions: [] };
    doc.acceptances += v.acceptances;
    doc.feeLamports += v.feeLamports;
    doc.versions.push(v);
    documents.set(v.documentId, doc);
  }
  for (const doc of documents.values()) doc.versions.sort((a, b) => b.versionNumber - a.versionNumber);
  return {
    totals,
    documents: [...documents.values()].sort((a, b) => a.documentSlug.localeCompare(b.documentSlug)),
    days: [...days.values()].sort((a, b) => a.day.localeCompare(b.day)),
  };
}
