/**
 * Stream `organization-<address>`: an organization created on the ledger by its wallet and synced into the
 * service (spec §4.10, docs/protocol.md "Organization record"). The authority is the owner (spec §5).
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { EventOf } from '../events';
import type { LedgerTransactionFacts, OrganizationFacts } from './ledger-facts';

export type OrganizationEvent = EventOf<'OrganizationSynced'> | EventOf<'OrganizationRefreshed'>;

export type OrganizationState = (OrganizationFacts & { authority: string }) | null;

export type OrganizationCommand =
  | {
      kind: 'SyncOrganization';
      address: string;
      wallet: string;
      /** A fresh id for the organization when it is new. */
      organizationId: string;
      /** The creation transaction; null when the stream already exists (not read). */
      creation: LedgerTransactionFacts | null;
    }
  | { kind: 'RefreshOrganization'; wallet: string; transactionCount: number };

/** Members of an organization: today its authority holds every role (the member records come with the ledger). */
export function membersOf(authority: string): OrganizationFacts['members'] {
  return [{ address: authority, roles: ['owner', 'admin', 'publisher'] }];
}

export const organizationDecider: Decider<OrganizationCommand, OrganizationEvent, OrganizationState> = {
  eventTypes: ['OrganizationSynced', 'OrganizationRefreshed'],
  initialState: null,
  evolve(state, event) {
    switch (event.type) {
      case 'OrganizationSynced': {
        const d = event.data;
        return { organizationId: d.organizationId, address: d.address, authority: d.authority, members: membersOf(d.authority) };
      }
      case 'OrganizationRefreshed':
        return state;
    }
  },
  /**
   * Sync of a known organization is a no-op for its members.
   * @throws DomainError forbidden (403: the wallet is not a member, or not the authority of a new organization),
   *   chain_state (409: the address was not created as an organization by this protocol), not_found (404: refresh
   *   of an unknown organization or by a non-member).
   */
  decide(command, state) {
    switch (command.kind) {
      case 'SyncOrganization': {
        if (state) {
          if (!state.members.some((m) => m.address === command.wallet)) {
            throw new DomainError('forbidden', 'the signed-in wallet is not a member of this organization');
          }
          return [];
        }
        const tx = command.creation;
        if (!tx) throw new DomainError('not_found', `no transaction on the ledger for ${command.address}`);
        const record = tx.record;
        if (!tx.succeeded || record?.kind !== 'org' || tx.objectSigner !== command.address) {
          throw new DomainError('chain_state', `${command.address} was not created as an organization on the ledger`);
        }
        if (tx.actor !== command.wallet) throw new DomainError('forbidden', 'the signed-in wallet is not the authority of this organization');
        return [
          {
            type: 'OrganizationSynced',
            data: {
              organizationId: command.organizationId,
              address: command.address,
              authority: tx.actor,
              name: record.name,
              domain: record.domain,
              creationSignature: tx.signature,
              slot: tx.slot,
              blockTime: tx.blockTime,
              syncedBy: command.wallet,
            },
          },
        ];
      }
      case 'RefreshOrganization':
        if (!state || !state.members.some((m) => m.address === command.wallet)) throw new DomainError('not_found', 'organization not found');
        return [
          {
            type: 'OrganizationRefreshed',
            data: { organizationId: state.organizationId, address: state.address, transactionCount: command.transactionCount, refreshedBy: command.wallet },
          },
        ];
    }
  },
};
