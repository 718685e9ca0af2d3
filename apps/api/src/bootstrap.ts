import 'reflect-metadata';
import type { IncomingMessage } from 'node:http';
import { Logger, RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import fastifyCookie from '@fastify/cookie';
import fastifyCors from '@fastify/cors';
import { Logger as PinoLogger } from 'nestjs-pino';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CLOCK, STARTUP_LOG_OPTIONS, type Clock, type Sealer } from '@svc/application';
import { claimDataDir, refuseDuringOfflineWork, refuseSecondProcessorRunner, secureDataDir, type AppConfig } from '@svc/config';
import {
  ApiErrorFilter,
  DEFAULT_BODY_LIMIT,
  DRAFT_ROUTES,
  allowedOrigin,
  clientErrorHandler,
  EdgeError,
  refuseConnect,
  refuseUnmetExpectation,
  CORS_ALLOWED_HEADERS,
  CORS_EXPOSED_HEADERS,
  completeOpenApiDocument,
  createValidationPipe,
  frameworkErrors,
  BodylessRouteGuard,
  registerRateLimits,
  registerQueryStringCheck,
  registerRequestBodies,
  requestId,
} from '@svc/http';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { callsPerMinutePerClient, LEDGER, registerLedgerJsonRpc, type Ledger } from '@svc/ledger';
import { serveAcceptanceReceiptDirectly } from './acceptances/acceptance-receipt.route';
import { serveAcceptanceSummaryDirectly } from './acceptances/acceptance-summary.route';
import { ReceiptService } from './acceptances/receipt.service';
import { AppModule } from './app.module';
import { registerIdempotencyHooks, REPLAY_SEALER } from './system/idempotency.interceptor';
import { IdempotencyStore } from './system/idempotency.store';
import { OpenApiDocument } from './system/openapi.document';
import { liveDashboardSession } from './auth/session.guard';

/** API version of the OpenAPI description (spec §9). */
export const API_VERSION = '1.0.0';

/**
 * Builds the HTTP service: a private data directory, Fastify, the `/api` prefix, cookies, CORS, rate limits,
 * stored responses of idempotent writes (`Idempotency-Key`),
 * JSON-only bodies with per-route limits, validation, the error envelope (also for errors raised before a
 * route runs: 400, 408, 413, 414, 415, 431), the OpenAPI description and, with the embedded ledger, its
 * JSON-RPC endpoint at `/rpc`. Input limits: docs/api.md "Input limits and content types".
 */
export async function createApp(config: AppConfig, options: { clock?: Clock } = {}): Promise<NestFastifyApplication> {
  secureDataDir(config.dataDir);
  // Claimed before anything starts: offline tools (svc rebuild-projections) refuse a data directory a running
  // service uses, and one process at a time may run the projections and processors on it.
  const release = claimDataDir(config.dataDir, { processors: config.runProjections });
  refuseDuringOfflineWork(config.dataDir, release);
  refuseSecondProcessorRunner(config, release);
  const requestTimeoutMs = config.httpRequestTimeoutSeconds * 1000;
  const adapter = new FastifyAdapter({
    trustProxy: config.trustProxy,
    bodyLimit: DEFAULT_BODY_LIMIT,
    genReqId: (req: IncomingMessage) => requestId(req),
    routerOptions: { maxParamLength: 200 },
    clientErrorHandler,
    frameworkErrors: frameworkErrors(config.appOrigin),
    // A request still arriving after HTTP_REQUEST_TIMEOUT_SECONDS is answered 408 (clientErrorHandler) and closed: a
    // client stalling in its body would otherwise hold its connection open for ever. Node checks the connections
    // every connectionsCheckingInterval, so a stalled request is cut between the limit and a quarter of it later.
    requestTimeout: requestTimeoutMs,
    // Host is checked by the first hook below, which answers in the envelope.
    http: { headersTimeout: Math.min(60_000, requestTimeoutMs), connectionsCheckingInterval: Math.min(30_000, Math.max(250, requestTimeoutMs / 4)), requireHostHeader: false },
  });
  // Nest's own body parsers (JSON and URL-encoded forms) are replaced by registerRequestBodies below.
  let app: NestFastifyApplication;
  try {
    // A provider that cannot start (a store file that is not a database) rejects here, to the entry point's one line,
    // instead of Nest printing its start-up lines and a stack trace and exiting by itself (STARTUP_LOG_OPTIONS).
    app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, options), adapter, { ...STARTUP_LOG_OPTIONS, bodyParser: false });
  } catch (err) {
    release();
    throw err;
  }
  app.useLogger(app.get(PinoLogger));
  app.flushLogs();
  // The receipt pages (`receiptUrl`) are public addresses for people, outside the API.
  app.setGlobalPrefix('api', {
    exclude: [
      { path: 'receipts/:acceptanceId', method: RequestMethod.GET },
      { path: 'receipts/:acceptanceId.json', method: RequestMethod.GET },
    ],
  });
  app.useGlobalFilters(new ApiErrorFilter());
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalGuards(new BodylessRouteGuard());
  app.enableShutdownHooks();

  // The adapter uses the project's Fastify (one copy, see package.json overrides), so its instance type is ours.
  const fastify: FastifyInstance = app.getHttpAdapter().getInstance();
  fastify.server.on('checkExpectation', refuseUnmetExpectation);
  fastify.server.on('connect', refuseConnect);
  // First of the hooks: every answer carries its request id, those of the rate limiter and the 404 handler included.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    // HTTP/1.1 requires Host (RFC 9112 §3.2): refused here, in the envelope, rather than by Node with an empty body.
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      return done(new EdgeError(400, 'invalid_request', 'host: an HTTP/1.1 request must carry a Host header'));
    }
    // Answers to a caller holding a credential (session cookie, API key, a challenge's client binding) and to writes
    // may carry secrets shown once (API keys, session tokens, webhook secrets, the CSRF token) or private records: no
    // cache keeps them. A route that sets its own cache-control replaces this.
    const h = request.headers;
    if ((request.method !== 'GET' && request.method !== 'HEAD') || h.cookie !== undefined || h.authorization !== undefined || h['x-client-binding'] !== undefined) {
      void reply.header('cache-control', 'no-store');
    }
    done();
  });
  await app.register(fastifyCookie as never);
  // Public endpoints are callable from any website (no credentials); the dashboard's cookies only
  // travel with requests from the app's own origin, the one origin answered with credentials. That header is set
  // here, before the CORS hook, so preflight answers carry it too. The CORS options are static (only the allowed
  // origin is resolved per request): @fastify/cors merges a delegator's options on every request, about 2 µs.
  const appOrigin = config.appOrigin;
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.headers.origin === appOrigin) void reply.header('access-control-allow-credentials', 'true');
    done();
  });
  await app.register(fastifyCors as never, {
    origin: (origin: string | undefined, cb: (e: Error | null, allowed: string) => void) => cb(null, allowedOrigin(origin, appOrigin)),
    credentials: false,
    methods: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
    // An OPTIONS request that is not a complete preflight (no Origin or no Access-Control-Request-Method) is answered
    // like one, 204 with the CORS headers, rather than with a plain-text 400 outside the error envelope.
    strictPreflight: false,
  } as never);
  // After CORS, whose hook then runs first: a body refused here (415) is still readable by the page that sent it.
  // Draft routes are the dashboard's: a request without a live session (and, being a write, its origin and CSRF
  // token) is refused before its body (up to 24 MB) is read; SessionGuard checks the same again for the handler.
  const readStore = app.get<ReadStore>(READ_STORE);
  const clock = app.get<Clock>(CLOCK);
  const admit = async (request: FastifyRequest) => void (await liveDashboardSession(request, readStore, config, clock));
  registerRequestBodies(fastify, { jsonOnlyPrefix: '/api/', largeBodyRoutes: DRAFT_ROUTES.map((r) => ({ ...r, admit })) });
  registerQueryStringCheck(fastify);
  await registerRateLimits(
    fastify,
    { general: config.rateLimitGeneral, signIn: config.rateLimitSignIn, acceptance: config.rateLimitAcceptance, dnsCheck: config.rateLimitDnsCheck },
    readStore,
    // The embedded ledger's JSON-RPC counts its calls itself (RATE_LIMIT_RPC_CALLS_PER_MINUTE, each call of a batch).
    { exemptRoutes: config.ledgerRpcUrl ? [] : ['/rpc'] },
  );
  registerIdempotencyHooks(fastify, app.get(IdempotencyStore), app.get<Sealer>(REPLAY_SEALER));

  if (!config.ledgerRpcUrl) {
    registerLedgerJsonRpc(fastify, app.get<Ledger>(LEDGER), {
      path: '/rpc',
      airdrop: { maxLamports: config.ledgerAirdropMaxLamports, perMinute: config.ledgerAirdropsPerMinute },
      countCalls: callsPerMinutePerClient(config.rateLimitRpcCalls),
      pubsub: { warn: (message) => new Logger('LedgerRpc').warn(message) },
    });
  }

  const openApi = new DocumentBuilder()
    .setTitle('Agreement evidence service')
    .setDescription('Publish versioned documents on a ledger, collect signed acceptances, verify receipts.')
    .setVersion(API_VERSION)
    .addServer(`${config.publicBaseUrl}/api`)
    .addCookieAuth('svc_session')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'API key (svc_live_… or svc_test_…)', description: 'An organization API key (spec §5)' })
    .build();
  serveAcceptanceSummaryDirectly(fastify, app.get(ReceiptService), config.publicBaseUrl);
  serveAcceptanceReceiptDirectly(fastify, app.get(ReceiptService));
  try {
    await app.init();
  } catch (err) {
    // A refused start (a lease held elsewhere, a log that ends before its checkpoints): the stores are closed and the
    // data directory is left to the next try.
    await app.close().catch(() => undefined);
    release();
    throw err;
  }
  app.get(OpenApiDocument).set(() => {
    const document = completeOpenApiDocument(SwaggerModule.createDocument(app, openApi, { ignoreGlobalPrefix: true }));
    // The receipt pages live outside the /api prefix: their paths name the service's base URL as their server.
    for (const [path, item] of Object.entries(document.paths)) if (path.startsWith('/receipts/')) item.servers = [{ url: config.publicBaseUrl }];
    return document;
  });
  fastify.addHook('onClose', (_instance, done) => {
    release();
    done();
  });
  return app;
}
