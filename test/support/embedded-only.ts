/**
 * End-to-end suites run the service on the embedded stores and ledger: the in-process services get their whole
 * configuration from the suite, and the processes they spawn (workers, replicas, the CLI) inherit this
 * environment. The production engines' URLs, set for the contract suites of the `int` tier, are removed here so
 * that no spawned process writes to those servers or splits from its in-process peer. This is the suite's copy of
 * the environment: a child started without an `env` option inherits the test runner's own, so every spawn of the
 * service, the worker or the CLI passes `env` built from `process.env`.
 */
for (const name of ['EVENTSTORE_URL', 'MONGODB_URL', 'LEDGER_RPC_URL']) delete process.env[name];
