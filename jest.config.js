/** Three tiers by file suffix: *.unit.spec.ts, *.int.spec.ts, *.e2e.spec.ts. */
const moduleNameMapper = {
  '^@svc/projections(.*)$': '<rootDir>/projections$1',
  '^@svc/(config|domain|event-store|read-store|ledger|evidence|http|application)$': '<rootDir>/libs/$1/src',
  '^@svc/(config|domain|event-store|read-store|ledger|evidence|http|application)/(.*)$': '<rootDir>/libs/$1/src/$2',
};
const transform = {
  '^.+\\.ts$': ['@swc/jest', {
    jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' },
    module: { type: 'commonjs' },
  }],
};
// @noble/curves and @noble/hashes ship ECMAScript modules only: compiled to CommonJS like the sources.
transform['^.+/node_modules/@noble/.+\\.js$'] = transform['^.+\\.ts$'];
// request-filtering-agent too (the webhook client's connection-time address filter).
transform['^.+/node_modules/request-filtering-agent/.+\\.js$'] = transform['^.+\\.ts$'];
const transformIgnorePatterns = ['/node_modules/(?!@noble/|request-filtering-agent/)'];
const common = { rootDir: __dirname, moduleNameMapper, transform, transformIgnorePatterns, testEnvironment: 'node', moduleFileExtensions: ['ts', 'js', 'json'] };
module.exports = {
  // End-to-end suites start real services and wait for ledger finality; unit suites finish far sooner.
  testTimeout: 180_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,projections,test}/**/*.unit.spec.ts'] },
    { ...common, displayName: 'int', testMatch: ['<rootDir>/{apps,libs,projections,test}/**/*.int.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e.spec.ts'], setupFiles: ['<rootDir>/test/support/embedded-only.ts'] },
  ],
};
