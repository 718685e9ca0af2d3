/** API keys (spec §5 "API keys"): created and revoked by owners and admins; creation needs a fresh signature. */
import type { ApiKeyCreatedData, EventOf } from '../events';
import type { OrganizationFacts } from './ledger-facts';
import { A, ORG_FACTS } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import { apiKeyDecider, type ApiKeyCommand } from './api-key.decider';

const KEY_ID = '0c5bd3a4-2f8e-4a61-9d7b-3e2f1a0b9c8d';
const PUBLISHER = A.signer;
const ORG: OrganizationFacts = { ...ORG_FACTS, members: [...ORG_FACTS.members, { address: PUBLISHER, roles: ['publisher'] }] };
const OTHER_ORG: OrganizationFacts = { organizationId: A.otherOrgId, address: A.otherOrg, members: [{ address: A.authority, roles: ['owner', 'admin', 'publisher'] }] };

const KEY: ApiKeyCreatedData = {
  keyId: KEY_ID,
  organizationId: A.orgId,
  organization: A.org,
  name: 'Checkout server',
  scopes: ['acceptances:read'],
  keyPrefix: 'svc_test_Qm9v',
  keyHash: '1f'.repeat(32),
  createdAt: '2025-03-14T09:27:30.000Z',
  expiresAt: null,
  createdBy: A.authority,
};
const created: EventOf<'ApiKeyCreated'> = { type: 'ApiKeyCreated', data: KEY };
const revoked: EventOf<'ApiKeyRevoked'> = { type: 'ApiKeyRevoked', data: { keyId: KEY_ID, organizationId: A.orgId, revokedAt: '2025-03-15T10:00:00.000Z', revokedBy: A.authority } };

const create = (wallet: string = A.authority, signatureFresh = true): ApiKeyCommand => ({ kind: 'CreateApiKey', organization: ORG, wallet, key: KEY, signatureFresh });
const revoke = (wallet: string = A.authority, organization = ORG): ApiKeyCommand => ({ kind: 'RevokeApiKey', organization, wallet, now: '2025-03-15T10:00:00.000Z' });

describe('API key decider', () => {
  it('creates a key for the owner with a fresh signature', () => {
    expect(given(apiKeyDecider).when(create())).toEqual(decided(created));
  });

  it.each<[string, ApiKeyCommand, string]>([
    ['a wallet that is not a member', create(A.stranger), 'not_found'],
    ['a publisher', create(PUBLISHER), 'forbidden'],
    ['a stale signature', create(A.authority, false), 'reauthentication_required'],
  ])('refuses creation by %s with %s', (_what, command, code) => {
    expect(given(apiKeyDecider).when(command)).toEqual(refused(code as never));
  });

  it('decides nothing for a key recorded already under the id (the retry of the request that recorded it), still to managers only', () => {
    expect(given(apiKeyDecider, [created]).when(create())).toEqual(decided());
    expect(given(apiKeyDecider, [created, revoked]).when(create())).toEqual(decided());
    expect(given(apiKeyDecider, [created]).when(create(PUBLISHER))).toEqual(refused('forbidden'));
    expect(given(apiKeyDecider, [created]).when(create(A.stranger))).toEqual(refused('not_found'));
    expect(given(apiKeyDecider, [created]).when({ ...create(), organization: OTHER_ORG })).toEqual(refused('not_found'));
  });

  it('revokes a key once; revoking again decides nothing', () => {
    expect(given(apiKeyDecider, [created]).when(revoke())).toEqual(decided(revoked));
    expect(given(apiKeyDecider, [created, revoked]).when(revoke())).toEqual(decided());
    expect(given(apiKeyDecider, [created, revoked]).state.revokedAt).toBe('2025-03-15T10:00:00.000Z');
  });

  it.each<[string, readonly EventOf<'ApiKeyCreated'>[], ApiKeyCommand, string]>([
    ['an unknown key', [], revoke(), 'not_found'],
    ['a key of another organization', [created], revoke(A.authority, OTHER_ORG), 'not_found'],
    ['a publisher', [created], revoke(PUBLISHER), 'forbidden'],
    ['a non-member', [created], revoke(A.stranger), 'not_found'],
  ])('refuses revoking %s with %s', (_what, events, command, code) => {
    expect(given(apiKeyDecider, events).when(command)).toEqual(refused(code as never));
  });
});
