/**
 * Which recorded events are audit log entries, and what each says (docs/api.md "Audit log"): every dashboard action
 * and security-relevant change of an organization. Secrets never appear (API keys are named by id and prefix).
 */
import type { EventOf } from '@svc/domain';
import type { StoredDomainEvent } from '../../shared/stored-events';

/** The event types that make audit entries. */
export const AUDITED_EVENT_TYPES = [
  'OrganizationSynced',
  'OrganizationRefreshed',
  'OrganizationSettingsChanged',
  'ApiKeyCreated',
  'ApiKeyRevoked',
  'MemberChanged',
  'MemberLabelSet',
  'DomainVerificationStarted',
  'DomainVerified',
  'DomainVerificationRevoked',
  'ShardSynced',
  'DocumentSynced',
  'VersionPublished',
  'DraftCreated',
  'DraftPrepared',
  'DraftAbandoned',
  'DashboardSessionStarted',
  'DashboardSessionReauthenticated',
  'WebhookEndpointCreated',
  'WebhookEndpointUpdated',
  'WebhookSecretRotated',
  'WebhookEndpointDeleted',
  'WebhookTestRequested',
] as const;

export type AuditedEvent = EventOf<(typeof AUDITED_EVENT_TYPES)[number]>;

/** Where an entry goes: one organization, or every organization a wallet belongs to (sign-ins). */
export type AuditTarget = { organizationId: string } | { memberOf: string } | { draftId: string } | { sessionId: string };

/** What an event records, before it is placed in an organization's chain. */
export interface AuditAction {
  target: AuditTarget;
  action: string;
  subject: string | null;
  details: Record<string, unknown>;
}

/** The audit action of a recorded event (pure). */
export function auditActionOf(event: StoredDomainEvent<AuditedEvent>): AuditAction {
  switch (event.type) {
    case 'OrganizationSynced': {
      const d = event.data;
      return { target: { organizationId: d.organizationId }, action: 'organization.synced', subject: d.address, details: { name: d.name, authority: d.authority, creationSignature: d.creationSignature } };
    }
    case 'OrganizationRefreshed':
      return { target: { organizationId: event.data.organizationId }, action: 'organization.refreshed', subject: event.data.address, details: { transactionCount: event.data.transactionCount } };
    case 'OrganizationSettingsChanged':
      return { target: { organizationId: event.data.organizationId }, action: 'settings.changed', subject: null, details: { changes: event.data.changes } };
    case 'ApiKeyCreated': {
      const d = event.data;
      return { target: { organizationId: d.organizationId }, action: 'api_key.created', subject: d.keyId, details: { name: d.name, scopes: d.scopes, prefix: d.keyPrefix, expiresAt: d.expiresAt } };
    }
    case 'ApiKeyRevoked':
      return { target: { organizationId: event.data.organizationId }, action: 'api_key.revoked', subject: event.data.keyId, details: {} };
    case 'MemberChanged': {
      const d = event.data;
      return { target: { organizationId: d.organizationId }, action: `member.${d.change}`, subject: d.member, details: { roles: d.roles, active: d.active, transactionSignature: d.transactionSignature } };
    }
    case 'MemberLabelSet':
      return { target: { organizationId: event.data.organizationId }, action: 'member.label_set', subject: event.data.member, details: { label: event.data.label } };
    case 'DomainVerificationStarted':
      return { target: { organizationId: event.data.organizationId }, action: 'domain.verification_started', subject: event.data.domain, details: { verificationId: event.data.verificationId } };
    case 'DomainVerified':
      return { target: { organizationId: event.data.organizationId }, action: 'domain.verified', subject: event.data.domain, details: { verificationId: event.data.verificationId, expiresAt: event.data.expiresAt } };
    case 'DomainVerificationRevoked':
      return { target: { organizationId: event.data.organizationId }, action: 'domain.verification_revoked', subject: event.data.domain, details: { verificationId: event.data.verificationId } };
    case 'ShardSynced':
      return { target: { organizationId: event.data.organizationId }, action: 'shard.synced', subject: event.data.shard, details: { operator: event.data.operator, balanceLamports: event.data.balanceLamports } };
    case 'DocumentSynced':
      return { target: { organizationId: event.data.organizationId }, action: 'document.synced', subject: event.data.address, details: { slug: event.data.slug, title: event.data.title } };
    case 'VersionPublished': {
      const d = event.data;
      return {
        target: { organizationId: d.organizationId },
        action: 'version.published',
        subject: d.versionAddress,
        details: { document: d.document, number: d.number, label: d.label, contentHash: d.contentHash, transactionSignature: d.transactionSignature, publisher: d.publisher },
      };
    }
    case 'DraftCreated':
      return { target: { organizationId: event.data.organizationId }, action: 'draft.created', subject: event.data.draftId, details: { documentId: event.data.documentId, title: event.data.title, versionLabel: event.data.versionLabel } };
    case 'DraftPrepared':
      return { target: { draftId: event.data.draftId }, action: 'draft.prepared', subject: event.data.draftId, details: { number: event.data.number, fingerprint: event.data.fingerprint } };
    case 'DraftAbandoned':
      return { target: { draftId: event.data.draftId }, action: 'draft.abandoned', subject: event.data.draftId, details: {} };
    case 'DashboardSessionStarted':
      return { target: { memberOf: event.data.address }, action: 'session.signed_in', subject: event.data.address, details: { sessionId: event.data.sessionId } };
    case 'DashboardSessionReauthenticated':
      return { target: { sessionId: event.data.sessionId }, action: 'session.reauthenticated', subject: null, details: { sessionId: event.data.sessionId } };
    case 'WebhookEndpointCreated': {
      const d = event.data;
      return { target: { organizationId: d.organizationId }, action: 'webhook.created', subject: d.webhookId, details: { url: d.url, events: d.events, secretPrefix: d.secretPrefix } };
    }
    case 'WebhookEndpointUpdated':
      return { target: { organizationId: event.data.organizationId }, action: 'webhook.updated', subject: event.data.webhookId, details: { changes: event.data.changes } };
    case 'WebhookSecretRotated':
      return { target: { organizationId: event.data.organizationId }, action: 'webhook.secret_rotated', subject: event.data.webhookId, details: { secretPrefix: event.data.secretPrefix } };
    case 'WebhookEndpointDeleted':
      return { target: { organizationId: event.data.organizationId }, action: 'webhook.deleted', subject: event.data.webhookId, details: {} };
    case 'WebhookTestRequested':
      return { target: { organizationId: event.data.organizationId }, action: 'webhook.test_requested', subject: event.data.webhookId, details: {} };
  }
}
