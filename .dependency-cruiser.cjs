/** Layer rules of the service (ARCHITECTURE §2), checked by `npm run lint`. */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'libs/domain holds events, errors and rules: no adapters, no framework, no I/O.',
      severity: 'error',
      from: { path: '^libs/domain' },
      to: { path: '^(libs/(event-store|read-store|ledger|http|config)|apps|projections)|node_modules/(@nestjs|better-sqlite3|@seald-io|mongodb|litesvm|@eventstore)' },
    },
    {
      name: 'evidence-is-independent',
      comment: 'The evidence library (protocol, receipts, verifier) must run anywhere: no service code, no stores.',
      severity: 'error',
      from: { path: '^libs/evidence' },
      to: { path: '^(libs/(event-store|read-store|http|config|domain)|apps|projections)|node_modules/(@nestjs|better-sqlite3|@seald-io|mongodb|@eventstore)' },
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
