/**
 * Stream `apikey-<keyId>`: an API key of an organization's server (spec §5 "API keys"). The key itself is shown
 * once at creation and never stored: the stream holds its SHA-256. Owners and admins create and revoke keys.
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { ApiKeyCreatedData, EventOf } from '../events';
import { hasRole, type OrganizationFacts } from './ledger-facts';

export type ApiKeyEvent = EventOf<'ApiKeyCreated'> | EventOf<'ApiKeyRevoked'>;

export interface ApiKeyState {
  created: ApiKeyCreatedData | null;
  revokedAt: string | null;
}

export type ApiKeyCommand =
  | {
      kind: 'CreateApiKey';
      organization: OrganizationFacts;
      wallet: string;
      key: ApiKeyCreatedData;
      /** Whether the wallet signed within the fresh-signature window (spec §5 rule 3). */
      signatureFresh: boolean;
    }
  | { kind: 'RevokeApiKey'; organization: OrganizationFacts; wallet: string; now: string };

/** @throws DomainError not_found (404: not a member), forbidden (403: neither owner nor admin). */
function checkManager(organization: OrganizationFacts, wallet: string): void {
  if (!organization.members.some((m) => m.address === wallet)) throw new DomainError('not_found', 'organization not found');
  if (!hasRole(organization, wallet, ['owner', 'admin'])) throw new DomainError('forbidden', 'only the owner and admins manage API keys');
}

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyEvent, ApiKeyState> = {
  eventTypes: ['ApiKeyCreated', 'ApiKeyRevoked'],
  initialState: { created: null, revokedAt: null },
  evolve(state, event) {
    switch (event.type) {
      case 'ApiKeyCreated':
        return { created: event.data, revokedAt: null };
      case 'ApiKeyRevoked':
        return { ...state, revokedAt: event.data.revokedAt };
    }
  },
  /**
   * Revoking a revoked key decides nothing (DELETE is idempotent).
   * @throws DomainError not_found (404: not a member, or a key of another organization or none), forbidden (403:
   *   neither owner nor admin), reauthentication_required (403: creating without a fresh signature). A creation
   *   under the id of a key recorded already (the retry of a request that recorded it and failed before answering)
   *   decides nothing.
   */
  decide(command, state) {
    checkManager(command.organization, command.wallet);
    switch (command.kind) {
      case 'CreateApiKey':
        if (!command.signatureFresh) throw new DomainError('reauthentication_required', 'creating an API key needs a fresh wallet signature: re-authenticate first');
        // The id is named by the request's Idempotency-Key run: a key under it was recorded by an earlier run of this
        // request that failed before it answered. Nothing more to record; the retry answers it (without its secret),
        // as long as it is the organization's.
        if (state.created) {
          if (state.created.organizationId !== command.organization.organizationId) throw new DomainError('not_found', 'API key not found');
          return [];
        }
        return [{ type: 'ApiKeyCreated', data: command.key }];
      case 'RevokeApiKey':
        if (!state.created || state.created.organizationId !== command.organization.organizationId) throw new DomainError('not_found', 'API key not found');
        if (state.revokedAt !== null) return [];
        return [{ type: 'ApiKeyRevoked', data: { keyId: state.created.keyId, organizationId: state.created.organizationId, revokedAt: command.now, revokedBy: command.wallet } }];
    }
  },
};
