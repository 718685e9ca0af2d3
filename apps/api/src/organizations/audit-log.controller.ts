import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import type { KeyPairSigner } from '@solana/kit';
import { RELAYER } from '@svc/application';
import { ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { parseEvidenceTransaction, verifyAuditChain, type AuditEntry } from '@svc/evidence';
import { ApiErrors, UuidParam } from '@svc/http';
import { LEDGER, toSignature, type Ledger } from '@svc/ledger';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type AuditAnchorDoc, type AuditEntryDoc, type AuditHeadDoc } from '@svc/projections';
import { Authenticated } from '../auth/authenticated';
import { CurrentSession, SessionGuard, type DashboardSession } from '../auth/session.guard';
import { DashboardAccess } from './access.service';
import { AuditLogPageResponse, AuditLogQuery, AuditVerifyResponse } from './audit-log.dto';

const GENESIS = '0'.repeat(64);
/** Entries read at a time while verifying. */
const VERIFY_PAGE = 1000;

function entryView(e: AuditEntryDoc): AuditEntry {
  const { organizationId, sequence, occurredAt, actor, action, subject, details, sourceEventId, previousHash, hash } = e;
  return { organizationId, sequence, occurredAt, actor, action, subject, details, sourceEventId, previousHash, hash };
}

/**
 * The organization's hash-chained audit log (spec §4.10; docs/api.md "Audit log"): pages newest first, and a check
 * that recomputes the chain from the first entry and compares the anchors recorded on the ledger. Any member reads.
 */
@ApiTags('dashboard: audit log')
@ApiCookieAuth()
@Authenticated(SessionGuard)
@Controller('v1/organizations/:orgId/audit-log')
export class AuditLogController {
  constructor(
    private readonly access: DashboardAccess,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(LEDGER) private readonly ledger: Ledger,
    @Inject(RELAYER) private readonly relayer: KeyPairSigner,
  ) {}

  private get entries() {
    return this.readStore.collection<AuditEntryDoc>(COLLECTIONS.auditEntries);
  }

  /** `{entries, nextBeforeSequence, head}`, entries newest first. */
  @Get()
  @ApiOkResponse({ type: AuditLogPageResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  async page(@Param('orgId', UuidParam('orgId')) orgId: string, @Query() query: AuditLogQuery, @CurrentSession() session: DashboardSession): Promise<AuditLogPageResponse> {
    await this.access.organization(orgId, session.address);
    const limit = query.limit === undefined ? 50 : Number(query.limit);
    const filter = query.beforeSequence === undefined ? { organizationId: orgId } : { organizationId: orgId, sequence: { $lt: Number(query.beforeSequence) } };
    const [rows, head] = await Promise.all([
      this.entries.find(filter, { sort: { sequence: -1 }, limit }),
      this.readStore.collection<AuditHeadDoc>(COLLECTIONS.auditHeads).findOne({ _id: orgId }),
    ]);
    const last = rows[rows.length - 1];
    return {
      entries: rows.map(entryView),
      nextBeforeSequence: last && last.sequence > 1 && rows.length === limit ? last.sequence : null,
      head: { sequence: head?.sequence ?? 0, hash: head?.head ?? GENESIS },
    };
  }

  /**
   * Recomputes the whole chain: `{valid, entries, head, firstBreak, anchors}`; `firstBreak` names the first entry
   * whose sequence, previous hash or own hash is wrong. Each anchor (the newest 20) says whether the stored log still
   * matches it and whether the ledger holds its transaction as the relayer's anchor of that head (docs/protocol.md
   * §7.6), with the slot read back.
   */
  @Get('verify')
  @ApiOkResponse({ type: AuditVerifyResponse })
  @ApiErrors('invalid_request', 'forbidden', 'not_found')
  async verify(@Param('orgId', UuidParam('orgId')) orgId: string, @CurrentSession() session: DashboardSession): Promise<AuditVerifyResponse> {
    const org = await this.access.organization(orgId, session.address);
    const all: AuditEntry[] = [];
    for (let after = 0; ; ) {
      const rows = await this.entries.find({ organizationId: orgId, sequence: { $gt: after } }, { sort: { sequence: 1 }, limit: VERIFY_PAGE });
      all.push(...rows.map(entryView));
      if (rows.length < VERIFY_PAGE) break;
      after = rows[rows.length - 1]!.sequence;
    }
    const checked = verifyAuditChain(all);
    const anchors = await this.readStore.collection<AuditAnchorDoc>(COLLECTIONS.auditAnchors).find({ organizationId: orgId }, { sort: { sequence: -1 }, limit: 20 });
    const intactThrough = checked.firstBreak ? checked.firstBreak.sequence - 1 : checked.sequence;
    const views = anchors.map((a) => ({
      sequence: a.sequence,
      head: a.head,
      transactionSignature: a.transactionSignature,
      slot: a.slot,
      anchoredAt: a.anchoredAt,
      matchesLog: a.sequence <= intactThrough && all[a.sequence - 1]?.hash === a.head,
    }));
    // Each listed anchor is read back from the ledger (at most 20 reads, at once).
    const onLedger = await Promise.all(views.map((v) => this.anchorSlot(v, org.address)));
    return {
      valid: checked.firstBreak === null,
      entries: all.length,
      head: { sequence: checked.sequence, hash: checked.head },
      firstBreak: checked.firstBreak,
      // The slot of a transaction read back is the ledger's, not the stored one.
      anchors: views.map((v, i) => ({ ...v, slot: onLedger[i] ?? v.slot, onLedger: onLedger[i] !== null })),
    };
  }

  /**
   * The slot of the anchor's transaction when the ledger holds it as docs/protocol.md §7.6 defines the record: it
   * succeeded, its fee payer is this service's relayer, and one of its memos carries this organization's `svc/1
   * audit` record of this sequence and head with the relayer as its only account (a signer). Null otherwise: a
   * transaction of any other wallet carrying the same text is not the service's anchor.
   */
  private async anchorSlot(anchor: { sequence: number; head: string; transactionSignature: string }, organization: string): Promise<number | null> {
    const tx = await this.ledger.getTransaction(toSignature(anchor.transactionSignature)).catch(() => null);
    if (!tx || tx.err !== null) return null;
    const operator = this.relayer.address;
    try {
      const parsed = parseEvidenceTransaction(tx.wire);
      if (parsed.feePayer !== operator) return null;
      const anchored = parsed.memos.some((m) => {
        const accounts = parsed.instructions[m.instructionIndex]!.accounts;
        const byOperator = accounts.length === 1 && accounts[0] === operator && m.signerAccounts.length === 1 && m.signerAccounts[0] === operator;
        return byOperator && m.record?.kind === 'audit' && m.record.organization === organization && m.record.sequence === anchor.sequence && m.record.head === anchor.head;
      });
      return anchored ? Number(tx.slot) : null;
    } catch {
      return null;
    }
  }
}
