import { DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ScheduleModule } from '@nestjs/schedule';
import { LoggerModule } from 'nestjs-pino';
import type { AppConfig } from '@svc/config';
import { AcceptancesModule } from './acceptances/acceptances.module';
import { ServerModule } from './acceptance-sessions/server.module';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { AuthModule } from './auth/auth.module';
import { requestId, urlForLog } from '@svc/http';
import { DocumentsModule } from './documents/documents.module';
import { InfrastructureModule, ProcessorsModule, type Clock } from '@svc/application';
import { OrganizationsModule } from './organizations/organizations.module';
import { ReceiptsModule } from './receipts/receipts.module';
import { IdempotencyModule } from './system/idempotency.module';
import { OpenApiDocument } from './system/openapi.document';
import { EventLogCheck } from './system/event-log-check.service';
import { SystemController } from './system/system.controller';
import { WebhooksModule } from './webhooks/webhooks.module';

/** Log levels at which every request is logged (pino-http writes request lines at `info`). */
const REQUEST_LOG_LEVELS: ReadonlySet<string> = new Set(['info', 'debug', 'trace']);

/** Headers and cookies that carry secrets: never logged. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'req.headers["x-client-binding"]',
  'req.headers["x-proof-token"]',
  'res.headers["set-cookie"]',
];

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, options: { clock?: Clock } = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot({
          // Request lines are logged at `info`: above it they would be dropped, so the per-request logger is not
          // installed at all (it is a measurable share of a public read's cost).
          forRoutes: REQUEST_LOG_LEVELS.has(config.logLevel) ? [{ path: '{*path}', method: RequestMethod.ALL }] : [],
          pinoHttp: {
            level: config.logLevel,
            redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
            genReqId: (req, res) => requestId(req, res),
            customProps: () => ({}),
            // A 5xx answered on purpose (readiness' 503, a 502 relay_failed) threw nothing: pino-http would log an
            // error it makes up from the status, stack and all, on every readiness probe. The line keeps the status.
            customErrorObject: (_req, res, error, logged) => (error.message === `failed with status code ${res.statusCode}` ? { res: logged['res'], responseTime: logged['responseTime'] } : logged),
            serializers: {
              req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: urlForLog(req.url) }),
            },
          },
        }),
        CqrsModule.forRoot(),
        ScheduleModule.forRoot(),
        InfrastructureModule.forRoot(config, { runProjections: config.runProjections, clock: options.clock }),
        IdempotencyModule,
        AuthModule,
        OrganizationsModule,
        DocumentsModule,
        AcceptancesModule,
        ApiKeysModule,
        WebhooksModule,
        ServerModule,
        ProcessorsModule,
        ReceiptsModule,
      ],
      controllers: [SystemController],
      providers: [OpenApiDocument, EventLogCheck],
    };
  }
}
