import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AuthModule } from '../auth/auth.module';
import { SharedModule } from '@svc/application';
import { DashboardAccess } from './access.service';
import { DraftQuotaReader } from './draft-quota.service';
import { DashboardController } from './dashboard.controller';
import { DocumentHandlers } from './document.handlers';
import { DraftHandlers } from './draft.handlers';
import { OrganizationHandlers } from './organization.handlers';
import { PublicationHandlers } from './publication.handlers';
import { AuditLogController } from './audit-log.controller';
import { MembersController } from './members.controller';
import { MemberHandlers } from './members.handlers';
import { SettingsController } from './settings.controller';
import { DnsTxtLookup } from './dns-txt.service';
import { DomainsController } from './domains.controller';
import { DomainHandlers } from './domains.handlers';
import { ShardsController } from './shards.controller';
import { SyncShardHandler } from './shards.handlers';
import { StatsController } from './stats.controller';
import { ChangeSettingsHandler } from './settings.handlers';

@Module({
  imports: [CqrsModule, SharedModule, AuthModule],
  controllers: [DashboardController, MembersController, SettingsController, AuditLogController, DomainsController, ShardsController, StatsController],
  providers: [DashboardAccess, DraftQuotaReader, ...OrganizationHandlers, ...DocumentHandlers, ...DraftHandlers, ...PublicationHandlers, ...MemberHandlers, ChangeSettingsHandler, DnsTxtLookup, ...DomainHandlers, SyncShardHandler],
})
export class OrganizationsModule {}
