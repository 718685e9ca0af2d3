import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomBytes, randomUUID } from 'node:crypto';
import { DomainError, domainDecider, MANAGERS, requireRole, streams, type OrganizationFacts } from '@svc/domain';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type DomainVerificationDoc } from '@svc/projections';
import { type CommandContext, Decisions, EventLog, OrganizationFactsReader } from '@svc/application';
import { DnsTxtLookup, type TxtLookup } from './dns-txt.service';

/** Label prefixed to the domain for the TXT record a verification asks for (docs/api.md "Domains"). */
export const DOMAIN_RECORD_LABEL = '_svc-verification';
/** Prefix of the TXT record's value; 32 random hex digits follow. */
export const DOMAIN_RECORD_PREFIX = 'svc-verification=';

/** Starts the verification of `domain` (lower-case host name) by an organization: the verification to publish. */
export class StartDomainVerification extends Command<DomainVerificationDoc> {
  constructor(
    readonly organizationId: string,
    readonly domain: string,
    readonly wallet: string,
    readonly ctx: CommandContext,
  ) {
    super();
  }
}

/** A command on one verification of an organization, by a signed-in wallet. */
abstract class VerificationCommand<R> extends Command<R> {
  constructor(
    readonly organizationId: string,
    readonly verificationId: string,
    readonly wallet: string,
    readonly ctx: CommandContext,
  ) {
    super();
  }
}

/** Looks up the TXT record of a verification and records the domain as verified when it carries the expected value. */
export class CheckDomainVerification extends VerificationCommand<{ verification: DomainVerificationDoc; lookup: TxtLookup & { found: boolean } }> {}

/** Revokes a verification (the route requires a fresh signature). */
export class RevokeDomainVerification extends VerificationCommand<DomainVerificationDoc> {}

/** Read and write access shared by the three handlers. */
abstract class DomainHandlerBase {
  constructor(
    protected readonly decisions: Decisions,
    protected readonly log: EventLog,
    protected readonly facts: OrganizationFactsReader,
    @Inject(READ_STORE) protected readonly readStore: ReadStore,
  ) {}

  protected get verifications() {
    return this.readStore.collection<DomainVerificationDoc>(COLLECTIONS.domainVerifications);
  }

  /**
   * The organization's facts from its stream, with the wallet's role checked.
   * @throws DomainError not_found (404: unknown organization or not a member), forbidden (403: not owner or admin).
   */
  protected async manager(organizationId: string, wallet: string): Promise<OrganizationFacts> {
    const organization = await this.facts.organization(await this.facts.organizationAddress(organizationId));
    requireRole(organization, wallet, MANAGERS);
    return organization!;
  }

  /** @throws DomainError not_found (404) for an unknown verification or another organization's. */
  protected async verification(organizationId: string, verificationId: string): Promise<DomainVerificationDoc> {
    const doc = await this.verifications.findOne({ _id: verificationId });
    if (!doc || doc.organizationId !== organizationId) throw new DomainError('not_found', 'domain verification not found');
    return doc;
  }

  protected async reread(verificationId: string): Promise<DomainVerificationDoc> {
    const doc = await this.verifications.findOne({ _id: verificationId });
    if (!doc) throw new DomainError('not_found', 'domain verification not found');
    return doc;
  }
}

@CommandHandler(StartDomainVerification)
export class StartDomainVerificationHandler extends DomainHandlerBase implements ICommandHandler<StartDomainVerification, DomainVerificationDoc> {
  /**
   * A pending verification of the same domain by the organization whose window is open is answered again instead
   * of starting another (spec §4.10; docs/api.md "Domains").
   * @throws DomainError not_found (404), forbidden (403: not owner or admin), domain_already_verified (409: verified
   *   by another organization, or by this one and not in its last 30 days).
   */
  async execute({ organizationId, domain, wallet, ctx }: StartDomainVerification): Promise<DomainVerificationDoc> {
    const organization = await this.manager(organizationId, wallet);
    const decided = await this.decisions.handle(
      streams.domain(domain),
      domainDecider,
      {
        kind: 'StartDomainVerification',
        domain,
        verificationId: randomUUID(),
        recordName: `${DOMAIN_RECORD_LABEL}.${domain}`,
        recordValue: `${DOMAIN_RECORD_PREFIX}${randomBytes(16).toString('hex')}`,
        wallet,
        organization,
        now: ctx.now,
      },
      ctx,
    );
    // Nothing appended: the open verification is answered again, perhaps started by a concurrent request a moment ago.
    await this.log.settledAfter(decided.appended);
    const open = decided.state?.verifications.findLast((v) => v.organizationId === organizationId && v.status === 'pending');
    if (!open) throw new DomainError('chain_state', 'the verification is being recorded; retry');
    return this.reread(open.verificationId);
  }
}

@CommandHandler(CheckDomainVerification)
export class CheckDomainVerificationHandler extends DomainHandlerBase implements ICommandHandler<CheckDomainVerification> {
  constructor(decisions: Decisions, log: EventLog, facts: OrganizationFactsReader, @Inject(READ_STORE) readStore: ReadStore, private readonly dns: DnsTxtLookup) {
    super(decisions, log, facts, readStore);
  }

  /**
   * Looks up the TXT records at the verification's record name; found → `DomainVerified` (valid 365 days), not found
   * or a failed look-up → unchanged (still pending), with the look-up's outcome in the answer.
   * @throws DomainError not_found (404), forbidden (403), domain_already_verified (409: not in the renewal window, or
   *   held by another organization), domain_expiring (409: the 7-day window to publish the record closed),
   *   chain_state (409: the verification was revoked).
   */
  async execute({ organizationId, verificationId, wallet, ctx }: CheckDomainVerification) {
    const organization = await this.manager(organizationId, wallet);
    const known = await this.verification(organizationId, verificationId);
    // The refusals that need no DNS answer are judged first, so a refused check costs no look-up.
    const { state } = await this.decisions.load(streams.domain(known.domain), domainDecider);
    domainDecider.decide({ kind: 'CheckDomainVerification', verificationId, txtValues: [], wallet, organization, now: ctx.now }, state);
    const lookup = await this.dns.txt(known.recordName);
    const decided = await this.decisions.handle(
      streams.domain(known.domain),
      domainDecider,
      { kind: 'CheckDomainVerification', verificationId, txtValues: lookup.values, wallet, organization, now: ctx.now },
      ctx,
    );
    // Nothing appended: still pending, or recorded meanwhile by a concurrent check, whose record is awaited.
    await this.log.settledAfter(decided.appended);
    return { verification: await this.reread(verificationId), lookup: { ...lookup, found: lookup.values.includes(known.recordValue) } };
  }
}

@CommandHandler(RevokeDomainVerification)
export class RevokeDomainVerificationHandler extends DomainHandlerBase implements ICommandHandler<RevokeDomainVerification, DomainVerificationDoc> {
  /**
   * Revokes the verification: the domain stops naming the organization in public look-ups. Revoking twice is a no-op.
   * @throws DomainError not_found (404), forbidden (403: not owner or admin).
   */
  async execute({ organizationId, verificationId, wallet, ctx }: RevokeDomainVerification): Promise<DomainVerificationDoc> {
    const organization = await this.manager(organizationId, wallet);
    const known = await this.verification(organizationId, verificationId);
    const decided = await this.decisions.handle(streams.domain(known.domain), domainDecider, { kind: 'RevokeDomainVerification', verificationId, wallet, organization, now: ctx.now }, ctx);
    // Nothing appended: revoked already, perhaps by a concurrent request a moment ago, whose record is awaited.
    await this.log.settledAfter(decided.appended);
    return this.reread(verificationId);
  }
}

export const DomainHandlers = [StartDomainVerificationHandler, CheckDomainVerificationHandler, RevokeDomainVerificationHandler];
