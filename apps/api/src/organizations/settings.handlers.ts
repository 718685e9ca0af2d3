import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError, settingsDecider, streams, type OrganizationSettingsValues } from '@svc/domain';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type OrganizationDoc } from '@svc/projections';
import { CLOCK, type Clock, type CommandContext, Decisions, EventLog, OrganizationFactsReader } from '@svc/application';
import { signatureFresh } from '../auth/fresh-signature.guard';
import type { DashboardSession } from '../auth/session.guard';

/** Changes an organization's settings (spec §2.8); the result is the organization as its read model holds it after. */
export class ChangeSettings extends Command<OrganizationDoc> {
  constructor(
    readonly organizationId: string,
    readonly changes: Partial<OrganizationSettingsValues>,
    readonly session: DashboardSession,
    readonly ctx: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(ChangeSettings)
export class ChangeSettingsHandler implements ICommandHandler<ChangeSettings, OrganizationDoc> {
  constructor(
    private readonly decisions: Decisions,
    private readonly log: EventLog,
    private readonly facts: OrganizationFactsReader,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The settings decider judges the change with the members and roles folded from the organization's stream.
   * @throws DomainError not_found (404), forbidden (403: not owner/admin; evidenceMode without admin),
   *   reauthentication_required (403: acceptance policy without a fresh signature).
   */
  async execute({ organizationId, changes, session, ctx }: ChangeSettings): Promise<OrganizationDoc> {
    const organization = await this.facts.organization(await this.facts.organizationAddress(organizationId));
    if (!organization) throw new DomainError('not_found', 'organization not found');
    const fresh = signatureFresh(session, this.clock.now(), this.config.freshSignatureSeconds);
    const { appended } = await this.decisions.handle(
      streams.settings(organization.address),
      settingsDecider,
      { kind: 'ChangeSettings', organization, wallet: session.address, changes, signatureFresh: fresh },
      ctx,
    );
    await this.log.settledAfter(appended);
    const doc = await this.readStore.collection<OrganizationDoc>(COLLECTIONS.organizations).findOne({ _id: organizationId });
    if (!doc) throw new DomainError('not_found', 'organization not found');
    return doc;
  }
}
