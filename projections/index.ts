import type { Projection } from '@svc/read-store';
import { acceptancesProjection } from './acceptances.projection';
import { batchesProjection } from './batches.projection';
import { apiKeysProjection } from './api-keys.projection';
import { auditLogProjection } from './audit-log.projection';
import { contentsProjection } from './contents.projection';
import { documentsProjection } from './documents.projection';
import { organizationsProjection } from './organizations.projection';
import { sessionsProjection } from './sessions.projection';
import { membershipsProjection } from './members.projection';
import { domainVerificationsProjection, shardsProjection } from './domains.projection';
import { statsProjection } from './stats.projection';
import { webhookDeliveriesProjection, webhooksProjection } from './webhooks.projection';

export * from './read-models';
export { defineProjection, toDomainEvent, type ProjectionHandlers, type StoredDomainEvent } from './define-projection';
export {
  acceptancesProjection,
  batchesProjection,
  apiKeysProjection,
  auditLogProjection,
  contentsProjection,
  documentsProjection,
  organizationsProjection,
  sessionsProjection,
  membershipsProjection,
  domainVerificationsProjection,
  shardsProjection,
  statsProjection,
  webhooksProjection,
  webhookDeliveriesProjection,
};

/** Every projection the service runs, one per read model. */
export const ALL_PROJECTIONS: readonly Projection[] = [
  organizationsProjection,
  documentsProjection,
  contentsProjection,
  acceptancesProjection,
  batchesProjection,
  sessionsProjection,
  apiKeysProjection,
  membershipsProjection,
  domainVerificationsProjection,
  shardsProjection,
  statsProjection,
  auditLogProjection,
  webhooksProjection,
  webhookDeliveriesProjection,
];
