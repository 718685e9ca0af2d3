import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import {
  acceptanceDecider,
  agreementAccepted,
  agreementFinalized,
  domainVerified,
  memberChanged,
  streams,
  versionPublished,
  webhookDecider,
  webhookDeliveryDecider,
  webhookTest,
  type EventOf,
  type WebhookEventBody,
  type WebhookPayload,
} from '@svc/domain';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type WebhookDoc } from '@svc/projections';
import { CLOCK, type Clock } from '../infrastructure/clock';
import { reactionContext } from '../infrastructure/command-context';
import { Decisions } from '../shared/decisions.service';
import { EventLog } from '../shared/event-log.service';
import type { StoredDomainEvent } from '../shared/stored-events';
import { webhookDeliveryId, webhookEventId } from '../webhooks/webhook-signature';
import type { Processor } from './processor';

type Cause =
  | EventOf<'AcceptanceRelayed'>
  | EventOf<'AcceptanceFinalized'>
  | EventOf<'VersionPublished'>
  | EventOf<'DomainVerified'>
  | EventOf<'MemberChanged'>
  | EventOf<'WebhookTestRequested'>;

/**
 * Schedules webhook deliveries (spec §6.1; docs/architecture.md "Processors"): for each domain event that causes a
 * webhook event, one `WebhookDeliveryScheduled` per endpoint of the organization that was active and subscribed when
 * the event was recorded (created before it in the log) and still is. The event id and the delivery id are derived
 * from the domain event's id, so a replay schedules nothing twice; the payload is fixed here, so every attempt sends
 * the same body.
 */
@Injectable()
export class ScheduleWebhookDeliveriesWhenRecorded implements Processor<Cause> {
  readonly name = 'webhook-schedule';
  readonly eventTypes = ['AcceptanceRelayed', 'AcceptanceFinalized', 'VersionPublished', 'DomainVerified', 'MemberChanged', 'WebhookTestRequested'] as const satisfies readonly Cause['type'][];
  readonly concurrency = 16;

  constructor(
    private readonly decisions: Decisions,
    private readonly log: EventLog,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  key(event: StoredDomainEvent<Cause>): string {
    return event.streamId;
  }

  async handle(event: StoredDomainEvent<Cause>): Promise<void> {
    const webhook = await this.webhookOf(event);
    if (!webhook) return;
    const payload: WebhookPayload = {
      id: webhookEventId(event.id),
      type: webhook.body.type,
      createdAt: event.metadata.occurredAt,
      organizationId: webhook.organizationId,
      data: webhook.body.data,
    };
    const targets = event.type === 'WebhookTestRequested' ? [event.data.webhookId] : await this.subscribers(event, payload);
    const now = this.clock.now();
    for (const webhookId of targets) {
      const deliveryId = webhookDeliveryId(webhookId, payload.id);
      await this.decisions.handle(
        streams.webhookDelivery(deliveryId),
        webhookDeliveryDecider,
        { kind: 'ScheduleDelivery', delivery: { deliveryId, webhookId, organizationId: payload.organizationId, payload, dueAt: now.toISOString() } },
        reactionContext(event, 'service:webhooks', now),
        { expectNew: true },
      );
    }
  }

  /** The webhook event a domain event causes, with its organization; undefined when it causes none. */
  private async webhookOf(event: StoredDomainEvent<Cause>): Promise<{ organizationId: string; body: WebhookEventBody } | undefined> {
    switch (event.type) {
      case 'AcceptanceRelayed':
      case 'AcceptanceFinalized': {
        const { state } = await this.decisions.load(event.streamId, acceptanceDecider, { cached: true });
        const submitted = state.submitted;
        if (!submitted || submitted.acceptanceId !== event.data.acceptanceId) return undefined;
        const body =
          event.type === 'AcceptanceRelayed'
            ? agreementAccepted(submitted, event.data, `${this.config.publicBaseUrl}/receipts/${submitted.acceptanceId}`)
            : agreementFinalized(event.data);
        return { organizationId: submitted.organizationId, body };
      }
      case 'VersionPublished':
        return { organizationId: event.data.organizationId, body: versionPublished(event.data) };
      case 'DomainVerified':
        return { organizationId: event.data.organizationId, body: domainVerified(event.data) };
      case 'MemberChanged':
        return { organizationId: event.data.organizationId, body: memberChanged(event.data) };
      case 'WebhookTestRequested':
        return { organizationId: event.data.organizationId, body: webhookTest() };
    }
  }

  /**
   * Endpoints subscribed to the payload's type: listed from the read model once it holds everything up to the event,
   * each re-checked on its own stream (active, subscribed, not deleted). The read-model query names only its indexed
   * fields (organization, creation order), so it is one index lookup, and the listing's status is a hint filtered
   * here: most organizations have no endpoint, and this runs for every acceptance's outcome and finality.
   */
  private async subscribers(event: StoredDomainEvent<Cause>, payload: WebhookPayload): Promise<string[]> {
    await this.log.settled(event.position);
    const candidates = await this.readStore.collection<WebhookDoc>(COLLECTIONS.webhooks).find({ organizationId: payload.organizationId }, { sort: { createdAt: 1 } });
    const targets: string[] = [];
    for (const doc of candidates) {
      if (doc.deleted || doc.status !== 'active' || BigInt(doc.createdPosition) >= event.position || !doc.events.includes(payload.type as never)) continue;
      const { state } = await this.decisions.load(streams.webhook(doc.webhookId), webhookDecider);
      if (state.created && !state.deleted && state.status === 'active' && state.events.includes(payload.type as never)) targets.push(doc.webhookId);
    }
    return targets;
  }
}
