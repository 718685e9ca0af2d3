/**
 * Stream `webhookdelivery-<deliveryId>`: one webhook event sent to one endpoint, with every attempt (spec §6.1, §8
 * "Webhook delivery"; docs/api.md "Webhooks"). The delivery id is derived from the endpoint and the event, so the
 * same event is scheduled once per endpoint however often the cause is replayed. A 2xx answer ends it; a failure
 * schedules the next attempt after 1 min, 5 min, 15 min, 1, 2, 4, 8, 12 and 24 h; the tenth failure ends it.
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { EventOf, WebhookDeliveryAttemptedData, WebhookDeliveryScheduledData } from '../events';

export type WebhookDeliveryEvent = EventOf<'WebhookDeliveryScheduled'> | EventOf<'WebhookDeliveryAttempted'> | EventOf<'WebhookDeliveryCancelled'>;

/** Seconds to wait after failed attempt n (index n-1) before attempt n+1 (spec §8). */
export const WEBHOOK_RETRY_DELAYS_SECONDS: readonly number[] = [60, 300, 900, 3_600, 7_200, 14_400, 28_800, 43_200, 86_400];
/** Attempts made at most (spec §8). */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_SECONDS.length + 1;

export interface WebhookDeliveryState {
  scheduled: WebhookDeliveryScheduledData | null;
  /** Attempts recorded. */
  attempts: number;
  /** When the next attempt is due; null when none is (not scheduled, or ended). */
  dueAt: string | null;
  outcome: 'delivered' | 'failed' | 'cancelled' | null;
}

export type WebhookDeliveryCommand =
  | { kind: 'ScheduleDelivery'; delivery: WebhookDeliveryScheduledData }
  | {
      kind: 'RecordAttempt';
      attempt: number;
      attemptedAt: string;
      durationMs: number;
      statusCode: number | null;
      error: string | null;
      /**
       * Multiplies the retry delays of spec §8 (1 in production; a test configuration may shorten them,
       * docs/api.md "Webhooks").
       */
      retryScale: number;
    }
  | { kind: 'CancelDelivery'; reason: 'endpoint_disabled' | 'endpoint_deleted'; now: string };

export const webhookDeliveryDecider: Decider<WebhookDeliveryCommand, WebhookDeliveryEvent, WebhookDeliveryState> = {
  eventTypes: ['WebhookDeliveryScheduled', 'WebhookDeliveryAttempted', 'WebhookDeliveryCancelled'],
  initialState: { scheduled: null, attempts: 0, dueAt: null, outcome: null },
  evolve(state, event) {
    switch (event.type) {
      case 'WebhookDeliveryScheduled':
        return { scheduled: event.data, attempts: 0, dueAt: event.data.dueAt, outcome: null };
      case 'WebhookDeliveryAttempted':
        return {
          ...state,
          attempts: event.data.attempt,
          dueAt: event.data.nextAttemptAt,
          outcome: event.data.succeeded ? 'delivered' : event.data.nextAttemptAt === null ? 'failed' : null,
        };
      case 'WebhookDeliveryCancelled':
        return { ...state, dueAt: null, outcome: 'cancelled' };
    }
  },
  /**
   * Scheduling again, recording an attempt already recorded (a replay after a restart) and cancelling an ended
   * delivery decide nothing.
   * @throws DomainError not_found (404) for an attempt or cancellation of a delivery never scheduled.
   */
  decide(command, state) {
    switch (command.kind) {
      case 'ScheduleDelivery':
        return state.scheduled ? [] : [{ type: 'WebhookDeliveryScheduled', data: command.delivery }];
      case 'RecordAttempt': {
        const scheduled = state.scheduled;
        if (!scheduled) throw new DomainError('not_found', 'webhook delivery not found');
        if (state.outcome !== null || command.attempt !== state.attempts + 1) return [];
        const succeeded = command.statusCode !== null && command.statusCode >= 200 && command.statusCode < 300;
        const delay = WEBHOOK_RETRY_DELAYS_SECONDS[command.attempt - 1];
        const nextAttemptAt =
          // Counted from the attempt's end (a receiver that timed out has had its 10 s): spec §8 "retries after 1 min, …".
          succeeded || delay === undefined ? null : new Date(Date.parse(command.attemptedAt) + command.durationMs + Math.round(delay * 1000 * command.retryScale)).toISOString();
        const data: WebhookDeliveryAttemptedData = {
          deliveryId: scheduled.deliveryId,
          webhookId: scheduled.webhookId,
          organizationId: scheduled.organizationId,
          attempt: command.attempt,
          attemptedAt: command.attemptedAt,
          durationMs: command.durationMs,
          statusCode: command.statusCode,
          error: succeeded ? null : (command.error ?? `answered ${command.statusCode}`),
          succeeded,
          nextAttemptAt,
        };
        return [{ type: 'WebhookDeliveryAttempted', data }];
      }
      case 'CancelDelivery': {
        const scheduled = state.scheduled;
        if (!scheduled) throw new DomainError('not_found', 'webhook delivery not found');
        if (state.outcome !== null) return [];
        return [
          {
            type: 'WebhookDeliveryCancelled',
            data: { deliveryId: scheduled.deliveryId, webhookId: scheduled.webhookId, organizationId: scheduled.organizationId, reason: command.reason, cancelledAt: command.now },
          },
        ];
      }
    }
  },
};
