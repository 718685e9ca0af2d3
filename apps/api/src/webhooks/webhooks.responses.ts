import { ApiProperty } from '@nestjs/swagger';
import { SUBSCRIBABLE_WEBHOOK_EVENTS } from '@svc/domain';

/** A webhook endpoint as the dashboard shows it (docs/api.md "Webhooks"); never its secret. */
export class WebhookResponse {
  @ApiProperty({ type: String, format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, format: 'uri', maxLength: 2048 }) url!: string;
  @ApiProperty({ type: String, maxLength: 200, nullable: true }) description!: string | null;
  @ApiProperty({ type: [String], enum: [...SUBSCRIBABLE_WEBHOOK_EVENTS] }) events!: string[];
  @ApiProperty({ enum: ['active', 'disabled'] }) status!: string;
  @ApiProperty({ type: String, description: 'The first 10 characters of the signing secret (whsec_ and four more)' }) secretPrefix!: string;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, description: 'Wallet that added it' }) createdBy!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updatedAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) secretRotatedAt!: string | null;
}

export class WebhookListResponse {
  @ApiProperty({ type: [WebhookResponse] }) webhooks!: WebhookResponse[];
}

export class WebhookOneResponse {
  @ApiProperty({ type: WebhookResponse }) webhook!: WebhookResponse;
}

export class WebhookWithSecretResponse extends WebhookOneResponse {
  @ApiProperty({ type: String, pattern: '^whsec_[A-Za-z0-9_-]{43}$', description: 'The signing secret, shown with this answer only (an idempotent replay of the same request answers it again)' }) secret!: string;
}

/** Answer of `DELETE …/webhooks/{webhookId}` (also for an endpoint already deleted). */
export class WebhookDeletedResponse {
  @ApiProperty({ type: String, format: 'uuid' }) id!: string;
  @ApiProperty({ type: Boolean, enum: [true] }) deleted!: true;
}

export class WebhookTestResponse {
  @ApiProperty({ type: String, pattern: '^evt_[0-9a-f]{32}$', description: 'Id of the webhook.test event (header svc-event-id)' }) eventId!: string;
  @ApiProperty({ type: String, format: 'uuid', description: 'Its delivery (header svc-delivery-id), in the delivery log' }) deliveryId!: string;
}

export class WebhookAttemptResponse {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 10 }) attempt!: number;
  @ApiProperty({ type: String, format: 'date-time' }) attemptedAt!: string;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Milliseconds until the status line or the failure' }) durationMs!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'HTTP status answered; null when none came' }) statusCode!: number | null;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
  @ApiProperty({ type: Boolean }) succeeded!: boolean;
}

export class WebhookDeliveryResponse {
  @ApiProperty({ type: String, format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, pattern: '^evt_[0-9a-f]{32}$' }) eventId!: string;
  @ApiProperty({ type: String }) eventType!: string;
  @ApiProperty({ enum: ['pending', 'delivered', 'failed', 'cancelled'] }) status!: string;
  @ApiProperty({ type: String, format: 'date-time' }) scheduledAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) nextAttemptAt!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'endpoint_disabled or endpoint_deleted when the delivery was dropped' }) cancelReason!: string | null;
  @ApiProperty({ type: [WebhookAttemptResponse] }) attempts!: WebhookAttemptResponse[];
}

export class WebhookDeliveryListResponse {
  @ApiProperty({ type: [WebhookDeliveryResponse], description: 'Newest first (by the time the delivery was scheduled), `limit` at most' }) deliveries!: WebhookDeliveryResponse[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next (older) page; null on the last' }) nextCursor!: string | null;
}
