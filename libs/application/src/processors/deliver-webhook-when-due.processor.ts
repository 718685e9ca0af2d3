import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { streams, webhookDecider, webhookDeliveryDecider, type EventOf } from '@svc/domain';
import { CLOCK, type Clock } from '../infrastructure/clock';
import { reactionContext } from '../infrastructure/command-context';
import { Decisions } from '../shared/decisions.service';
import type { StoredDomainEvent } from '../shared/stored-events';
import { WebhookClient } from '../webhooks/webhook-client';
import { WebhookSecrets } from '../webhooks/webhook-secrets';
import { webhookSignature } from '../webhooks/webhook-signature';
import { faultPoint } from './fault-points';
import type { Processor } from './processor';

type Due = EventOf<'WebhookDeliveryScheduled'> | EventOf<'WebhookDeliveryAttempted'>;

/** Longest single sleep while waiting for a due time: the clock is read again after it (a test may move it). */
const MAX_SLEEP_MS = 1_000;

/**
 * Sends webhook deliveries when they are due (spec §6.1, §8; docs/architecture.md "Processors"). A scheduled
 * delivery, and each failed attempt that names a next one, is an event: the processor waits until its due time
 * (by the service clock), sends, and records the attempt (`WebhookDeliveryAttempted`), whose own event then
 * schedules the next. The checkpoint stays below the oldest pending delivery, so after a restart every pending
 * retry is read again and sent at its due time. At least once: a crash after sending and before recording sends
 * again, with the same event id (receivers de-duplicate on it). An attempt cut short by the service's own shutdown
 * (SIGTERM while the receiver had not answered yet) is not recorded either: it is no failure of the receiver, and it
 * would use up one of the ten attempts and put the next a whole retry delay away. A disabled or deleted endpoint receives nothing:
 * its pending deliveries are cancelled instead.
 */
@Injectable()
export class DeliverWebhookWhenDue implements Processor<Due> {
  readonly name = 'webhook-delivery';
  readonly eventTypes = ['WebhookDeliveryScheduled', 'WebhookDeliveryAttempted'] as const satisfies readonly Due['type'][];
  readonly concurrency = 100_000;
  private readonly logger = new Logger('Webhooks');
  private readonly sleepers = new Set<() => void>();
  private stopped = false;

  constructor(
    private readonly decisions: Decisions,
    private readonly client: WebhookClient,
    private readonly secrets: WebhookSecrets,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  key(event: StoredDomainEvent<Due>): string {
    return event.data.deliveryId;
  }

  stop(): void {
    this.stopped = true;
    for (const wake of this.sleepers) wake();
  }

  async handle(event: StoredDomainEvent<Due>): Promise<void> {
    if (event.type === 'WebhookDeliveryAttempted' && event.data.nextAttemptAt === null) return;
    const streamId = streams.webhookDelivery(event.data.deliveryId);
    const { state } = await this.decisions.load(streamId, webhookDeliveryDecider);
    const scheduled = state.scheduled;
    // Only the latest event of a pending delivery governs it (a replay of an older one does nothing).
    const latest = event.type === 'WebhookDeliveryScheduled' ? state.attempts === 0 : event.data.attempt === state.attempts;
    if (!scheduled || state.outcome !== null || state.dueAt === null || !latest) return;
    await this.until(Date.parse(state.dueAt));

    const endpoint = (await this.decisions.load(streams.webhook(scheduled.webhookId), webhookDecider)).state;
    const now = this.clock.now();
    const ctx = reactionContext(event, 'service:webhooks', now);
    if (!endpoint.created || endpoint.deleted || endpoint.status !== 'active' || !endpoint.sealedSecret) {
      const reason = endpoint.status === 'disabled' && !endpoint.deleted ? 'endpoint_disabled' : 'endpoint_deleted';
      await this.decisions.handle(streamId, webhookDeliveryDecider, { kind: 'CancelDelivery', reason, now: now.toISOString() }, ctx);
      return;
    }
    const body = JSON.stringify(scheduled.payload);
    const attempt = state.attempts + 1;
    let secret: string;
    try {
      secret = this.secrets.open(endpoint.sealedSecret, scheduled.webhookId);
    } catch {
      // Sealed under another key (WEBHOOK_SECRETS_KEY changed): nothing can be signed. A failed attempt says so in the
      // delivery log and keeps the retry schedule, so that rotating the endpoint's secret meanwhile lets it through.
      const error = "the endpoint's signing secret cannot be opened with this deployment's WEBHOOK_SECRETS_KEY: rotate the secret; nothing was sent";
      this.logger.warn(`delivery ${scheduled.deliveryId} attempt ${attempt}: ${error}`);
      await this.decisions.handle(
        streamId,
        webhookDeliveryDecider,
        { kind: 'RecordAttempt', attempt, attemptedAt: now.toISOString(), durationMs: 0, statusCode: null, error, retryScale: this.config.webhooks.retryScale },
        ctx,
      );
      return;
    }
    faultPoint('webhook:before-send');
    const answer = await this.client.post(endpoint.created.url, body, {
      'svc-event': scheduled.payload.type,
      'svc-event-id': scheduled.payload.id,
      'svc-delivery-id': scheduled.deliveryId,
      'svc-signature': webhookSignature(secret, Math.floor(now.getTime() / 1000), body),
      'user-agent': 'Svc-Webhooks/1.0',
    });
    faultPoint('webhook:after-send');
    // Cut short by this service's own shutdown: not the receiver's failure, so no attempt is recorded (the checkpoint
    // stays below the delivery, and it is sent again as the same attempt after the restart).
    if (answer.statusCode === null && (answer.interrupted || this.stopped)) {
      throw new Error(`delivery ${scheduled.deliveryId} attempt ${attempt} interrupted by the shutdown; sent again after the restart`);
    }
    if (answer.error) this.logger.debug(`delivery ${scheduled.deliveryId} attempt ${attempt}: ${answer.error}`);
    await this.decisions.handle(
      streamId,
      webhookDeliveryDecider,
      { kind: 'RecordAttempt', attempt, attemptedAt: now.toISOString(), durationMs: answer.durationMs, statusCode: answer.statusCode, error: answer.error, retryScale: this.config.webhooks.retryScale },
      ctx,
    );
  }

  /** Resolves once the service clock reaches `dueMs`; rejects when the processor stops. */
  private async until(dueMs: number): Promise<void> {
    for (;;) {
      if (this.stopped) throw new Error('webhook delivery stopped');
      const left = dueMs - this.clock.now().getTime();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.sleepers.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(left, MAX_SLEEP_MS));
        this.sleepers.add(wake);
      });
    }
  }
}
