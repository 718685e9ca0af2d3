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
import { MembersController } from './members.controller';
import { MemberHandlers } from './members.handlers';
import { SettingsController } from './settings.controller';
import { ChangeSettingsHandler } from './settings.handlers';

@Module({
  imports: [CqrsModule, SharedModule, AuthModule],
  controllers: [DashboardController, MembersController, SettingsController],
  providers: [DashboardAccess, DraftQuotaReader, ...OrganizationHandlers, ...DocumentHandlers, ...DraftHandlers, ...PublicationHandlers, ...MemberHandlers, ChangeSettingsHandler],
})
export class OrganizationsModule {}
