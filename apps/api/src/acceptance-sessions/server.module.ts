import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { SharedModule } from '@svc/application';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AuthModule } from '../auth/auth.module';
import { DashboardAccess } from '../organizations/access.service';
import { AcceptanceSearch } from '../acceptances/search/acceptance-search.service';
import { DashboardAcceptancesController } from '../acceptances/search/dashboard-acceptances.controller';
import { AcceptanceSessionHandlers } from './acceptance-session.handlers';
import { ServerController } from './server.controller';
import { PageCursors } from '../system/page-cursor';

/** What an organization's server calls with its API key (spec §4.5), and acceptance search for the dashboard. */
@Module({
  imports: [CqrsModule, SharedModule, AuthModule, ApiKeysModule],
  controllers: [ServerController, DashboardAcceptancesController],
  providers: [AcceptanceSearch, DashboardAccess, PageCursors, ...AcceptanceSessionHandlers],
})
export class ServerModule {}
