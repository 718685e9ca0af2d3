/**
 * Stream `organization-<address>`: an organization created on the ledger by its wallet and synced into the
 * service (spec §4.10, docs/protocol.md "Organization record"). The authority is the owner (spec §5); the other
 * members come from the authority's member records on the ledger (docs/protocol.md "Member record"), read by sync
 * and refresh; their dashboard labels are events of this stream only.
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { EventOf, MemberChangedData } from '../events';
import { requireRole, type LedgerTransactionFacts, type MemberRecordFacts, type MemberRole, type OrganizationFacts } from './ledger-facts';

export type OrganizationEvent =
  | EventOf<'OrganizationSynced'>
  | EventOf<'OrganizationRefreshed'>
  | EventOf<'MemberChanged'>
  | EventOf<'MemberLabelSet'>;

export type OrganizationState =
  | (OrganizationFacts & {
      authority: string;
      /** The creation transaction: the authority's history older than it holds no member record of this organization. */
      creationSignature: string;
      /** Signatures of the member records already applied (a record is applied once). */
      memberRecords: readonly string[];
      /** The newest member record applied: where the next read of the authority's history may stop. */
      lastMemberRecord: string | null;
    })
  | null;

export type OrganizationCommand =
  | {
      kind: 'SyncOrganization';
      address: string;
      wallet: string;
      /** A fresh id for the organization when it is new. */
      organizationId: string;
      /** The creation transaction; null when the stream already exists (not read). */
      creation: LedgerTransactionFacts | null;
      /** Member records read from the authority's history, in ledger order (none when not read). */
      memberRecords?: readonly MemberRecordFacts[];
    }
  | { kind: 'RefreshOrganization'; wallet: string; transactionCount: number; memberRecords?: readonly MemberRecordFacts[] }
  | { kind: 'SetMemberLabel'; wallet: string; member: string; label: string | null };

/** Members of a newly synced organization: its authority, the owner, holds every role. */
export function membersOf(authority: string): OrganizationFacts['members'] {
  return [{ address: authority, roles: ['owner', 'admin', 'publisher'] }];
}

/** Who manages an organization's members, keys, settings and domains (docs/api.md "Members and roles"). */
export const MANAGERS: readonly MemberRole[] = ['owner', 'admin'];

/**
 * The MemberChanged events that `records` (ledger order) make on `state`: records already applied, failed,
 * not signed by the authority, of another organization, about the authority, or changing nothing are skipped.
 */
function memberChanges(state: NonNullable<OrganizationState>, records: readonly MemberRecordFacts[]): EventOf<'MemberChanged'>[] {
  const events: EventOf<'MemberChanged'>[] = [];
  const applied = new Set(state.memberRecords);
  const current = new Map(state.members.map((m) => [m.address, m.roles.join(',')]));
  for (const r of records) {
    if (applied.has(r.signature) || !r.succeeded || r.signedBy !== state.authority || r.organization !== state.address || r.member === state.authority) continue;
    applied.add(r.signature);
    const before = current.get(r.member);
    let change: MemberChangedData['change'];
    if (!r.active) {
      if (before === undefined) continue;
      change = 'revoked';
      current.delete(r.member);
    } else {
      if (before === r.roles.join(',')) continue;
      change = before === undefined ? 'added' : 'updated';
      current.set(r.member, r.roles.join(','));
    }
    events.push({
      type: 'MemberChanged',
      data: {
        organizationId: state.organizationId,
        organization: state.address,
        member: r.member,
        roles: r.active ? [...r.roles] : [],
        active: r.active,
        change,
        transactionSignature: r.signature,
        slot: r.slot,
        blockTime: r.blockTime,
      },
    });
  }
  return events;
}

export const organizationDecider: Decider<OrganizationCommand, OrganizationEvent, OrganizationState> = {
  eventTypes: ['OrganizationSynced', 'OrganizationRefreshed', 'MemberChanged', 'MemberLabelSet'],
  initialState: null,
  evolve(state, event) {
    switch (event.type) {
      case 'OrganizationSynced': {
        const d = event.data;
        return { organizationId: d.organizationId, address: d.address, authority: d.authority, creationSignature: d.creationSignature, members: membersOf(d.authority), memberRecords: [], lastMemberRecord: null };
      }
      case 'MemberChanged': {
        if (!state) return state;
        const d = event.data;
        const others = state.members.filter((m) => m.address !== d.member);
        return {
          ...state,
          members: d.active ? [...others, { address: d.member, roles: d.roles }] : others,
          memberRecords: [...state.memberRecords, d.transactionSignature],
          lastMemberRecord: d.transactionSignature,
        };
      }
      case 'OrganizationRefreshed':
      case 'MemberLabelSet':
        return state;
    }
  },
  /**
   * Sync of a known organization records only the member records it has not applied yet; a refresh records itself
   * and those member changes. A member record counts when its transaction succeeded, the authority signed it, it
   * names this organization and a member other than the authority, and it changes something.
   * @throws DomainError forbidden (403: the wallet is not a member, or not the authority of a new organization; a
   *   label set by a member who is neither owner nor admin), chain_state (409: the address was not created as an
   *   organization by this protocol), not_found (404: refresh of an unknown organization or by a non-member; a label
   *   for a wallet that is not a member).
   */
  decide(command, state) {
    switch (command.kind) {
      case 'SyncOrganization': {
        if (state) {
          const changes = memberChanges(state, command.memberRecords ?? []);
          const after = changes.reduce<OrganizationState>((s, e) => organizationDecider.evolve(s, e), state);
          if (!after!.members.some((m) => m.address === command.wallet)) {
            throw new DomainError('forbidden', 'the signed-in wallet is not a member of this organization');
          }
          return changes;
        }
        const tx = command.creation;
        if (!tx) throw new DomainError('not_found', `no transaction on the ledger for ${command.address}`);
        const record = tx.record;
        if (!tx.succeeded || record?.kind !== 'org' || tx.objectSigner !== command.address) {
          throw new DomainError('chain_state', `${command.address} was not created as an organization on the ledger`);
        }
        // docs/protocol.md §7.1–7.2: the record's second signer is the organization's authority; without one it names none.
        if (tx.actor === null) throw new DomainError('chain_state', `${command.address}'s organization record is not co-signed by an authority`);
        if (tx.actor !== command.wallet) throw new DomainError('forbidden', 'the signed-in wallet is not the authority of this organization');
        const created: EventOf<'OrganizationSynced'> = {
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
          };
        return [created, ...memberChanges(organizationDecider.evolve(null, created)!, command.memberRecords ?? [])];
      }
      case 'RefreshOrganization': {
        if (!state || !state.members.some((m) => m.address === command.wallet)) throw new DomainError('not_found', 'organization not found');
        return [
          {
            type: 'OrganizationRefreshed',
            data: { organizationId: state.organizationId, address: state.address, transactionCount: command.transactionCount, refreshedBy: command.wallet },
          },
          ...memberChanges(state, command.memberRecords ?? []),
        ];
      }
      case 'SetMemberLabel': {
        requireRole(state, command.wallet, MANAGERS);
        if (!state!.members.some((m) => m.address === command.member)) throw new DomainError('not_found', 'member not found');
        return [{ type: 'MemberLabelSet', data: { organizationId: state!.organizationId, member: command.member, label: command.label, setBy: command.wallet } }];
      }
    }
  },
};
