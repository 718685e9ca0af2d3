/** Webhook endpoints (spec §4.10, §5 rule 3): owners and admins manage them; adding and rotating need a fresh signature. */
import type { EventOf, WebhookEndpointCreatedData } from '../events';
import type { OrganizationFacts } from './ledger-facts';
import { A, ORG_FACTS } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import { webhookDecider, type WebhookCommand, type WebhookEvent } from './webhook.decider';

const HOOK_ID = '6f0b4a5e-3c2d-4e1f-9a8b-7c6d5e4f3a2b';
const NOW = '2025-03-15T10:00:00.000Z';
const PUBLISHER = A.signer;
const ORG: OrganizationFacts = { ...ORG_FACTS, members: [...ORG_FACTS.members, { address: PUBLISHER, roles: ['publisher'] }] };
const OTHER_ORG: OrganizationFacts = { organizationId: A.otherOrgId, address: A.otherOrg, members: [{ address: A.authority, roles: ['owner', 'admin', 'publisher'] }] };

const ENDPOINT: WebhookEndpointCreatedData = {
  webhookId: HOOK_ID,
  organizationId: A.orgId,
  organization: A.org,
  url: 'https://hooks.example.com/svc',
  description: 'Order service',
  events: ['agreement.accepted', 'agreement.finalized'],
  sealedSecret: 'v1.AAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBB.CCCC',
  secretPrefix: 'whsec_Ab3d',
  createdAt: '2025-03-14T09:27:30.000Z',
  createdBy: A.authority,
};
const created: EventOf<'WebhookEndpointCreated'> = { type: 'WebhookEndpointCreated', data: ENDPOINT };
const disabled: EventOf<'WebhookEndpointUpdated'> = {
  type: 'WebhookEndpointUpdated',
  data: { webhookId: HOOK_ID, organizationId: A.orgId, changes: { status: 'disabled' }, status: 'disabled', events: ENDPOINT.events, updatedAt: NOW, updatedBy: A.authority },
};
const deleted: EventOf<'WebhookEndpointDeleted'> = { type: 'WebhookEndpointDeleted', data: { webhookId: HOOK_ID, organizationId: A.orgId, deletedAt: NOW, deletedBy: A.authority } };

const caller = (wallet: string = A.authority, organization = ORG) => ({ organization, wallet, now: NOW });
const create = (wallet?: string, signatureFresh = true, endpoints = { count: 0, limit: 20 }): WebhookCommand => ({
  kind: 'CreateWebhook',
  ...caller(wallet),
  endpoint: ENDPOINT,
  signatureFresh,
  endpoints,
});
const rotate = (wallet?: string, signatureFresh = true, organization = ORG): WebhookCommand => ({
  kind: 'RotateWebhookSecret',
  ...caller(wallet, organization),
  sealedSecret: 'v1.DDDDDDDDDDDDDDDD.EEEEEEEEEEEEEEEEEEEEEE.FFFF',
  secretPrefix: 'whsec_Zz9_',
  signatureFresh,
});

describe('webhook endpoint decider', () => {
  it('adds an endpoint for the owner with a fresh signature, up to the last one the limit allows', () => {
    expect(given(webhookDecider).when(create())).toEqual(decided(created));
    expect(given(webhookDecider).when(create(A.authority, true, { count: 19, limit: 20 }))).toEqual(decided(created));
    expect(given(webhookDecider, [created]).state).toMatchObject({ status: 'active', events: ENDPOINT.events, secretPrefix: 'whsec_Ab3d' });
  });

  it.each<[string, WebhookCommand, string]>([
    ['a wallet that is not a member', create(A.stranger), 'not_found'],
    ['a publisher', create(PUBLISHER), 'forbidden'],
    ['a stale signature', create(A.authority, false), 'reauthentication_required'],
    ['an organization at its limit of endpoints', create(A.authority, true, { count: 20, limit: 20 }), 'chain_state'],
    ['a publisher of an organization at its limit (the role first)', create(PUBLISHER, true, { count: 20, limit: 20 }), 'forbidden'],
    ['a stale signature at the limit (the signature first)', create(A.authority, false, { count: 20, limit: 20 }), 'reauthentication_required'],
  ])('refuses adding by %s with %s', (_what, command, code) => {
    expect(given(webhookDecider).when(command)).toEqual(refused(code as never));
  });

  it('decides nothing for an endpoint recorded already under the id (the retry of the request that recorded it), unless deleted since; still to managers only', () => {
    expect(given(webhookDecider, [created]).when(create())).toEqual(decided());
    expect(given(webhookDecider, [created]).when(create(A.authority, true, { count: 20, limit: 20 }))).toEqual(decided());
    expect(given(webhookDecider, [created, disabled]).when(create())).toEqual(decided());
    expect(given(webhookDecider, [created, deleted]).when(create())).toEqual(refused('not_found'));
    expect(given(webhookDecider, [created]).when(create(PUBLISHER))).toEqual(refused('forbidden'));
    expect(given(webhookDecider, [created]).when(create(A.stranger))).toEqual(refused('not_found'));
    expect(given(webhookDecider, [created]).when({ ...create(), organization: OTHER_ORG })).toEqual(refused('not_found'));
  });

  it('disables, then decides nothing for an update that changes nothing', () => {
    expect(given(webhookDecider, [created]).when({ kind: 'UpdateWebhook', ...caller(), status: 'disabled' })).toEqual(decided(disabled));
    expect(given(webhookDecider, [created, disabled]).when({ kind: 'UpdateWebhook', ...caller(), status: 'disabled', events: ['agreement.finalized', 'agreement.accepted'] })).toEqual(decided());
  });

  it('records only the keys that change', () => {
    const outcome = given(webhookDecider, [created]).when({ kind: 'UpdateWebhook', ...caller(), status: 'active', events: ['document.version_published'] });
    expect(outcome).toEqual(
      decided({
        type: 'WebhookEndpointUpdated',
        data: { webhookId: HOOK_ID, organizationId: A.orgId, changes: { events: ['document.version_published'] }, status: 'active', events: ['document.version_published'], updatedAt: NOW, updatedBy: A.authority },
      }),
    );
  });

  it('rotates the secret with a fresh signature', () => {
    const outcome = given(webhookDecider, [created]).when(rotate());
    expect(outcome).toEqual(
      decided({
        type: 'WebhookSecretRotated',
        data: { webhookId: HOOK_ID, organizationId: A.orgId, sealedSecret: 'v1.DDDDDDDDDDDDDDDD.EEEEEEEEEEEEEEEEEEEEEE.FFFF', secretPrefix: 'whsec_Zz9_', rotatedAt: NOW, rotatedBy: A.authority },
      }),
    );
  });

  it('deletes once; deleting again decides nothing; a deleted endpoint is not found for anything else', () => {
    expect(given(webhookDecider, [created]).when({ kind: 'DeleteWebhook', ...caller() })).toEqual(decided(deleted));
    expect(given(webhookDecider, [created, deleted]).when({ kind: 'DeleteWebhook', ...caller() })).toEqual(decided());
    expect(given(webhookDecider, [created, deleted]).when(rotate())).toEqual(refused('not_found'));
  });

  it('requests a test of an active endpoint, refuses one of a disabled endpoint with chain_state', () => {
    expect(given(webhookDecider, [created]).when({ kind: 'RequestWebhookTest', ...caller() })).toEqual(
      decided({ type: 'WebhookTestRequested', data: { webhookId: HOOK_ID, organizationId: A.orgId, requestedAt: NOW, requestedBy: A.authority } }),
    );
    expect(given(webhookDecider, [created, disabled]).when({ kind: 'RequestWebhookTest', ...caller() })).toEqual(refused('chain_state'));
  });

  it.each<[string, readonly WebhookEvent[], WebhookCommand, string]>([
    ['an unknown endpoint', [], { kind: 'UpdateWebhook', ...caller(), status: 'disabled' }, 'not_found'],
    ['an endpoint of another organization', [created], { kind: 'DeleteWebhook', ...caller(A.authority, OTHER_ORG) }, 'not_found'],
    ['a deleted endpoint', [created, deleted], { kind: 'RequestWebhookTest', ...caller() }, 'not_found'],
    ['a publisher', [created], { kind: 'UpdateWebhook', ...caller(PUBLISHER), status: 'disabled' }, 'forbidden'],
    ['a non-member', [created], { kind: 'DeleteWebhook', ...caller(A.stranger) }, 'not_found'],
    ['a rotation with a stale signature', [created], rotate(A.authority, false), 'reauthentication_required'],
    ['a rotation by a publisher', [created], rotate(PUBLISHER), 'forbidden'],
    ['a rotation in another organization', [created], rotate(A.authority, true, OTHER_ORG), 'not_found'],
  ])('refuses %s with %s', (_what, events, command, code) => {
    expect(given(webhookDecider, events).when(command)).toEqual(refused(code as never));
  });
});
