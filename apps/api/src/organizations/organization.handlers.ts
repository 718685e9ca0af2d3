import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { DomainError, streams } from '@svc/domain';
import type { OrganizationDoc } from '@svc/projections';
import { newEvent, type CommandContext } from '../infrastructure/command-context';
import { EventLog } from '../shared/event-log.service';
import { LedgerHistory } from '../shared/ledger-history.service';
import { DashboardAccess } from './access.service';

/**
 * Reads an organization from the ledger (its creation memo, co-signed by its address) and records it.
 * Idempotent: syncing a known organization returns it.
 */
export class SyncOrganization {
  constructor(readonly address: string, readonly wallet: string, readonly ctx: CommandContext) {}
}

@CommandHandler(SyncOrganization)
export class SyncOrganizationHandler implements ICommandHandler<SyncOrganization, OrganizationDoc> {
  constructor(
    private readonly log: EventLog,
    private readonly history: LedgerHistory,
    private readonly access: DashboardAccess,
  ) {}

  /**
   * @throws DomainError not_found (no transaction for the address), chain_state (409: the address is not an
   * organization created by this protocol), forbidden (403: the signed-in wallet is not its authority).
   */
  async execute({ address, wallet, ctx }: SyncOrganization): Promise<OrganizationDoc> {
    const known = await this.access.organizations.findOne({ address });
    if (known) {
      if (!this.access.isMember(known, wallet)) throw new DomainError('forbidden', 'the signed-in wallet is not a member of this organization');
      return known;
    }
    const creation = await this.history.creationOf(address);
    const memo = creation.memo;
    if (creation.err !== null || !memo || memo.record.kind !== 'org' || memo.signerAccounts[0] !== address) {
      throw new DomainError('chain_state', `${address} was not created as an organization on the ledger`);
    }
    const authority = memo.signerAccounts.find((a) => a !== address) ?? creation.feePayer;
    if (authority !== wallet) throw new DomainError('forbidden', 'the signed-in wallet is not the authority of this organization');
    const organizationId = randomUUID();
    const appended = await this.log.tryAppend(
      streams.organization(address),
      [
        newEvent(
          'OrganizationSynced',
          {
            organizationId,
            address,
            authority,
            name: memo.record.name,
            domain: memo.record.domain,
            creationSignature: creation.signature,
            slot: creation.slot,
            blockTime: creation.blockTime,
            syncedBy: wallet,
          },
          ctx,
        ),
      ],
      'no_stream',
    );
    if (appended) await this.log.settled(appended.position);
    const stored = await this.access.organizations.findOne({ address });
    if (!stored) throw new DomainError('chain_state', 'organization is being synced; retry');
    return stored;
  }
}

/** Re-reads an organization's history from the ledger. */
export class RefreshOrganization {
  constructor(readonly organizationId: string, readonly wallet: string, readonly ctx: CommandContext) {}
}

@CommandHandler(RefreshOrganization)
export class RefreshOrganizationHandler implements ICommandHandler<RefreshOrganization, OrganizationDoc> {
  constructor(
    private readonly log: EventLog,
    private readonly history: LedgerHistory,
    private readonly access: DashboardAccess,
  ) {}

  async execute({ organizationId, wallet, ctx }: RefreshOrganization): Promise<OrganizationDoc> {
    const org = await this.access.organization(organizationId, wallet);
    const creation = await this.history.creationOf(org.address);
    const appended = await this.log.append(
      streams.organization(org.address),
      [newEvent('OrganizationRefreshed', { organizationId, address: org.address, transactionCount: creation.historyLength ?? 1, refreshedBy: wallet }, ctx)],
      'stream_exists',
    );
    await this.log.settled(appended.position);
    return this.access.organization(organizationId, wallet);
  }
}

export const OrganizationHandlers = [SyncOrganizationHandler, RefreshOrganizationHandler];
