/**
 * Stream `settings-<orgADDR>`: the settings of an organization (spec §2.8), changed from the dashboard. They live
 * beside the organization's own stream (which mirrors the ledger) so that a settings change never races a sync.
 *
 * Who may change what (spec §5, docs/api.md "Roles"): owners and admins change settings; `evidenceMode` needs the
 * admin role (owners hold it); only the owner turns the organization's sponsorship on or its fallback to the service
 * on (spec §5: "admins may pause and lower sponsorship limits; only the owner raises limits, resumes or withdraws");
 * the acceptance policy (`signingPolicy`, `requireAcceptanceSessions`, `allowedRequestDomains`) needs a wallet
 * signature made within the fresh-signature window.
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { EventOf, OrganizationSettingsValues } from '../events';
import { hasRole, type OrganizationFacts } from './ledger-facts';

export type SettingsEvent = EventOf<'OrganizationSettingsChanged'>;

/** Settings of an organization that never changed them (docs/api.md "Organization settings"). */
export const DEFAULT_ORGANIZATION_SETTINGS: Readonly<OrganizationSettingsValues> = Object.freeze({
  requireAcceptanceSessions: false,
  allowedRequestDomains: [],
  signingPolicy: 'WALLET_ONLY',
  feeSponsor: 'svc',
  sponsorFallbackToStele: true,
  sponsorLowBalanceLamports: 0,
  evidenceMode: 'DIRECT_ONCHAIN',
  products: { gate: false },
});

export type SettingsState = OrganizationSettingsValues;

/** Keys whose change alters who may sign acceptances and from where (spec §5 rule 3: "the acceptance policy"). */
export const ACCEPTANCE_POLICY_KEYS: readonly (keyof OrganizationSettingsValues)[] = ['signingPolicy', 'requireAcceptanceSessions', 'allowedRequestDomains'];

export interface ChangeSettingsCommand {
  kind: 'ChangeSettings';
  /** The organization folded from its stream (members and roles). */
  organization: OrganizationFacts;
  wallet: string;
  /** The keys of the PATCH body, already validated. */
  changes: Partial<OrganizationSettingsValues>;
  /** Whether the wallet signed within the fresh-signature window (spec §5, §8). */
  signatureFresh: boolean;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export const settingsDecider: Decider<ChangeSettingsCommand, SettingsEvent, SettingsState> = {
  eventTypes: ['OrganizationSettingsChanged'],
  initialState: DEFAULT_ORGANIZATION_SETTINGS,
  evolve(_state, event) {
    return event.data.settings;
  },
  /**
   * Keys set to the value in force are left out; a change that alters nothing decides nothing.
   * @throws DomainError not_found (404: the wallet is not a member), forbidden (403: not owner or admin; evidenceMode
   *   without the admin role; `feeSponsor: organization` or `sponsorFallbackToStele: true` by an admin who is not
   *   the owner), reauthentication_required (403: the acceptance policy changes without a fresh signature).
   */
  decide(command, state) {
    const { organization, wallet } = command;
    if (!organization.members.some((m) => m.address === wallet)) throw new DomainError('not_found', 'organization not found');
    if (!hasRole(organization, wallet, ['owner', 'admin'])) throw new DomainError('forbidden', 'only the owner and admins change settings');
    const changes: Partial<OrganizationSettingsValues> = {};
    for (const [key, value] of Object.entries(command.changes) as [keyof OrganizationSettingsValues, unknown][]) {
      if (value !== undefined && !sameValue(state[key], value)) Object.assign(changes, { [key]: value });
    }
    if (changes.evidenceMode !== undefined && !hasRole(organization, wallet, ['admin'])) {
      throw new DomainError('forbidden', 'evidenceMode: only an admin sets the evidence mode');
    }
    // An admin may pause sponsorship and narrow it; starting or resuming it, or widening it, is the owner's.
    const widened = [changes.feeSponsor === 'organization' && 'feeSponsor', changes.sponsorFallbackToStele === true && 'sponsorFallbackToStele'].filter((k): k is string => k !== false);
    if (widened.length > 0 && !hasRole(organization, wallet, ['owner'])) {
      throw new DomainError('forbidden', `${widened.join(', ')}: only the owner turns sponsorship on or resumes it (an admin may pause it)`);
    }
    const policyChanged = ACCEPTANCE_POLICY_KEYS.filter((k) => k in changes);
    if (policyChanged.length > 0 && !command.signatureFresh) {
      throw new DomainError('reauthentication_required', `changing ${policyChanged.join(', ')} needs a fresh wallet signature: re-authenticate first`);
    }
    if (Object.keys(changes).length === 0) return [];
    return [
      {
        type: 'OrganizationSettingsChanged',
        data: { organizationId: organization.organizationId, organization: organization.address, changes, settings: { ...state, ...changes }, changedBy: wallet },
      },
    ];
  },
};
