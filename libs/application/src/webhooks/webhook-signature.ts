import { createHash, createHmac } from 'node:crypto';

/**
 * The `svc-signature` header of spec §6.1: `t=<unix seconds>,v1=<hex HMAC-SHA256 over "<t>.<raw body>">`, keyed
 * with the whole secret text (`whsec_…`) as UTF-8 bytes.
 */
export function webhookSignature(secret: string, unixSeconds: number, rawBody: string): string {
  const v1 = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${unixSeconds}.${rawBody}`, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The webhook event id of a domain event: `evt_` + 32 hex digits derived from its id, the same on every replay. */
export function webhookEventId(domainEventId: string): string {
  return `evt_${digest(`svc-webhook-event:${domainEventId}`).slice(0, 32)}`;
}

/** The delivery id of an event to an endpoint: a UUID (version 8) derived from both, so it is scheduled once. */
export function webhookDeliveryId(webhookId: string, eventId: string): string {
  const h = digest(`svc-webhook-delivery:${webhookId}:${eventId}`);
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
