import { Inject, Injectable } from '@nestjs/common';
import { auditLogDecider, type EventOf } from '@svc/domain';
import { isLedgerError, LEDGER, LedgerErrorCode, toSignature, type Ledger } from '@svc/ledger';
import { reactionContext } from '../../infrastructure/command-context';
import { Decisions } from '../../shared/decisions.service';
import type { StoredDomainEvent } from '../../shared/stored-events';
import type { Processor } from '../processor';

type Requested = EventOf<'AuditAnchorRequested'>;

/**
 * Sends a recorded audit anchor to the ledger and records the outcome (`AuditHeadAnchored` or `AuditAnchorFailed`),
 * the same crash-safe order as the acceptance relay: the transaction was recorded signed before this runs, so a
 * resend after a crash lands at most once (the ledger answers `AlreadyProcessed`, or its status is found). An anchor
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
    const signature = toSignature(anchor.transactionSignature);
    let failure: string | null = null;
    try {
      await this.ledger.sendTransaction(Buffer.from(anchor.transactionWire, 'base64'), { commitment: 'confirmed' });
    } catch (err) {
      if (!isLedgerError(err) || err.code === LedgerErrorCode.Unavailable || err.code === LedgerErrorCode.Timeout) throw err;
      if (err.code === LedgerErrorCode.BlockhashNotFound) {
        const [status] = await this.ledger.getSignatureStatuses([signature]);
        if (!status) failure = 'the blockhash expired before the anchor landed';
      } else if (err.code !== LedgerErrorCode.AlreadyProcessed) {
        failure = `${err.code}: ${err.message}`;
      }
    }
    if (failure === null) {
      const landed = await this.ledger.getTransaction(signature);
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
