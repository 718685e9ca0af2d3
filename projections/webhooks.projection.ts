import type { ReadStore } from '@svc/read-store';
import { COLLECTIONS, type WebhookAttemptView, type WebhookDeliveryDoc, type WebhookDoc } from './read-models';
import { defineProjection } from './define-projection';

const webhooks = (store: ReadStore) => store.collection<WebhookDoc>(COLLECTIONS.webhooks);
const deliveries = (store: ReadStore) => store.collection<WebhookDeliveryDoc>(COLLECTIONS.webhookDeliveries);

/**
 * Webhook endpoints per organization (spec §4.10): listed on the dashboard, and the candidates the delivery
 * scheduler re-checks on their streams. The sealed secret stays in the endpoint's stream.
 */
export const webhooksProjection = defineProjection({
  name: 'webhooks',
  version: 1,
  indexes: { [COLLECTIONS.webhooks]: [{ fields: { organizationId: 1, createdAt: -1 } }] },
  handlers: {
    WebhookEndpointCreated: async ({ data: d, position }, store) => {
      await webhooks(store).replaceOne({
        _id: d.webhookId,
        webhookId: d.webhookId,
        organizationId: d.organizationId,
        url: d.url,
        description: d.description,
        events: d.events,
        status: 'active',
        secretPrefix: d.secretPrefix,
        createdAt: d.createdAt,
        createdBy: d.createdBy,
        createdPosition: String(position),
        updatedAt: null,
        secretRotatedAt: null,
        deleted: false,
      });
    },
    WebhookEndpointUpdated: async ({ data: d }, store) => {
      await webhooks(store).updateOne({ _id: d.webhookId }, { $set: { status: d.status, events: d.events, updatedAt: d.updatedAt } });
    },
    WebhookSecretRotated: async ({ data: d }, store) => {
      await webhooks(store).updateOne({ _id: d.webhookId }, { $set: { secretPrefix: d.secretPrefix, secretRotatedAt: d.rotatedAt } });
    },
    WebhookEndpointDeleted: async ({ data: d }, store) => {
      await webhooks(store).updateOne({ _id: d.webhookId }, { $set: { deleted: true, status: 'disabled', updatedAt: d.deletedAt } });
    },
  },
});

/**
 * The delivery log of each endpoint (spec §4.10 `GET …/deliveries`): every attempt with its status, duration and
 * error. An attempt replaces the one with the same number, so a replay changes nothing.
 */
export const webhookDeliveriesProjection = defineProjection({
  name: 'webhook-deliveries',
  version: 2,
  retiredCollections: ['webhook_deliveries_v1'],
  indexes: { [COLLECTIONS.webhookDeliveries]: [{ fields: { webhookId: 1, seq: -1 } }] },
  handlers: {
    WebhookDeliveryScheduled: async ({ data: d, position }, store) => {
      if (await deliveries(store).findOne({ _id: d.deliveryId })) return;
      await deliveries(store).replaceOne({
        _id: d.deliveryId,
        deliveryId: d.deliveryId,
        seq: Number(position),
        webhookId: d.webhookId,
        organizationId: d.organizationId,
        eventId: d.payload.id,
        eventType: d.payload.type,
        scheduledAt: d.dueAt,
        status: 'pending',
        nextAttemptAt: d.dueAt,
        attempts: [],
        cancelReason: null,
      });
    },
    WebhookDeliveryAttempted: async ({ data: d }, store) => {
      const doc = await deliveries(store).findOne({ _id: d.deliveryId });
      if (!doc) return;
      const attempt: WebhookAttemptView = { attempt: d.attempt, attemptedAt: d.attemptedAt, durationMs: d.durationMs, statusCode: d.statusCode, error: d.error, succeeded: d.succeeded };
      const attempts = [...doc.attempts.filter((a) => a.attempt !== d.attempt), attempt].sort((a, b) => a.attempt - b.attempt);
      const status = d.succeeded ? 'delivered' : d.nextAttemptAt === null ? 'failed' : 'pending';
      await deliveries(store).updateOne({ _id: d.deliveryId }, { $set: { attempts, status, nextAttemptAt: d.nextAttemptAt } });
    },
    WebhookDeliveryCancelled: async ({ data: d }, store) => {
      await deliveries(store).updateOne({ _id: d.deliveryId }, { $set: { status: 'cancelled', nextAttemptAt: null, cancelReason: d.reason } });
    },
  },
});
