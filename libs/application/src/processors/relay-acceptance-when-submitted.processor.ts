import { Inject, Injectable, Logger } from '@nestjs/common';
import { acceptanceDecider, type AcceptanceEvent, type AcceptanceState, type EventOf, type RelayTransaction } from '@svc/domain';
import { landingAgainstWindow, lastValidLandingTime, validityWindowOf } from '@svc/evidence';
import { LEDGER, toSignature, type Ledger } from '@svc/ledger';
import { CLOCK, type Clock } from '../infrastructure/clock';
import { AcceptanceRelay } from '../shared/acceptance-relay.service';
import { reactionContext, type CommandContext } from '../infrastructure/command-context';
import { Decisions, type Decided } from '../shared/decisions.service';
import { RelayOutcomes } from '../shared/relay-outcomes';
import type { StoredDomainEvent } from '../shared/stored-events';
import { faultPoint } from './fault-points';
import { sendRecordedTransaction, type SendOutcome } from './send-recorded-transaction';
import type { Processor } from './processor';

type Submitted = EventOf<'AcceptanceSubmitted'>;

/** Re-signings of one acceptance before the relay is recorded as failed (each follows an expired blockhash). */
const MAX_RESIGNS = 3;

/**
 * Relays a submitted acceptance to the ledger (docs/architecture.md "Relay"). The submit handler recorded the
 * signed transaction (`AcceptanceSubmitted`) before anything was sent; this processor sends it and records the
 * outcome, so a crash between any two steps is resumed from the log:
 * - sent and landed, outcome not recorded: sending the same transaction again answers `AlreadyProcessed`, or its
 *   status is found on the ledger → `AcceptanceRelayed`;
 * - blockhash expired unlanded (checked on the ledger first, so it can never land twice) → `AcceptanceResigned`,
 *   then the new transaction is sent;
 * - refused by the ledger (unfunded fee payer, forged signature…) → `AcceptanceRelayFailed` (the submit answers
 *   502 relay_failed, and the signer may try again);
 * - ledger unreachable → the handler rejects and the runner retries with backoff.
 *
 * An acceptance is recorded as relayed only when its transaction landed within the message's validity window
 * (`landingAgainstWindow`, the verifier's own rule): one that lands later (after an outage or a long stop of the
 * service) is recorded as failed, since its receipt could never verify, and a transaction whose window has closed is
 * not re-signed. The signer can then accept again with a new challenge.
 */
@Injectable()
export class RelayAcceptanceWhenSubmitted implements Processor<Submitted> {
  readonly name = 'relay-acceptance';
  readonly eventTypes = ['AcceptanceSubmitted'] as const satisfies readonly Submitted['type'][];
  readonly concurrency = 256;
  private readonly logger = new Logger('RelayAcceptanceWhenSubmitted');

  constructor(
    private readonly decisions: Decisions,
    private readonly relay: AcceptanceRelay,
    private readonly outcomes: RelayOutcomes,
    @Inject(LEDGER) private readonly ledger: Ledger,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  key(event: StoredDomainEvent<Submitted>): string {
    return event.streamId;
  }

  async handle(event: StoredDomainEvent<Submitted>): Promise<void> {
    const { acceptanceId } = event.data;
    const ctx = reactionContext(event, 'service:relay');
    const { state } = await this.decisions.load(event.streamId, acceptanceDecider, { cached: true });
    if (!waiting(state, acceptanceId)) return;
    let transaction = state.transaction!;
    for (let resigns = 0; ; resigns++) {
      const sent = await this.send(transaction);
      if (sent === 'landed') return this.recordLanded(event, transaction, ctx);
      if (sent !== 'expired') return this.recordFailed(event, transaction, sent, ctx);
      if (resigns >= MAX_RESIGNS) return this.recordFailed(event, transaction, { reason: 'the blockhash kept expiring before the transaction landed', logs: [] }, ctx);
      const window = validityWindowOf(event.data.message);
      if (this.clock.now().getTime() / 1000 > lastValidLandingTime(window)) {
        const reason = `the message's validity window (${window.issuedAt} .. ${window.expiresAt}, give or take 120 s) closed before the transaction landed; accept again with a new challenge`;
        return this.recordFailed(event, transaction, { reason, logs: [] }, ctx);
      }
      const fresh = await this.relay.resign(event.data);
      const decided = await this.decisions.handle(
        event.streamId,
        acceptanceDecider,
        { kind: 'ResignAcceptance', resigned: { acceptanceId, ...fresh, replaces: transaction.transactionSignature } },
        ctx,
      );
      if (decided.events.length === 0) return; // an outcome was recorded meanwhile
      transaction = fresh;
    }
  }

  /** Sends the recorded transaction. `expired`: its blockhash expired and the ledger has no trace of it. */
  private send(transaction: RelayTransaction): Promise<SendOutcome> {
    return sendRecordedTransaction(this.ledger, transaction, { before: () => faultPoint('relay:before-send'), after: () => faultPoint('relay:after-send') });
  }

  private async recordLanded(event: StoredDomainEvent<Submitted>, transaction: RelayTransaction, ctx: CommandContext): Promise<void> {
    const landed = await this.ledger.getTransaction(toSignature(transaction.transactionSignature));
    if (!landed) throw new Error(`the ledger confirmed ${transaction.transactionSignature} but cannot return it yet`);
    if (landed.err !== null) {
      return this.recordFailed(event, transaction, { reason: `the acceptance transaction failed on the ledger: ${JSON.stringify(landed.err)}`, logs: [] }, ctx);
    }
    const window = validityWindowOf(event.data.message);
    const landing = landingAgainstWindow(window, landed.blockTime);
    if (landing === 'before' || landing === 'after') {
      const at = new Date(landed.blockTime! * 1000).toISOString();
      const reason = `the transaction landed at ${at}, outside the message's validity window (${window.issuedAt} .. ${window.expiresAt}, give or take 120 s), so its receipt could not verify; accept again with a new challenge`;
      return this.recordFailed(event, transaction, { reason, logs: [] }, ctx);
    }
    const decided = await this.decisions.handle(
      event.streamId,
      acceptanceDecider,
      {
        kind: 'RecordRelayed',
        relayed: {
          acceptanceId: event.data.acceptanceId,
          transactionSignature: transaction.transactionSignature,
          slot: Number(landed.slot),
          blockTime: landed.blockTime,
          feeLamports: Number(landed.fee),
          commitment: landed.confirmationStatus === 'finalized' ? 'finalized' : 'confirmed',
          batch: null,
        },
      },
      ctx,
    );
    this.handOver(decided);
  }

  /** Gives a submit request of this process the outcome just recorded (no trip through the log). */
  private handOver(decided: Decided<AcceptanceEvent, AcceptanceState>): void {
    const [outcome] = decided.events;
    if (!decided.appended || !outcome) return;
    if (outcome.type === 'AcceptanceRelayed' || outcome.type === 'AcceptanceRelayFailed') this.outcomes.recorded({ ...outcome, position: decided.appended.position });
  }

  private async recordFailed(
    event: StoredDomainEvent<Submitted>,
    transaction: RelayTransaction,
    failure: { reason: string; logs: string[] },
    ctx: CommandContext,
  ): Promise<void> {
    this.logger.warn(`relay of ${event.data.acceptanceId} refused: ${failure.reason}`);
    const decided = await this.decisions.handle(
      event.streamId,
      acceptanceDecider,
      { kind: 'RecordRelayFailed', failed: { acceptanceId: event.data.acceptanceId, transactionSignature: transaction.transactionSignature, ...failure } },
      ctx,
    );
    this.handOver(decided);
  }
}

function waiting(state: AcceptanceState, acceptanceId: string): boolean {
  return state.status === 'submitted' && state.submitted?.acceptanceId === acceptanceId && state.transaction !== null;
}
