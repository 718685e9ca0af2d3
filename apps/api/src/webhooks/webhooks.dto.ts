import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, ValidateIf } from 'class-validator';
import { SUBSCRIBABLE_WEBHOOK_EVENTS, type SubscribableWebhookEventType } from '@svc/domain';
import { B64URL, DisplayTextField, EnumField, PageSizeQuery, PatternField } from '@svc/http';

/** Longest webhook URL and description (spec §8). */
export const WEBHOOK_URL_MAX = 2048;
export const WEBHOOK_DESCRIPTION_MAX = 200;

/** Most entries of `events`, repeats included (four per subscribable type). */
export const WEBHOOK_EVENTS_MAX_ENTRIES = SUBSCRIBABLE_WEBHOOK_EVENTS.length * 4;

/** `events`: at least one of the nine subscribable types (spec §6.1); repeats are folded. */
const EventsField = (required: boolean) => (target: object, key: string) => {
  const doc: ApiPropertyOptions = {
    type: [String],
    enum: [...SUBSCRIBABLE_WEBHOOK_EVENTS],
    minItems: 1,
    maxItems: WEBHOOK_EVENTS_MAX_ENTRIES,
    description: 'Event types to receive (every §6.1 type but webhook.test); repeats are folded',
  };
  (required ? ApiProperty(doc) : ApiPropertyOptional(doc))(target, key);
  if (!required) ValidateIf((_, v) => v !== undefined)(target, key);
  IsArray({ message: 'events: must be an array of event types' })(target, key);
  ArrayMinSize(1, { message: 'events: at least one event type' })(target, key);
  ArrayMaxSize(WEBHOOK_EVENTS_MAX_ENTRIES, { message: `events: at most ${WEBHOOK_EVENTS_MAX_ENTRIES} entries, repeats included` })(target, key);
  IsIn(SUBSCRIBABLE_WEBHOOK_EVENTS, { each: true, message: `events: each must be one of ${SUBSCRIBABLE_WEBHOOK_EVENTS.join(', ')}` })(target, key);
};

/** `POST /v1/organizations/{orgId}/webhooks` (spec §4.10, §8): url and events required, no other keys. */
export class CreateWebhookRequest {
  // The scheme is case-insensitive (RFC 3986 §3.1): `HTTPS://…` is stored as `https://…`.
  @PatternField(/^[Hh][Tt][Tt][Pp][Ss]:\/\/\S+$/, 9, WEBHOOK_URL_MAX, `url: must be an HTTPS URL of at most ${WEBHOOK_URL_MAX} characters`, 'invalid_url', {
    description: 'HTTPS URL whose host resolves to public addresses only',
  })
  url!: string;

  @DisplayTextField(0, WEBHOOK_DESCRIPTION_MAX, { presence: 'nullable', description: 'A note to recognise the endpoint by' })
  description?: string | null;

  @EventsField(true)
  events!: SubscribableWebhookEventType[];
}

/** `PATCH /v1/organizations/{orgId}/webhooks/{webhookId}` (spec §4.10): both keys optional, no other keys. */
export class UpdateWebhookRequest {
  @EnumField(['active', 'disabled'], { presence: 'optional', description: 'A disabled endpoint receives nothing' })
  status?: 'active' | 'disabled';

  @EventsField(false)
  events?: SubscribableWebhookEventType[];
}

/** Query of `GET …/webhooks/{webhookId}/deliveries` (docs/api.md "Webhooks"): no other parameters. */
export class WebhookDeliveriesQuery {
  @PageSizeQuery()
  limit?: string;

  @PatternField(B64URL, 1, 160, 'must be 1 to 160 base64url characters: the nextCursor of the previous page', 'invalid_cursor', { presence: 'optional', description: 'nextCursor of the previous page, unchanged' })
  cursor?: string;
}
