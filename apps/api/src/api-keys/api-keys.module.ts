import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { SharedModule } from '@svc/application';
import { AuthModule } from '../auth/auth.module';
import { DashboardAccess } from '../organizations/access.service';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeyHandlers } from './api-key.handlers';
import { ApiKeysController } from './api-keys.controller';

/** API keys: their dashboard endpoints, and the guard every server endpoint uses (spec §5). */
@Module({
  imports: [CqrsModule, SharedModule, AuthModule],
  controllers: [ApiKeysController],
  providers: [DashboardAccess, ApiKeyGuard, ...ApiKeyHandlers],
  exports: [ApiKeyGuard],
})
export class ApiKeysModule {}
