/**
 * Facts read from the ledger that a decision needs, in the domain's own terms. The command handler reads
 * the transaction and parses its memo (docs/protocol.md); the decider judges what the facts mean.
 */
import type { Address } from '../events';
import type { VersionFields } from '../version';

/** A memo record of the protocol as a decider sees it (docs/protocol.md, "Memo records"). */
export type ProtocolRecord =
  | { kind: 'org'; name: string; domain: string | null }
  | { kind: 'doc'; organization: Address; slug: string; title: string }
  | ({ kind: 'ver'; fingerprint: string } & VersionFields)
  | { kind: 'other' };

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
  /** The other signer of the memo, else the fee payer: who created or published. */
  actor: Address;
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
