import { Inject, Injectable } from '@nestjs/common';
import { auditLogDecider, type EventOf } from '@svc/domain';
import { LEDGER, toSignature, type Ledger } from '@svc/ledger';
import { reactionContext } from '../../infrastructure/command-context';
import { Decisions } from '../../shared/decisions.service';
import type { StoredDomainEvent } from '../../shared/stored-events';
import { faultPoint } from '../fault-points';
import type { Processor } from '../processor';
import { sendRecordedTransaction } from '../send-recorded-transaction';

type Requested = EventOf<'AuditAnchorRequested'>;

/**
 * Sends a recorded audit anchor to the ledger and records the outcome (`AuditHeadAnchored` or `AuditAnchorFailed`),
 * the same crash-safe order as the acceptance relay: the transaction was recorded signed before this runs, so a
 * resend after a crash lands at most once (sendRecordedTransaction: the ledger answers `AlreadyProcessed`, or its
 * status is found). Crash points `audit:before-send` and `audit:after-send` (fault-points.ts). An anchor
 * that failed is not retried: the next anchor covers the head, then further.
 */
@Injectable()
export class SendAuditAnchorWhenRequested implements Processor<Requested> {
  readonly name = 'audit-anchor';
  readonly eventTypes = ['AuditAnchorRequested'] as const satisfies readonly Requested['type'][];
  readonly concurrency = 8;

  constructor(
    private readonly decisions: Decisions,
    @Inject(LEDGER) private readonly ledger: Ledger,
  ) {}

  key(event: StoredDomainEvent<Requested>): string {
    return event.streamId;
  }

  async handle(event: StoredDomainEvent<Requested>): Promise<void> {
    const anchor = event.data;
    const ctx = reactionContext(event, 'service:audit-anchors');
    const { state } = await this.decisions.load(event.streamId, auditLogDecider);
    if (state.pendingAnchor?.transactionSignature !== anchor.transactionSignature) return;
    const sent = await sendRecordedTransaction(this.ledger, anchor, { before: () => faultPoint('audit:before-send'), after: () => faultPoint('audit:after-send') });
    let failure = sent === 'landed' ? null : sent === 'expired' ? 'the blockhash expired before the anchor landed' : sent.reason;
    if (failure === null) {
      const landed = await this.ledger.getTransaction(toSignature(anchor.transactionSignature));
      if (!landed) throw new Error(`the ledger confirmed the audit anchor ${anchor.transactionSignature} but cannot return it yet`);
      if (landed.err === null) {
        await this.decisions.handle(
          event.streamId,
          auditLogDecider,
          {
            kind: 'RecordAuditAnchored',
            anchored: { organizationId: anchor.organizationId, sequence: anchor.sequence, head: anchor.head, transactionSignature: anchor.transactionSignature, slot: Number(landed.slot), blockTime: landed.blockTime },
          },
          ctx,
        );
        return;
      }
      failure = `the anchor transaction failed on the ledger: ${JSON.stringify(landed.err)}`;
    }
    await this.decisions.handle(event.streamId, auditLogDecider, { kind: 'RecordAuditAnchorFailed', transactionSignature: anchor.transactionSignature, reason: failure }, ctx);
  }
}
