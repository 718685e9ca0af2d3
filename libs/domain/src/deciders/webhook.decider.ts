/**
 * Stream `webhook-<webhookId>`: an organization's webhook endpoint (spec §4.10, §6.1; docs/api.md "Webhooks").
 * Owners and admins create, change, delete, rotate and test endpoints; creating and rotating need a fresh wallet
 * signature (spec §5 rule 3). The signing secret is held sealed (never in clear): the command handler seals it.
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { EventOf, SubscribableWebhookEventType, WebhookEndpointCreatedData, WebhookEndpointUpdatedData } from '../events';
import { requireRole, type OrganizationFacts } from './ledger-facts';
import { MANAGERS } from './organization.decider';

export type WebhookEvent =
  | EventOf<'WebhookEndpointCreated'>
  | EventOf<'WebhookEndpointUpdated'>
  | EventOf<'WebhookSecretRotated'>
  | EventOf<'WebhookEndpointDeleted'>
  | EventOf<'WebhookTestRequested'>;

export interface WebhookState {
  created: WebhookEndpointCreatedData | null;
  status: 'active' | 'disabled';
  events: SubscribableWebhookEventType[];
  sealedSecret: string | null;
  secretPrefix: string | null;
  deleted: boolean;
}

interface Caller {
  organization: OrganizationFacts;
  wallet: string;
  now: string;
}

export type WebhookCommand =
  | (Caller & {
      kind: 'CreateWebhook';
      endpoint: WebhookEndpointCreatedData;
      /** Whether the wallet signed within the fresh-signature window (spec §5 rule 3). */
      signatureFresh: boolean;
      /**
       * The organization's endpoints that are not deleted, and how many it may keep (`WEBHOOKS_PER_ORGANIZATION`).
       * Counted from the read model: a hint, so that requests racing each other may pass the limit by the few in
       * flight (as the draft quotas, docs/api.md "Quotas").
       */
      endpoints: { count: number; limit: number };
    })
  | (Caller & { kind: 'UpdateWebhook'; status?: 'active' | 'disabled'; events?: SubscribableWebhookEventType[] })
  | (Caller & { kind: 'RotateWebhookSecret'; sealedSecret: string; secretPrefix: string; signatureFresh: boolean })
  | (Caller & { kind: 'DeleteWebhook' })
  | (Caller & { kind: 'RequestWebhookTest' });

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** @throws DomainError not_found (404) when the endpoint does not exist, was deleted or is another organization's. */
function existing(state: WebhookState, organization: OrganizationFacts): WebhookEndpointCreatedData {
  if (!state.created || state.deleted || state.created.organizationId !== organization.organizationId) throw new DomainError('not_found', 'webhook endpoint not found');
  return state.created;
}

export const webhookDecider: Decider<WebhookCommand, WebhookEvent, WebhookState> = {
  eventTypes: ['WebhookEndpointCreated', 'WebhookEndpointUpdated', 'WebhookSecretRotated', 'WebhookEndpointDeleted', 'WebhookTestRequested'],
  initialState: { created: null, status: 'active', events: [], sealedSecret: null, secretPrefix: null, deleted: false },
  evolve(state, event) {
    switch (event.type) {
      case 'WebhookEndpointCreated':
        return { created: event.data, status: 'active', events: event.data.events, sealedSecret: event.data.sealedSecret, secretPrefix: event.data.secretPrefix, deleted: false };
      case 'WebhookEndpointUpdated':
        return { ...state, status: event.data.status, events: event.data.events };
      case 'WebhookSecretRotated':
        return { ...state, sealedSecret: event.data.sealedSecret, secretPrefix: event.data.secretPrefix };
      case 'WebhookEndpointDeleted':
        return { ...state, deleted: true };
      case 'WebhookTestRequested':
        return state;
    }
  },
  /**
   * An update that changes nothing and a second delete decide nothing.
   * @throws DomainError not_found (404: not a member, or no such endpoint in the organization), forbidden (403:
   *   neither owner nor admin), reauthentication_required (403: creating or rotating without a fresh signature),
   *   chain_state (409: a test of a disabled endpoint, which receives nothing; a new endpoint beyond the
   *   organization's limit). A creation under the id of an endpoint recorded already (the retry of a request that
   *   recorded it and failed before answering) decides nothing, or not_found once the endpoint is deleted.
   */
  decide(command, state) {
    requireRole(command.organization, command.wallet, MANAGERS);
    const by = command.wallet;
    switch (command.kind) {
      case 'CreateWebhook':
        if (!command.signatureFresh) throw new DomainError('reauthentication_required', 'adding a webhook endpoint needs a fresh wallet signature: re-authenticate first');
        // The id is named by the request's Idempotency-Key run: an endpoint under it was recorded by an earlier run of
        // this request that failed before it answered. Nothing more to record; the retry answers it, as long as it is
        // still the organization's and not deleted.
        if (state.created) {
          existing(state, command.organization);
          return [];
        }
        if (command.endpoints.count >= command.endpoints.limit) {
          throw new DomainError('chain_state', `webhook endpoints: at most ${command.endpoints.limit} per organization (WEBHOOKS_PER_ORGANIZATION); delete one first`);
        }
        return [{ type: 'WebhookEndpointCreated', data: command.endpoint }];
      case 'UpdateWebhook': {
        const endpoint = existing(state, command.organization);
        const changes: WebhookEndpointUpdatedData['changes'] = {};
        if (command.status !== undefined && command.status !== state.status) changes.status = command.status;
        if (command.events !== undefined && !sameSet(command.events, state.events)) changes.events = command.events;
        if (Object.keys(changes).length === 0) return [];
        const data: WebhookEndpointUpdatedData = {
          webhookId: endpoint.webhookId,
          organizationId: endpoint.organizationId,
          changes,
          status: changes.status ?? state.status,
          events: changes.events ?? state.events,
          updatedAt: command.now,
          updatedBy: by,
        };
        return [{ type: 'WebhookEndpointUpdated', data }];
      }
      case 'RotateWebhookSecret': {
        const endpoint = existing(state, command.organization);
        if (!command.signatureFresh) throw new DomainError('reauthentication_required', 'rotating a webhook secret needs a fresh wallet signature: re-authenticate first');
        return [
          {
            type: 'WebhookSecretRotated',
            data: { webhookId: endpoint.webhookId, organizationId: endpoint.organizationId, sealedSecret: command.sealedSecret, secretPrefix: command.secretPrefix, rotatedAt: command.now, rotatedBy: by },
          },
        ];
      }
      case 'DeleteWebhook': {
        if (state.deleted && state.created?.organizationId === command.organization.organizationId) return [];
        const endpoint = existing(state, command.organization);
        return [{ type: 'WebhookEndpointDeleted', data: { webhookId: endpoint.webhookId, organizationId: endpoint.organizationId, deletedAt: command.now, deletedBy: by } }];
      }
      case 'RequestWebhookTest': {
        const endpoint = existing(state, command.organization);
        if (state.status !== 'active') throw new DomainError('chain_state', 'the endpoint is disabled and receives nothing: activate it first');
        return [{ type: 'WebhookTestRequested', data: { webhookId: endpoint.webhookId, organizationId: endpoint.organizationId, requestedAt: command.now, requestedBy: by } }];
      }
    }
  },
};
