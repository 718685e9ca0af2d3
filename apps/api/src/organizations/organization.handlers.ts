import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { DomainError, organizationDecider, streams } from '@svc/domain';
import type { OrganizationDoc } from '@svc/projections';
import { type CommandContext, Decisions, EventLog, LedgerHistory } from '@svc/application';
import { DashboardAccess } from './access.service';

/**
 * Reads an organization from the ledger (its creation memo, co-signed by its address) and records it.
 * Idempotent: syncing a known organization returns it.
 */
export class SyncOrganization extends Command<OrganizationDoc> {
  constructor(readonly address: string, readonly wallet: string, readonly ctx: CommandContext) {
    super();
  }
}

@CommandHandler(SyncOrganization)
export class SyncOrganizationHandler implements ICommandHandler<SyncOrganization, OrganizationDoc> {
  constructor(
    private readonly decisions: Decisions,
    private readonly log: EventLog,
    private readonly history: LedgerHistory,
    private readonly access: DashboardAccess,
  ) {}

  /**
   * @throws DomainError not_found (no transaction for the address), chain_state (409: the address is not an
   * organization created by this protocol), forbidden (403: the signed-in wallet is not its authority or a member).
   */
  async execute({ address, wallet, ctx }: SyncOrganization): Promise<OrganizationDoc> {
    const decided = await this.decisions.handle(
      streams.organization(address),
      organizationDecider,
      // The ledger is read only for an organization the service does not know yet.
      async (state) => {
        const creation = state ? null : LedgerHistory.factsOf(await this.history.creationOf(address));
        const authority = state?.authority ?? creation?.actor;
        const memberRecords = authority ? await this.history.memberRecordsOf(authority, address, state?.lastMemberRecord ?? state?.creationSignature ?? creation!.signature) : [];
        return { kind: 'SyncOrganization' as const, address, wallet, organizationId: randomUUID(), creation, memberRecords };
      },
      ctx,
    );
    await this.log.settledAfter(decided.appended);
    const stored = await this.access.organizations.findOne({ address });
    if (!stored) throw new DomainError('chain_state', 'organization is being synced; retry');
    return stored;
  }
}

/** Re-reads an organization's history from the ledger. */
export class RefreshOrganization extends Command<OrganizationDoc> {
  constructor(readonly organizationId: string, readonly wallet: string, readonly ctx: CommandContext) {
    super();
  }
}

@CommandHandler(RefreshOrganization)
export class RefreshOrganizationHandler implements ICommandHandler<RefreshOrganization, OrganizationDoc> {
  constructor(
    private readonly decisions: Decisions,
    private readonly log: EventLog,
    private readonly history: LedgerHistory,
    private readonly access: DashboardAccess,
  ) {}

  /**
   * Reads the member records the authority wrote since the last one applied (docs/protocol.md "Member record").
   * @throws DomainError not_found (404: unknown organization, or the wallet is not a member).
   */
  async execute({ organizationId, wallet, ctx }: RefreshOrganization): Promise<OrganizationDoc> {
    // The id → address mapping never changes, so the read model may resolve it; membership is decided on the stream.
    const org = await this.access.organization(organizationId, wallet);
    const creation = await this.history.creationOf(org.address);
    const decided = await this.decisions.handle(
      streams.organization(org.address),
      organizationDecider,
      async (state) => ({
        kind: 'RefreshOrganization' as const,
        wallet,
        transactionCount: creation.historyLength ?? 1,
        memberRecords: state ? await this.history.memberRecordsOf(state.authority, org.address, state.lastMemberRecord ?? creation.signature) : [],
      }),
      ctx,
    );
    await this.log.settledAfter(decided.appended);
    return this.access.organization(organizationId, wallet);
  }
}

export const OrganizationHandlers = [SyncOrganizationHandler, RefreshOrganizationHandler];
