import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { organizationDecider, streams } from '@svc/domain';
import type { OrganizationDoc } from '@svc/projections';
import { type CommandContext, Decisions, EventLog } from '@svc/application';
import { DashboardAccess } from './access.service';

/** Sets the dashboard-only label of a member (not written to the ledger; spec §8: at most 80 characters). */
export class SetMemberLabel extends Command<OrganizationDoc> {
  constructor(
    readonly organizationId: string,
    readonly member: string,
    readonly label: string | null,
    readonly wallet: string,
    readonly ctx: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(SetMemberLabel)
export class SetMemberLabelHandler implements ICommandHandler<SetMemberLabel, OrganizationDoc> {
  constructor(
    private readonly decisions: Decisions,
    private readonly log: EventLog,
    private readonly access: DashboardAccess,
  ) {}

  /**
   * @throws DomainError not_found (404: unknown organization, a wallet that is not a member, or a member address that
   *   is not a member), forbidden (403: a member who is neither owner nor admin).
   */
  async execute({ organizationId, member, label, wallet, ctx }: SetMemberLabel): Promise<OrganizationDoc> {
    const org = await this.access.organization(organizationId, wallet);
    const decided = await this.decisions.handle(streams.organization(org.address), organizationDecider, { kind: 'SetMemberLabel', wallet, member, label }, ctx);
    await this.log.settledAfter(decided.appended);
    return this.access.organization(organizationId, wallet);
  }
}

export const MemberHandlers = [SetMemberLabelHandler];
