/**
 * Stream `domain-<host>`: the verifications of one DNS host name by organizations (spec §4.10 domains; docs/api.md
 * "Domains"). One stream per host name, so that at most one organization at a time holds it verified: the event
 * store's expected revision settles two organizations racing for the same name.
 *
 * A verification starts `pending` with a TXT record to publish; a check that finds the record makes it `verified`
 * for {@link DOMAIN_VALIDITY_DAYS} days; it can be checked again (renewed) in the last
 * {@link DOMAIN_RENEWAL_DAYS} days or after it lapsed; `revoked` is final.
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { Address, DomainVerificationStartedData, EventOf } from '../events';
import { requireRole, type OrganizationFacts } from './ledger-facts';
import { MANAGERS } from './organization.decider';

/** Days a pending verification waits for its TXT record. */
export const DOMAIN_CHECK_WINDOW_DAYS = 7;
/** Days a verified domain stays verified without a new check. */
export const DOMAIN_VALIDITY_DAYS = 365;
/** Days before expiry from which a verified domain may be checked again. */
export const DOMAIN_RENEWAL_DAYS = 30;

const DAY_MS = 86_400_000;

export type DomainVerificationEvent = EventOf<'DomainVerificationStarted'> | EventOf<'DomainVerified'> | EventOf<'DomainVerificationRevoked'>;

export interface DomainVerificationState extends DomainVerificationStartedData {
  status: 'pending' | 'verified' | 'revoked';
  verifiedAt: string | null;
  expiresAt: string | null;
}

/** Every verification of the host name, oldest first. */
export type DomainState = { domain: string; verifications: readonly DomainVerificationState[] } | null;

interface ByManager {
  wallet: Address;
  /** The organization of the wallet's request, folded from its stream. */
  organization: OrganizationFacts | null;
  /** Time of the request. */
  now: Date;
}

export type DomainCommand =
  | ({ kind: 'StartDomainVerification'; domain: string; verificationId: string; recordName: string; recordValue: string } & ByManager)
  | ({
      kind: 'CheckDomainVerification';
      verificationId: string;
      /** The TXT values found at the record name (DNS lookup by the handler); empty when none. */
      txtValues: readonly string[];
    } & ByManager)
  | ({ kind: 'RevokeDomainVerification'; verificationId: string } & ByManager);

/** Whether a verified verification is in force at `now`. */
export function isDomainInForce(v: DomainVerificationState, now: Date): boolean {
  return v.status === 'verified' && v.expiresAt !== null && Date.parse(v.expiresAt) > now.getTime();
}

/** Whether a verification in force may be checked again (renewed) at `now`. */
function inRenewalWindow(v: DomainVerificationState, now: Date): boolean {
  return v.expiresAt !== null && Date.parse(v.expiresAt) - now.getTime() <= DOMAIN_RENEWAL_DAYS * DAY_MS;
}

function find(state: DomainState, command: { verificationId: string } & ByManager): DomainVerificationState {
  const v = state?.verifications.find((x) => x.verificationId === command.verificationId);
  if (!v || v.organizationId !== command.organization?.organizationId) throw new DomainError('not_found', 'domain verification not found');
  requireRole(command.organization, command.wallet, MANAGERS);
  return v;
}

export const domainDecider: Decider<DomainCommand, DomainVerificationEvent, DomainState> = {
  eventTypes: ['DomainVerificationStarted', 'DomainVerified', 'DomainVerificationRevoked'],
  initialState: null,
  evolve(state, event) {
    const update = (id: string, change: Partial<DomainVerificationState>) =>
      state && { ...state, verifications: state.verifications.map((v) => (v.verificationId === id ? { ...v, ...change } : v)) };
    switch (event.type) {
      case 'DomainVerificationStarted':
        return {
          domain: event.data.domain,
          verifications: [...(state?.verifications ?? []), { ...event.data, status: 'pending', verifiedAt: null, expiresAt: null }],
        };
      case 'DomainVerified':
        return update(event.data.verificationId, { status: 'verified', verifiedAt: event.data.verifiedAt, expiresAt: event.data.expiresAt });
      case 'DomainVerificationRevoked':
        return update(event.data.verificationId, { status: 'revoked' });
    }
  },
  /**
   * Start returns nothing new while the organization has a pending verification of the host name whose window is
   * open (the caller answers with it); revoking a revoked verification decides nothing.
   * @throws DomainError not_found (404: unknown verification, another organization's, or a wallet that is not a
   *   member), forbidden (403: a member who is neither owner nor admin), domain_already_verified (409: the host name
   *   is verified by this organization and not yet in its renewal window, or by another organization, at start or
   *   check), domain_expiring (409: a check after the pending verification's window closed; start a new one),
   *   chain_state (409: a check of a revoked verification).
   */
  decide(command, state) {
    const now = command.now;
    switch (command.kind) {
      case 'StartDomainVerification': {
        requireRole(command.organization, command.wallet, MANAGERS);
        const org = command.organization!;
        for (const v of state?.verifications ?? []) {
          if (!isDomainInForce(v, now)) continue;
          if (v.organizationId !== org.organizationId) throw new DomainError('domain_already_verified', `${command.domain} is verified by another organization`);
          if (!inRenewalWindow(v, now)) throw new DomainError('domain_already_verified', `${command.domain} is verified until ${v.expiresAt}`);
        }
        const open = state?.verifications.find((v) => v.organizationId === org.organizationId && v.status === 'pending' && Date.parse(v.checkBefore) > now.getTime());
        if (open) return [];
        return [
          {
            type: 'DomainVerificationStarted',
            data: {
              verificationId: command.verificationId,
              organizationId: org.organizationId,
              organization: org.address,
              domain: command.domain,
              recordName: command.recordName,
              recordValue: command.recordValue,
              startedBy: command.wallet,
              startedAt: now.toISOString(),
              checkBefore: new Date(now.getTime() + DOMAIN_CHECK_WINDOW_DAYS * DAY_MS).toISOString(),
            },
          },
        ];
      }
      case 'CheckDomainVerification': {
        const v = find(state, command);
        if (v.status === 'revoked') throw new DomainError('chain_state', 'this verification was revoked; start a new one');
        if (v.status === 'verified' && isDomainInForce(v, now) && !inRenewalWindow(v, now)) {
          throw new DomainError('domain_already_verified', `${v.domain} is verified until ${v.expiresAt}`);
        }
        if (v.status === 'pending' && Date.parse(v.checkBefore) <= now.getTime()) {
          throw new DomainError('domain_expiring', `the window to publish the TXT record closed at ${v.checkBefore}; start a new verification`);
        }
        const holder = state!.verifications.find((x) => x.organizationId !== v.organizationId && isDomainInForce(x, now));
        if (holder) throw new DomainError('domain_already_verified', `${v.domain} is verified by another organization`);
        if (!command.txtValues.includes(v.recordValue)) return [];
        return [
          {
            type: 'DomainVerified',
            data: {
              verificationId: v.verificationId,
              organizationId: v.organizationId,
              organization: v.organization,
              domain: v.domain,
              verifiedAt: now.toISOString(),
              expiresAt: new Date(now.getTime() + DOMAIN_VALIDITY_DAYS * DAY_MS).toISOString(),
              checkedBy: command.wallet,
            },
          },
        ];
      }
      case 'RevokeDomainVerification': {
        const v = find(state, command);
        if (v.status === 'revoked') return [];
        return [{ type: 'DomainVerificationRevoked', data: { verificationId: v.verificationId, organizationId: v.organizationId, domain: v.domain, revokedBy: command.wallet } }];
      }
    }
  },
};
