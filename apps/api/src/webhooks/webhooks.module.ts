import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { SharedModule } from '@svc/application';
import { AuthModule } from '../auth/auth.module';
import { DashboardAccess } from '../organizations/access.service';
import { WebhookHandlers } from './webhook.handlers';
import { WebhooksController } from './webhooks.controller';
import { PageCursors } from '../system/page-cursor';

/** Webhook endpoints and their delivery log (spec §4.10); deliveries run in the processors (ProcessorsModule). */
@Module({
  imports: [CqrsModule, SharedModule, AuthModule],
  controllers: [WebhooksController],
  providers: [DashboardAccess, PageCursors, ...WebhookHandlers],
})
export class WebhooksModule {}
