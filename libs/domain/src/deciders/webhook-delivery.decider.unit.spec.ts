/** Webhook deliveries (spec §6.1, §8): scheduled once, every attempt recorded, retried on the schedule, at most 10 attempts. */
import type { EventOf, WebhookDeliveryScheduledData } from '../events';
import { A } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import { WEBHOOK_MAX_ATTEMPTS, webhookDeliveryDecider, type WebhookDeliveryCommand, type WebhookDeliveryEvent } from './webhook-delivery.decider';

const DELIVERY: WebhookDeliveryScheduledData = {
  deliveryId: '0d7c2f4e-5a6b-8c9d-8e0f-1a2b3c4d5e6f',
  webhookId: '6f0b4a5e-3c2d-4e1f-9a8b-7c6d5e4f3a2b',
  organizationId: A.orgId,
  payload: { id: `evt_${'ab'.repeat(16)}`, type: 'webhook.test', createdAt: '2025-03-15T10:00:00.000Z', organizationId: A.orgId, data: { message: 'hello' } },
  dueAt: '2025-03-15T10:00:00.000Z',
};
const scheduled: EventOf<'WebhookDeliveryScheduled'> = { type: 'WebhookDeliveryScheduled', data: DELIVERY };
const T0 = Date.parse('2025-03-15T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

const attempt = (n: number, statusCode: number | null, attemptedAt = at(0), retryScale = 1): WebhookDeliveryCommand => ({
  kind: 'RecordAttempt',
  attempt: n,
  attemptedAt,
  durationMs: 35,
  statusCode,
  error: statusCode === null ? 'timed out after 10000 ms' : null,
  retryScale,
});

/** The events of `n` failed attempts made on the schedule. */
function failures(n: number): WebhookDeliveryEvent[] {
  const events: WebhookDeliveryEvent[] = [scheduled];
  for (let i = 1; i <= n; i++) {
    const state = given(webhookDeliveryDecider, events).state;
    const outcome = given(webhookDeliveryDecider, events).when(attempt(i, 503, state.dueAt!));
    if (!('events' in outcome)) throw new Error('refused');
    events.push(...outcome.events);
  }
  return events;
}

describe('webhook delivery decider', () => {
  it('is scheduled once; scheduling again decides nothing', () => {
    expect(given(webhookDeliveryDecider).when({ kind: 'ScheduleDelivery', delivery: DELIVERY })).toEqual(decided(scheduled));
    expect(given(webhookDeliveryDecider, [scheduled]).when({ kind: 'ScheduleDelivery', delivery: DELIVERY })).toEqual(decided());
  });

  it('ends with a 2xx answer', () => {
    const outcome = given(webhookDeliveryDecider, [scheduled]).when(attempt(1, 204));
    expect(outcome).toEqual(
      decided({
        type: 'WebhookDeliveryAttempted',
        data: { deliveryId: DELIVERY.deliveryId, webhookId: DELIVERY.webhookId, organizationId: A.orgId, attempt: 1, attemptedAt: at(0), durationMs: 35, statusCode: 204, error: null, succeeded: true, nextAttemptAt: null },
      }),
    );
  });

  it('retries after 1 min, 5 min, 15 min, 1, 2, 4, 8, 12 and 24 h, and gives up after the tenth attempt', () => {
    const events = failures(WEBHOOK_MAX_ATTEMPTS);
    const attempts = events.filter((e): e is EventOf<'WebhookDeliveryAttempted'> => e.type === 'WebhookDeliveryAttempted').map((e) => e.data);
    expect(attempts).toHaveLength(10);
    // Each delay runs from the end of the failed attempt (its start plus its duration).
    const gaps = attempts.slice(0, 9).map((a) => (Date.parse(a.nextAttemptAt!) - Date.parse(a.attemptedAt) - a.durationMs) / 1000);
    expect(gaps).toEqual([60, 300, 900, 3600, 7200, 14400, 28800, 43200, 86400]);
    expect(attempts[9]).toMatchObject({ attempt: 10, succeeded: false, error: 'answered 503', nextAttemptAt: null });
    expect(given(webhookDeliveryDecider, events).state.outcome).toBe('failed');
    expect(given(webhookDeliveryDecider, events).when(attempt(11, 200))).toEqual(decided());
  });

  it('scales the delays by the configured factor', () => {
    const outcome = given(webhookDeliveryDecider, [scheduled]).when(attempt(1, null, at(0), 0.001));
    expect(outcome).toMatchObject({ events: [{ data: { succeeded: false, statusCode: null, error: 'timed out after 10000 ms', nextAttemptAt: at(0.095) } }] });
  });

  it('decides nothing for an attempt already recorded (a replay) or out of turn', () => {
    const events = failures(2);
    expect(given(webhookDeliveryDecider, events).when(attempt(2, 200))).toEqual(decided());
    expect(given(webhookDeliveryDecider, events).when(attempt(4, 200))).toEqual(decided());
  });

  it('is cancelled while pending; an ended delivery is not', () => {
    expect(given(webhookDeliveryDecider, failures(1)).when({ kind: 'CancelDelivery', reason: 'endpoint_disabled', now: at(10) })).toEqual(
      decided({ type: 'WebhookDeliveryCancelled', data: { deliveryId: DELIVERY.deliveryId, webhookId: DELIVERY.webhookId, organizationId: A.orgId, reason: 'endpoint_disabled', cancelledAt: at(10) } }),
    );
    const delivered = given(webhookDeliveryDecider, [scheduled]).when(attempt(1, 200));
    if (!('events' in delivered)) throw new Error('refused');
    expect(given(webhookDeliveryDecider, [scheduled, ...delivered.events]).when({ kind: 'CancelDelivery', reason: 'endpoint_deleted', now: at(10) })).toEqual(decided());
  });

  it.each<[string, WebhookDeliveryCommand]>([
    ['an attempt', attempt(1, 200)],
    ['a cancellation', { kind: 'CancelDelivery', reason: 'endpoint_deleted', now: at(0) }],
  ])('refuses %s of a delivery never scheduled with not_found', (_what, command) => {
    expect(given(webhookDeliveryDecider).when(command)).toEqual(refused('not_found'));
  });
});
