import { Inject, Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { streams, type AcceptanceSubmittedData } from '@svc/domain';
import { LEDGER, type Ledger } from '@svc/ledger';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type AcceptanceDoc } from '@svc/projections';
import { commandContext, newEvent } from '../infrastructure/command-context';
import { INFRA_OPTIONS } from '../infrastructure/tokens';
import { EventLog } from '../shared/event-log.service';
import { AcceptanceRelay } from './acceptance-relay.service';

/** Seconds after which a submitted acceptance without an outcome is taken over by the process manager. */
const STALE_SUBMISSION_MS = 10_000;
const BATCH = 256;

/**
 * Process manager of acceptance relays (ARCHITECTURE §6), driven by the acceptances read model, which the
 * durable subscription keeps from the log:
 * - resumes relays interrupted by a crash: a submitted acceptance whose outcome is not recorded is looked up on
 *   the ledger by its recorded signature; landed → `AcceptanceRelayed`; not landed → the recorded transaction
 *   is sent again (same signature, so it can never land twice), or signed anew once its blockhash expired;
 * - records finality: confirmed acceptances whose transaction the ledger reports `finalized` get `AcceptanceFinalized`.
 * It never throws: a failed step is logged and retried on the next tick.
 */
@Injectable()
export class RelayAcceptanceProcessManager {
  private readonly logger = new Logger('RelayAcceptanceProcessManager');
  private running = false;

  constructor(
    private readonly log: EventLog,
    private readonly relay: AcceptanceRelay,
    @Inject(LEDGER) private readonly ledger: Ledger,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(INFRA_OPTIONS) private readonly options: { runProjections: boolean },
  ) {}

  @Interval(2_000)
  async tick(): Promise<void> {
    if (!this.options.runProjections || this.running) return;
    this.running = true;
    try {
      await this.resumeInterrupted();
      await this.recordFinality();
    } catch (err) {
      this.logger.warn(`tick failed, retrying later: ${(err as Error).message}`);
    } finally {
      this.running = false;
    }
  }

  private get acceptances() {
    return this.readStore.collection<AcceptanceDoc>(COLLECTIONS.acceptances);
  }

  /** Resumes submitted acceptances without a recorded outcome. */
  async resumeInterrupted(now = Date.now()): Promise<number> {
    const stale = await this.acceptances.find(
      { status: 'submitted', submittedAt: { $lt: new Date(now - STALE_SUBMISSION_MS).toISOString() } },
      { limit: BATCH },
    );
    for (const row of stale) {
      const ctx = commandContext('service:relay-process-manager');
      const streamId = streams.acceptance(row.versionAddress, row.signer);
      const stream = await this.log.load(streamId);
      const submitted = stream.events.find((e) => e.type === 'AcceptanceSubmitted');
      const last = stream.events[stream.events.length - 1];
      if (!submitted || submitted.type !== 'AcceptanceSubmitted' || (last.type !== 'AcceptanceSubmitted' && last.type !== 'AcceptanceResigned')) continue;
      const latest = last.type === 'AcceptanceResigned' ? last.data : submitted.data;
      const revision = stream.revision as bigint;
      try {
        const [status] = await this.ledger.getSignatureStatuses([latest.transactionSignature]);
        if (status && status.err === null) {
          await this.relay.recordLanded(row.acceptanceId, streamId, latest.transactionSignature, revision, ctx);
        } else {
          const data: AcceptanceSubmittedData = { ...submitted.data, ...latest };
          await this.relay.relay(data, latest, revision, ctx);
        }
        await this.completeChallenge(submitted.data.challengeId, row.acceptanceId, ctx);
        this.logger.log(`resumed the relay of acceptance ${row.acceptanceId}`);
      } catch (err) {
        this.logger.warn(`resuming acceptance ${row.acceptanceId} failed: ${(err as Error).message}`);
      }
    }
    return stale.length;
  }

  /** Marks the challenge of a resumed acceptance as used, as the submit handler would have. */
  private async completeChallenge(challengeId: string, acceptanceId: string, ctx: ReturnType<typeof commandContext>): Promise<void> {
    const challenge = await this.log.load(streams.challenge(challengeId));
    if (challenge.events.length === 0 || challenge.events.some((e) => e.type === 'AcceptanceChallengeCompleted')) return;
    await this.log.tryAppend(streams.challenge(challengeId), [newEvent('AcceptanceChallengeCompleted', { challengeId, acceptanceId }, ctx)], challenge.revision);
  }

  /** Records `finalized` for confirmed acceptances the ledger has finalized. */
  async recordFinality(): Promise<number> {
    const pending = await this.acceptances.find({ status: 'confirmed', commitment: 'confirmed' }, { limit: BATCH });
    if (pending.length === 0) return 0;
    const statuses = await this.ledger.getSignatureStatuses(pending.map((a) => a.transactionSignature));
    let recorded = 0;
    for (let i = 0; i < pending.length; i++) {
      const a = pending[i];
      const status = statuses[i];
      if (!status || status.confirmationStatus !== 'finalized') continue;
      const streamId = streams.acceptance(a.versionAddress, a.signer);
      const stream = await this.log.load(streamId);
      if (stream.events.some((e) => e.type === 'AcceptanceFinalized')) continue;
      const appended = await this.log.tryAppend(
        streamId,
        [newEvent('AcceptanceFinalized', { acceptanceId: a.acceptanceId, transactionSignature: a.transactionSignature, slot: Number(status.slot) }, commandContext('service:relay-process-manager'))],
        stream.revision,
      );
      if (appended) {
        recorded++;
        await this.log.settled(appended.position);
      }
    }
    return recorded;
  }
}
