/** Layer rules of the service (ARCHITECTURE §2), checked by `npm run lint`. */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'libs/domain holds events, errors and rules: no adapters, no framework, no I/O.',
      severity: 'error',
      from: { path: '^libs/domain' },
      to: { path: '^(libs/(event-store|read-store|ledger|http|config|application)|apps|projections)|node_modules/(@nestjs|better-sqlite3|mongodb|litesvm|@eventstore)' },
    },
    {
      name: 'evidence-is-independent',
      comment: 'The evidence library (protocol, receipts, verifier) must run anywhere: no service code, no stores.',
      severity: 'error',
      from: { path: '^libs/evidence' },
      to: { path: '^(libs/(event-store|read-store|http|config|domain|application)|apps|projections)|node_modules/(@nestjs|better-sqlite3|mongodb|@eventstore)' },
    },
    {
      name: 'adapters-know-no-controllers',
      comment: 'Ports and adapters never import the HTTP layer or the applications.',
      severity: 'error',
      from: { path: '^libs/(event-store|read-store|ledger)' },
      to: { path: '^(apps|libs/http|projections)' },
    },
    {
      name: 'projections-only-fold-events',
      comment: 'Projections depend on the read store port and the domain events, not on the API.',
      severity: 'error',
      from: { path: '^projections' },
      to: { path: '^apps' },
    },
    {
      name: 'application-knows-no-http',
      comment: 'The application core (decisions, processors, wiring) serves the API and the worker alike: no controllers.',
      severity: 'error',
      from: { path: '^libs/application' },
      to: { path: '^(apps|libs/http)' },
    },
    {
      name: 'no-app-to-app',
      comment: 'An application never imports another one; what two share lives in a library.',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'libraries-through-their-index',
      comment: "Another library is used through its public index (the @svc/<name> alias), never a file deep in its src.",
      severity: 'error',
      from: { path: '^libs/([^/]+)/' },
      to: { path: '^libs/[^/]+/src/', pathNot: ['^libs/$1/', '^libs/[^/]+/src/index\\.ts$'] },
    },
    {
      name: 'apps-use-library-indexes',
      comment: 'Applications and projections use libraries through their public index only.',
      severity: 'error',
      from: { path: '^(apps|projections)/' },
      to: { path: '^libs/[^/]+/src/', pathNot: '^libs/[^/]+/src/index\\.ts$' },
    },
    {
      name: 'cli-loads-the-service-on-demand',
      comment:
        'svc verify, accept, receipt and the other client commands start without loading the stores, projections or Nest: only the commands that run them (rebuild-projections, demo) import those, when asked for.',
      severity: 'error',
      from: { path: '^apps/cli/src/', pathNot: '^apps/cli/src/(rebuild|demo|service-process)\\.ts$' },
      to: {
        path: '^(libs/(event-store|read-store|application|http)/|projections/|apps/cli/src/(rebuild|demo|service-process)\\.ts$)|node_modules/(@nestjs|mongodb|@eventstore)',
        dynamic: false,
      },
    },
    {
      name: 'no-circular',
      severity: 'warn',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^dist|\\.spec\\.ts$|/testing/)' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    combinedDependencies: true,
  },
};
