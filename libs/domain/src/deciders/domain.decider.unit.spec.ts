/**
 * Domain verification stream (spec §4.10 domains; docs/api.md "Domains"): start, DNS TXT check, revoke; one
 * organization at a time holds a host name verified.
 */
import type { EventOf } from '../events';
import { A, ORG_FACTS } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import { domainDecider, type DomainCommand } from './domain.decider';
import type { OrganizationFacts } from './ledger-facts';

const V1 = '0d7d6c1e-52a1-4cf3-93a8-3c4d1e0e2b11';
const V2 = '6f1b9a3e-2c4d-4e5f-8a6b-7c8d9e0f1a2b';
const T0 = new Date('2026-03-01T10:00:00Z');
const days = (n: number) => new Date(T0.getTime() + n * 86_400_000);
const VALUE = 'svc-verification=00112233445566778899aabbccddeeff';
const OTHER: OrganizationFacts = { organizationId: A.otherOrgId, address: A.otherOrg, members: [{ address: A.stranger, roles: ['owner', 'admin', 'publisher'] }] };
const WITH_PUBLISHER: OrganizationFacts = { ...ORG_FACTS, members: [...ORG_FACTS.members, { address: A.signer, roles: ['publisher'] }] };

const started = (id = V1, org = ORG_FACTS, by: string = A.authority): EventOf<'DomainVerificationStarted'> => ({
  type: 'DomainVerificationStarted',
  data: {
    verificationId: id,
    organizationId: org.organizationId,
    organization: org.address,
    domain: 'shop.example.com',
    recordName: '_svc-verification.shop.example.com',
    recordValue: VALUE,
    startedBy: by,
    startedAt: T0.toISOString(),
    checkBefore: days(7).toISOString(),
  },
});
const verified = (id = V1, org = ORG_FACTS, at = T0, by: string = A.authority): EventOf<'DomainVerified'> => ({
  type: 'DomainVerified',
  data: {
    verificationId: id,
    organizationId: org.organizationId,
    organization: org.address,
    domain: 'shop.example.com',
    verifiedAt: at.toISOString(),
    expiresAt: new Date(at.getTime() + 365 * 86_400_000).toISOString(),
    checkedBy: by,
  },
});

const start = (over: Partial<Extract<DomainCommand, { kind: 'StartDomainVerification' }>> = {}): DomainCommand => ({
  kind: 'StartDomainVerification',
  domain: 'shop.example.com',
  verificationId: V1,
  recordName: '_svc-verification.shop.example.com',
  recordValue: VALUE,
  wallet: A.authority,
  organization: ORG_FACTS,
  now: T0,
  ...over,
});
const check = (over: Partial<Extract<DomainCommand, { kind: 'CheckDomainVerification' }>> = {}): DomainCommand => ({
  kind: 'CheckDomainVerification',
  verificationId: V1,
  txtValues: [VALUE],
  wallet: A.authority,
  organization: ORG_FACTS,
  now: T0,
  ...over,
});
const revoke = (over: Partial<Extract<DomainCommand, { kind: 'RevokeDomainVerification' }>> = {}): DomainCommand => ({
  kind: 'RevokeDomainVerification',
  verificationId: V1,
  wallet: A.authority,
  organization: ORG_FACTS,
  now: T0,
  ...over,
});

describe('domain decider: start', () => {
  it('starts a verification with a TXT record and a 7-day window', () => {
    expect(given(domainDecider).when(start())).toEqual(decided(started()));
  });

  it('decides nothing while the same organization has an open pending verification', () => {
    expect(given(domainDecider, [started()]).when(start({ verificationId: V2 }))).toEqual(decided());
  });

  it('starts anew once the pending window closed', () => {
    const again = started(V2);
    const expected = { ...again, data: { ...again.data, startedAt: days(8).toISOString(), checkBefore: days(15).toISOString() } };
    expect(given(domainDecider, [started()]).when(start({ verificationId: V2, now: days(8) }))).toEqual(decided(expected));
  });

  it('refuses a domain the organization holds verified outside its renewal window with domain_already_verified', () => {
    expect(given(domainDecider, [started(), verified()]).when(start({ verificationId: V2, now: days(10) }))).toEqual(refused('domain_already_verified'));
  });

  it('allows a renewal start in the last 30 days', () => {
    const outcome = given(domainDecider, [started(), verified()]).when(start({ verificationId: V2, now: days(340) }));
    expect('events' in outcome && outcome.events.map((e) => e.type)).toEqual(['DomainVerificationStarted']);
  });

  it('refuses a domain verified by another organization with domain_already_verified', () => {
    expect(given(domainDecider, [started(V2, OTHER, A.stranger), verified(V2, OTHER, T0, A.stranger)]).when(start({ now: days(1) }))).toEqual(refused('domain_already_verified'));
  });

  it('refuses a publisher with forbidden and a non-member with not_found', () => {
    expect(given(domainDecider).when(start({ wallet: A.signer, organization: WITH_PUBLISHER }))).toEqual(refused('forbidden'));
    expect(given(domainDecider).when(start({ wallet: A.stranger }))).toEqual(refused('not_found'));
  });
});

describe('domain decider: check', () => {
  it('verifies when the TXT value is found, for 365 days', () => {
    expect(given(domainDecider, [started()]).when(check())).toEqual(decided(verified()));
  });

  it('decides nothing when the TXT value is not found (still pending)', () => {
    expect(given(domainDecider, [started()]).when(check({ txtValues: ['something else'] }))).toEqual(decided());
  });

  it('refuses a check after the window closed with domain_expiring', () => {
    expect(given(domainDecider, [started()]).when(check({ now: days(7) }))).toEqual(refused('domain_expiring'));
  });

  it('refuses a check of a verified domain outside its renewal window with domain_already_verified; renews inside it', () => {
    expect(given(domainDecider, [started(), verified()]).when(check({ now: days(100) }))).toEqual(refused('domain_already_verified'));
    expect(given(domainDecider, [started(), verified()]).when(check({ now: days(350) }))).toEqual(decided(verified(V1, ORG_FACTS, days(350))));
  });

  it('refuses a check while another organization holds the domain with domain_already_verified', () => {
    const events = [started(V2, OTHER, A.stranger), verified(V2, OTHER, T0, A.stranger), started(V1, ORG_FACTS)];
    expect(given(domainDecider, events).when(check({ now: days(1) }))).toEqual(refused('domain_already_verified'));
  });

  it('refuses a check of a revoked verification with chain_state', () => {
    const revoked: EventOf<'DomainVerificationRevoked'> = { type: 'DomainVerificationRevoked', data: { verificationId: V1, organizationId: A.orgId, domain: 'shop.example.com', revokedBy: A.authority } };
    expect(given(domainDecider, [started(), revoked]).when(check())).toEqual(refused('chain_state'));
  });

  it("refuses an unknown verification, another organization's, and a non-member with not_found; a publisher with forbidden", () => {
    expect(given(domainDecider).when(check())).toEqual(refused('not_found'));
    expect(given(domainDecider, [started(V1, OTHER, A.stranger)]).when(check())).toEqual(refused('not_found'));
    expect(given(domainDecider, [started()]).when(check({ wallet: A.stranger }))).toEqual(refused('not_found'));
    expect(given(domainDecider, [started()]).when(check({ wallet: A.signer, organization: WITH_PUBLISHER }))).toEqual(refused('forbidden'));
  });
});

describe('domain decider: revoke', () => {
  const revoked: EventOf<'DomainVerificationRevoked'> = { type: 'DomainVerificationRevoked', data: { verificationId: V1, organizationId: A.orgId, domain: 'shop.example.com', revokedBy: A.authority } };

  it('revokes a verified domain, once', () => {
    expect(given(domainDecider, [started(), verified()]).when(revoke())).toEqual(decided(revoked));
    expect(given(domainDecider, [started(), verified(), revoked]).when(revoke())).toEqual(decided());
  });

  it('refuses a publisher with forbidden and an unknown verification with not_found', () => {
    expect(given(domainDecider, [started()]).when(revoke({ wallet: A.signer, organization: WITH_PUBLISHER }))).toEqual(refused('forbidden'));
    expect(given(domainDecider).when(revoke())).toEqual(refused('not_found'));
  });

  it('frees the domain for another organization once revoked', () => {
    const otherStart = start({ verificationId: V2, organization: OTHER, wallet: A.stranger, now: days(1) });
    expect(given(domainDecider, [started(), verified(), revoked]).when(otherStart)).toEqual(
      decided({ ...started(V2, OTHER, A.stranger), data: { ...started(V2, OTHER, A.stranger).data, startedAt: days(1).toISOString(), checkBefore: days(8).toISOString() } }),
    );
  });
});
