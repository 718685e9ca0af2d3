/**
 * Facts read from the ledger that a decision needs, in the domain's own terms. The command handler reads
 * the transaction and parses its memo (docs/protocol.md); the decider judges what the facts mean.
 */
import { DomainError } from '../errors';
import type { Address, MemberRecordRoleName } from '../events';
import type { VersionFields } from '../version';

/** A memo record of the protocol as a decider sees it (docs/protocol.md, "Memo records"). */
export type ProtocolRecord =
  | { kind: 'org'; name: string; domain: string | null }
  | { kind: 'doc'; organization: Address; slug: string; title: string }
  | ({ kind: 'ver'; fingerprint: string } & VersionFields)
  | { kind: 'shard'; organization: Address; operator: Address }
  | { kind: 'other' };

/**
 * A member record of the protocol read from the ledger (docs/protocol.md "Member record"), with the transaction that
 * carried it. The command handler lists them in ledger order; the organization's decider judges them.
 */
export interface MemberRecordFacts {
  signature: string;
  slot: number;
  blockTime: number | null;
  /** Whether the transaction succeeded on the ledger. */
  succeeded: boolean;
  /** Who signed the memo (only the authority's records count). */
  signedBy: Address;
  organization: Address;
  member: Address;
  roles: MemberRecordRoleName[];
  active: boolean;
}

/** A transaction that may create or publish an object of the protocol. */
export interface LedgerTransactionFacts {
  signature: string;
  slot: number;
  blockTime: number | null;
  /** Whether the transaction succeeded on the ledger. */
  succeeded: boolean;
  /** The first memo record of the protocol in the transaction, or null when it has none. */
  record: ProtocolRecord | null;
  /** The first account that co-signed the memo: the address of the object created. */
  objectSigner: Address | null;
  /**
   * The memo's second signer account: the authority that created or published (docs/protocol.md §7.2), or null when
   * the memo has no second signer (a record no authority signed, which creates nothing).
   */
  actor: Address | null;
}

/** Roles of an organization's member (spec §5). */
export type MemberRole = 'owner' | 'admin' | 'publisher';

/** The organization facts other streams' decisions need, folded from the organization's own stream. */
export interface OrganizationFacts {
  organizationId: string;
  address: Address;
  members: readonly { address: Address; roles: readonly MemberRole[] }[];
}

/** Whether `wallet` holds one of `roles` in the organization. */
export function hasRole(org: OrganizationFacts, wallet: Address, roles: readonly MemberRole[]): boolean {
  return org.members.some((m) => m.address === wallet && m.roles.some((r) => roles.includes(r)));
}

/**
 * Whether `address` is the organization's authority: its wallet, the owner (docs/protocol.md §7.2: documents and
 * versions belong to the organization only when this authority co-signed their records; member records grant
 * `admin` and `publisher`, never `owner`).
 */
export function isAuthority(org: OrganizationFacts, address: Address | null): boolean {
  return address !== null && hasRole(org, address, ['owner']);
}

/**
 * Requires `wallet` to hold one of `roles` in the organization (spec §5 roles; the role table of docs/api.md
 * "Members and roles"). Command handlers and deciders call it before any change an admin or publisher must make.
 * @throws DomainError not_found (404) when the wallet is not a member at all (another organization's resource,
 *   spec §5), forbidden (403) when it is a member without one of `roles`.
 */
export function requireRole(org: OrganizationFacts | null, wallet: Address, roles: readonly MemberRole[]): void {
  if (!org || !org.members.some((m) => m.address === wallet)) throw new DomainError('not_found', 'organization not found');
  if (!hasRole(org, wallet, roles)) throw new DomainError('forbidden', `this operation needs the role ${roles.join(' or ')}`);
}
