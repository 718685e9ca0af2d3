/** Organization settings (spec §2.8, §5): who may change what, the fresh-signature rule, and no-op changes. */
import type { EventOf } from '../events';
import type { OrganizationFacts } from './ledger-facts';
import { A, ORG_FACTS } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import { DEFAULT_ORGANIZATION_SETTINGS, settingsDecider, type ChangeSettingsCommand } from './settings.decider';

const ADMIN = A.otherSigner;
const PUBLISHER = A.signer;
const ORG: OrganizationFacts = {
  ...ORG_FACTS,
  members: [...ORG_FACTS.members, { address: ADMIN, roles: ['admin'] }, { address: PUBLISHER, roles: ['publisher'] }],
};

const change = (changes: ChangeSettingsCommand['changes'], wallet: string = A.authority, signatureFresh = true): ChangeSettingsCommand => ({
  kind: 'ChangeSettings',
  organization: ORG,
  wallet,
  changes,
  signatureFresh,
});

const changed = (changes: ChangeSettingsCommand['changes'], before = DEFAULT_ORGANIZATION_SETTINGS, by: string = A.authority): EventOf<'OrganizationSettingsChanged'> => ({
  type: 'OrganizationSettingsChanged',
  data: { organizationId: A.orgId, organization: A.org, changes, settings: { ...before, ...changes }, changedBy: by },
});

describe('settings decider', () => {
  it('starts from the documented defaults', () => {
    expect(given(settingsDecider).state).toEqual({
      requireAcceptanceSessions: false,
      allowedRequestDomains: [],
      signingPolicy: 'WALLET_ONLY',
      feeSponsor: 'svc',
      sponsorFallbackToStele: true,
      sponsorLowBalanceLamports: 0,
      evidenceMode: 'DIRECT_ONCHAIN',
      products: { gate: false },
    });
  });

  it('records the keys that change, with every setting after the change', () => {
    expect(given(settingsDecider).when(change({ products: { gate: true }, sponsorLowBalanceLamports: 5_000 }))).toEqual(
      decided(changed({ products: { gate: true }, sponsorLowBalanceLamports: 5_000 })),
    );
  });

  it('leaves out keys set to the value in force, and decides nothing when nothing changes', () => {
    const first = changed({ requireAcceptanceSessions: true });
    expect(given(settingsDecider, [first]).when(change({ requireAcceptanceSessions: true, feeSponsor: 'organization' }))).toEqual(
      decided(changed({ feeSponsor: 'organization' }, first.data.settings)),
    );
    expect(given(settingsDecider, [first]).when(change({ requireAcceptanceSessions: true, allowedRequestDomains: [] }, A.authority, false))).toEqual(decided());
  });

  it('lets an admin change settings, evidenceMode included', () => {
    expect(given(settingsDecider).when(change({ evidenceMode: 'MERKLE_BATCHED' }, ADMIN))).toEqual(decided(changed({ evidenceMode: 'MERKLE_BATCHED' }, undefined, ADMIN)));
  });

  it.each<[string, ChangeSettingsCommand, string]>([
    ['a wallet that is not a member', change({ products: { gate: true } }, A.stranger), 'not_found'],
    ['a publisher', change({ products: { gate: true } }, PUBLISHER), 'forbidden'],
    ['a publisher, even for evidenceMode', change({ evidenceMode: 'MERKLE_BATCHED' }, PUBLISHER), 'forbidden'],
    ['the signing policy without a fresh signature', change({ signingPolicy: 'WALLET_OR_PASSKEY' }, A.authority, false), 'reauthentication_required'],
    ['requireAcceptanceSessions without a fresh signature', change({ requireAcceptanceSessions: true }, A.authority, false), 'reauthentication_required'],
    ['the allowed sites without a fresh signature', change({ allowedRequestDomains: ['shop.example.com'] }, A.authority, false), 'reauthentication_required'],
  ])('refuses %s with %s', (_what, command, code) => {
    expect(given(settingsDecider).when(command)).toEqual(refused(code as never));
  });

  it('lets an admin pause and narrow sponsorship, and only the owner start or resume it (spec §5 "Roles")', () => {
    const sponsoring = changed({ feeSponsor: 'organization' });
    // The owner starts it; an admin pauses it and turns the fallback to the service off.
    expect(given(settingsDecider).when(change({ feeSponsor: 'organization' }))).toEqual(decided(sponsoring));
    expect(given(settingsDecider, [sponsoring]).when(change({ feeSponsor: 'svc', sponsorFallbackToStele: false }, ADMIN))).toEqual(
      decided(changed({ feeSponsor: 'svc', sponsorFallbackToStele: false }, sponsoring.data.settings, ADMIN)),
    );
    // An admin may not start or resume it, nor turn the fallback back on; nothing is recorded.
    const paused = changed({ sponsorFallbackToStele: false });
    expect(given(settingsDecider).when(change({ feeSponsor: 'organization' }, ADMIN))).toEqual(refused('forbidden'));
    expect(given(settingsDecider, [paused]).when(change({ sponsorFallbackToStele: true, products: { gate: true } }, ADMIN))).toEqual(refused('forbidden'));
    // Values already in force change nothing and need no owner.
    expect(given(settingsDecider, [sponsoring]).when(change({ feeSponsor: 'organization' }, ADMIN))).toEqual(decided());
    expect(given(settingsDecider).when(change({ sponsorFallbackToStele: true }, ADMIN))).toEqual(decided());
  });

  it('needs no fresh signature for settings outside the acceptance policy', () => {
    expect(given(settingsDecider).when(change({ feeSponsor: 'organization', products: { gate: true } }, A.authority, false))).toEqual(
      decided(changed({ feeSponsor: 'organization', products: { gate: true } })),
    );
  });

  it('checks membership, then role, then freshness', () => {
    expect(given(settingsDecider).when(change({ signingPolicy: 'PASSKEY_ONLY' }, A.stranger, false))).toEqual(refused('not_found'));
    expect(given(settingsDecider).when(change({ signingPolicy: 'PASSKEY_ONLY' }, PUBLISHER, false))).toEqual(refused('forbidden'));
    expect(given(settingsDecider).when(change({ signingPolicy: 'PASSKEY_ONLY' }, ADMIN, false))).toEqual(refused('reauthentication_required'));
  });
});
