import { bool, cleanEnv, num, port, str, makeValidator, EnvError } from 'envalid';
import { isIP } from 'node:net';
import * as path from 'node:path';

/**
 * Service configuration, read once from environment variables and validated at start-up.
 * Every variable has a safe default: the embedded default (SQLite, NeDB, LiteSVM) needs none.
 * See README "Configuration" for the table.
 */
export interface AppConfig {
  /** TCP port of the HTTP server. */
  port: number;
  /** Interface to listen on. */
  host: string;
  /** Absolute directory holding everything the embedded default keeps. */
  dataDir: string;
  /** Public base URL (scheme, host, port; no trailing slash). The API is served under `<base>/api`. */
  publicBaseUrl: string;
  /** Origin of `publicBaseUrl`: the dashboard's own origin for CSRF checks. */
  appOrigin: string;
  /** EventStoreDB connection string; unset = embedded SQLite log. */
  eventStoreUrl: string | undefined;
  /** MongoDB connection string; unset = embedded NeDB files. */
  mongodbUrl: string | undefined;
  /** Solana JSON-RPC URL; unset = embedded LiteSVM ledger served at `<base>/rpc`. */
  ledgerRpcUrl: string | undefined;
  /** Public JSON-RPC URLs announced in `/v1/network` (comma-separated env). */
  publicRpcUrls: string[];
  /** Network cluster name and label announced in `/v1/network`. */
  cluster: string;
  networkLabel: string;
  /** Path of the relayer's key pair file (Solana CLI format). */
  relayerKeypairPath: string;
  /** Path of the attestor's key pair file. */
  attestorKeypairPath: string;
  /** On test networks, airdrop to the relayer when its balance falls under this (lamports). */
  relayerMinBalanceLamports: bigint;
  /** Seconds an acceptance challenge stays open. */
  challengeTtlSeconds: number;
  /** Seconds a dashboard session lasts. */
  sessionTtlSeconds: number;
  /** Seconds a sign-in nonce stays valid (spec §8: 10 minutes). */
  signInNonceTtlSeconds: number;
  /** Seconds a wallet signature counts as fresh (spec §8: 10 minutes). */
  freshSignatureSeconds: number;
  /**
   * Seconds a client has to send a whole request, headers and body (`HTTP_REQUEST_TIMEOUT_SECONDS`); past them the
   * service answers `408` and closes the connection. Handling time after the request is received does not count.
   */
  httpRequestTimeoutSeconds: number;
  /** Seconds between anchors of the audit logs' heads on the ledger (0: never; docs/api.md "Audit log"). */
  auditAnchorSeconds: number;
  /** Milliseconds a Merkle batch stays open before it is closed and anchored (spec §8: 10 seconds; docs/architecture.md "Batches"). */
  batchWindowMs: number;
  /** Batch lanes closing batches in parallel, 1 to 256 (docs/architecture.md "Batches"). */
  batchLanes: number;
  /** Requests per minute per client address (spec §8: 300). */
  rateLimitGeneral: number;
  /** Sign-in requests per minute per client address (spec §8: 20). */
  rateLimitSignIn: number;
  /** Acceptance challenges and submissions per minute per client address (spec §8: 30). */
  rateLimitAcceptance: number;
  /** DNS checks of domain verifications per minute per client address (spec §8: 10). */
  rateLimitDnsCheck: number;
  /**
   * Which proxies to trust for the client address (`x-forwarded-for`): `false` (default, the socket
   * address is the client), `true` (trust every hop), or a comma-separated list of addresses/CIDRs.
   * Passed to Fastify's `trustProxy`. A hop count is refused: Fastify 5.12 and later trust no hop for it,
   * since a count cannot tell the proxy from a client that reaches the port directly.
   */
  trustProxy: boolean | string;
  /** Slot duration of the embedded ledger, milliseconds. */
  ledgerSlotMs: number;
  /**
   * Durability of the embedded ledger's journal: `full` syncs every commit to disk (survives power loss),
   * `normal` (default, like the event store) survives a crash of the process and may lose the last commits
   * on power loss.
   */
  ledgerSynchronous: 'full' | 'normal';
  /** Largest airdrop one request to the embedded ledger's `/rpc` may ask for, lamports (default 2 SOL). */
  ledgerAirdropMaxLamports: bigint;
  /** Airdrops per minute through `/rpc` allowed to one recipient and to one client address (default 10). */
  ledgerAirdropsPerMinute: number;
  /** JSON-RPC calls per minute per client address on `/rpc`, each call of a batch counting one (default: the general rate). */
  rateLimitRpcCalls: number;
  logLevel: string;
  /** Run projections and process managers in the API process (true: embedded default; false: API replicas beside a worker). */
  runProjections: boolean;
  /** Check every stored event of the log once after start-up, off the event loop (default true; SQLite only). */
  checkEventLogOnStart: boolean;
  /**
   * Milliseconds between the heartbeats the process running the projections and processors writes to the read store
   * (default 5,000; 100 to 60,000); API replicas report that process absent after three intervals and a second.
   */
  runnerHeartbeatMs: number;
  /** Whether cookies carry the `Secure` attribute (default: when the public base URL is https). */
  secureCookies: boolean;
  /** Drafts an organization may have open (`open` or `prepared`) at once (default 50). */
  draftsOpenPerOrganization: number;
  /** `WEBHOOKS_PER_ORGANIZATION`: webhook endpoints an organization may keep (not deleted); default 20. */
  webhooksPerOrganization: number;
  /**
   * Acceptance challenges one signer may have open for one document (default 10): each counts as open for the
   * challenge validity window, used or not (docs/api.md "Signing an acceptance"); beyond, 429 too_many_open_challenges.
   */
  openChallengesPerSigner: number;
  /** Bytes of canonical source the open drafts of one organization may hold together (default 100 MiB). */
  draftBytesPerOrganization: number;
  /**
   * DNS servers asked for the TXT records of domain verifications (docs/api.md "Domains"), as `node:dns`
   * `Resolver.setServers` takes them (`1.2.3.4`, `1.2.3.4:5353`, `::1`, `[::1]:5353`); undefined: the system's resolvers.
   */
  dnsServers: string[] | undefined;
  /** Webhook delivery settings (docs/api.md "Webhooks"). */
  webhooks: WebhookConfig;
}

/**
 * Webhook delivery (spec §6.1, §8; docs/api.md "Webhooks"). The last four settings exist for tests only: they are
 * refused at start-up unless `NODE_ENV=test`, so no production configuration can enable them by accident.
 */
export interface WebhookConfig {
  /**
   * `WEBHOOK_SECRETS_KEY`: base64 of the 32-byte key that seals webhook signing secrets (AES-256-GCM); undefined:
   * the key file `secretsKeyPath`, created (mode 0600) at first start.
   */
  secretsKey: Buffer | undefined;
  /** `WEBHOOK_SECRETS_KEY_FILE`, default `DATA_DIR/keys/webhook-secrets.key`. */
  secretsKeyPath: string;
  /** `WEBHOOK_ALLOW_LOOPBACK` (tests only): loopback receivers (127.0.0.0/8, ::1) are allowed; default false. */
  allowLoopback: boolean;
  /** `WEBHOOK_TEST_CA_FILE` (tests only): PEM certificates trusted for receivers besides the system's. */
  testCaFile: string | undefined;
  /** `WEBHOOK_RETRY_SCALE` (tests only other than 1): multiplies the retry delays of spec §8. */
  retryScale: number;
  /** `WEBHOOK_TIMEOUT_MS` (tests only other than 10000): how long a receiver has to answer (spec §8: 10 s). */
  timeoutMs: number;
}

/** Reads the webhook settings; the test-only ones are refused outside `NODE_ENV=test`. */
function webhookConfig(env: NodeJS.ProcessEnv, dataDir: string): WebhookConfig {
  // The process's own environment decides, not the map being read: a configuration cannot declare itself a test.
  const testing = process.env.NODE_ENV === 'test';
  const testOnly = (name: string, isDefault: boolean) => {
    if (!isDefault && !testing) throw new Error(`invalid configuration: ${name} is a test setting, honoured only with NODE_ENV=test`);
  };
  const key = env.WEBHOOK_SECRETS_KEY ? Buffer.from(env.WEBHOOK_SECRETS_KEY, 'base64') : undefined;
  if (key && key.length !== 32) throw new Error('invalid configuration: WEBHOOK_SECRETS_KEY must be the base64 of 32 bytes');
  const allowLoopback = (env.WEBHOOK_ALLOW_LOOPBACK ?? 'false').trim() === 'true';
  if (!['true', 'false'].includes((env.WEBHOOK_ALLOW_LOOPBACK ?? 'false').trim())) throw new Error('invalid configuration: WEBHOOK_ALLOW_LOOPBACK must be true or false');
  testOnly('WEBHOOK_ALLOW_LOOPBACK', !allowLoopback);
  const testCaFile = env.WEBHOOK_TEST_CA_FILE?.trim() || undefined;
  testOnly('WEBHOOK_TEST_CA_FILE', testCaFile === undefined);
  const retryScale = Number(env.WEBHOOK_RETRY_SCALE ?? 1);
  if (!(retryScale > 0 && retryScale <= 1)) throw new Error('invalid configuration: WEBHOOK_RETRY_SCALE must be a number above 0, at most 1');
  testOnly('WEBHOOK_RETRY_SCALE', retryScale === 1);
  const timeoutMs = Number(env.WEBHOOK_TIMEOUT_MS ?? 10_000);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 10_000) throw new Error('invalid configuration: WEBHOOK_TIMEOUT_MS must be a whole number of milliseconds from 1 to 10000');
  testOnly('WEBHOOK_TIMEOUT_MS', timeoutMs === 10_000);
  return {
    secretsKey: key,
    secretsKeyPath: path.resolve(dataDir, env.WEBHOOK_SECRETS_KEY_FILE ?? 'keys/webhook-secrets.key'),
    allowLoopback,
    testCaFile,
    retryScale,
    timeoutMs,
  };
}

const trustProxyValidator = makeValidator<boolean | string>((input: string) => {
  const v = input.trim();
  if (v === '' || v === 'false') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) {
    throw new EnvError(`no longer takes a hop count ("${input}"): list the proxies' addresses or CIDRs instead (for example 10.0.0.0/8)`);
  }
  if (/^[0-9a-fA-F:.,/\s]+$/.test(v)) return v;
  throw new EnvError(`must be false, true or a list of addresses or CIDRs, got "${input}"`);
});

/** `PUBLIC_BASE_URL`: an http or https URL (what clients are sent to). */
const httpUrl = makeValidator<string>((input: string) => {
  const problem = httpUrlProblem(input.trim());
  if (problem) throw new EnvError(`${problem}, got "${input}"`);
  return input.trim();
});

/** `PUBLIC_RPC_URLS`: comma-separated http or https URLs (what `GET /v1/network` announces). */
const httpUrlList = makeValidator<string[]>((input: string) => {
  const entries = input.split(',').map((s) => s.trim()).filter(Boolean);
  if (entries.length === 0) throw new EnvError('must list at least one http or https URL');
  for (const entry of entries) {
    const problem = httpUrlProblem(entry);
    if (problem) throw new EnvError(`entries ${problem}, got "${entry}"`);
  }
  return entries;
});

/** Why `input` is not an http or https URL (`must be an http or https URL`), or null when it is one. */
export function httpUrlProblem(input: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(input);
  } catch {
    return 'must be an http or https URL';
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? null : 'must be an http or https URL';
}

/** A whole number from `min` to `max`. */
const wholeNumber = (min: number, max: number) =>
  makeValidator<number>((input: string) => {
    const n = Number(input.trim());
    // The reporter puts the variable's name in front.
    if (!Number.isInteger(n) || n < min || n > max) throw new EnvError(`must be a whole number from ${min} to ${max}, got "${input}"`);
    return n;
  });

const lamports = makeValidator<string>((input: string) => {
  if (!/^\d{1,19}$/.test(input)) throw new EnvError(`expected lamports as a whole number, got "${input}"`);
  return input;
});

/**
 * `DNS_SERVERS`: comma-separated `host[:port]` entries where host is an IPv4 address or an IPv6 address (in brackets
 * when a port follows); port 1 to 65535. Host names are refused: the resolver needs addresses.
 */
const dnsServers = makeValidator<string[]>((input: string) => {
  const entries = input.split(',').map((s) => s.trim()).filter(Boolean);
  if (entries.length === 0) throw new EnvError('must list at least one server address');
  for (const entry of entries) {
    if (!isDnsServer(entry)) throw new EnvError(`entries must be host[:port] with an IPv4 address or a bracketed IPv6 address ("[::1]:5353"), got "${entry}"`);
  }
  return entries;
});

/**
 * `MONGODB_URL`: a MongoDB connection string, `mongodb://` (one host or a replica set's list, `h1:27017,h2:27017`)
 * or `mongodb+srv://`, which the driver parses in full when it connects. An error never repeats the value, since it
 * usually carries a password and start-up errors are printed and logged.
 */
const mongoUrl = makeValidator<string>((input: string) => {
  const unrepeated = '(the value is not repeated here: it may carry a password)';
  const value = input.trim();
  if (!/^mongodb(?:\+srv)?:\/\/[^/?#\s]+(?:[/?#]\S*)?$/.test(value)) throw new EnvError(`must be a mongodb:// or mongodb+srv:// connection string ${unrepeated}`);
  // The driver's own parse (it connects later): hosts, ports and options, so that a bad one stops the start-up in a
  // line rather than in the driver's stack trace.
  const { MongoClient } = require('mongodb') as typeof import('mongodb');
  try {
    new MongoClient(value);
  } catch (err) {
    const said = err instanceof Error ? err.message : '';
    const credentials = /^mongodb(?:\+srv)?:\/\/([^@/]*)@/.exec(value)?.[1] ?? '';
    const secretParts = credentials.split(':').flatMap((part) => [part, safeDecode(part)]).filter((part) => part.length > 0);
    const reason = said && !secretParts.some((part) => said.includes(part)) ? `: ${said}` : '';
    throw new EnvError(`is a connection string the MongoDB driver refuses${reason} ${unrepeated}`);
  }
  return value;
});

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * `EVENTSTORE_URL`: an EventStoreDB connection string, `esdb://` or `esdb+discover://`, as the EventStoreDB client
 * parses it (its own parser, run here so that a bad string stops the start-up with a clear line). The client warns
 * of an option it does not know, and of `tlsVerifyCert=false`, which it does not support, by printing the whole
 * string, password included, to the console: both are refused here instead. An error never repeats the value; it
 * names an unknown option's key only when the key is plainly one (letters, digits, `-`, `_`).
 */
const eventStoreUrl = makeValidator<string>((input: string) => {
  if (input.trim() === '') return ''; // set but empty: the embedded store, as before
  const unrepeated = '(the value is not repeated here: it may carry a password)';
  if (!/^esdb(?:\+discover)?:\/\/\S+$/.test(input.trim())) throw new EnvError(`must be an esdb:// or esdb+discover:// connection string ${unrepeated}`);
  const warnings: string[] = [];
  const parse = eventStoreConnectionStringParser(); // outside the try: a client that moved its parser fails loudly
  try {
    withConsoleWarnCaptured(warnings, () => parse(input.trim()));
  } catch {
    throw new EnvError(`is not a connection string the EventStoreDB client can parse ${unrepeated}`);
  }
  for (const warning of warnings) {
    if (warning.includes('"tlsVerifyCert"')) throw new EnvError("has tlsVerifyCert=false, which the EventStoreDB client does not support: give the server's CA with tlsCAFile instead");
    const key = /^Unknown option key "([A-Za-z0-9_-]{1,40})"/.exec(warning)?.[1];
    throw new EnvError(`has ${key ? `an option the EventStoreDB client does not know, "${key}"` : 'a query the EventStoreDB client does not understand'} ${unrepeated}`);
  }
  return input.trim();
});

/**
 * The EventStoreDB client's connection-string parser (loaded only when `EVENTSTORE_URL` is set: it brings the
 * client's gRPC modules). The client does not export it from its entry point; its module path is that of the 6.x
 * releases the dependency allows.
 */
function eventStoreConnectionStringParser(): (connectionString: string) => unknown {
  const { parseConnectionString } = require('@eventstore/db-client/dist/Client/parseConnectionString') as typeof import('@eventstore/db-client/dist/Client/parseConnectionString');
  return parseConnectionString;
}

/** Runs `fn` with `console.warn` collecting its first lines into `into` instead of printing them. */
function withConsoleWarnCaptured<T>(into: string[], fn: () => T): T {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void into.push(String(args[0] ?? '').split('\n')[0]!);
  try {
    return fn();
  } finally {
    console.warn = warn;
  }
}

/**
 * `LEDGER_RPC_URL`: an http(s) URL without `user:password@`, which `fetch` refuses (an RPC provider's key goes in
 * the path or the query string, as the provider documents). The value is never repeated in an error.
 */
const ledgerRpcUrl = makeValidator<string>((input: string) => {
  let parsed: URL;
  try {
    parsed = new URL(input);
  } catch {
    throw new EnvError('is not a valid URL (the value is not repeated here: it may carry credentials)');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new EnvError(`must be an http or https URL, got the scheme "${parsed.protocol}"`);
  if (parsed.username !== '' || parsed.password !== '') throw new EnvError('must not carry user:password@ (fetch refuses such URLs); put the provider\'s key where the provider documents it');
  return input;
});

function isDnsServer(entry: string): boolean {
  if (isIP(entry) !== 0) return true;
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  const withPort = bracketed ?? /^([^:]+):(\d{1,5})$/.exec(entry);
  if (!withPort) return false;
  const port = withPort[2] === undefined ? 53 : Number(withPort[2]);
  return isIP(withPort[1]!) === (bracketed ? 6 : 4) && port >= 1 && port <= 65535;
}

/**
 * Reads and validates the configuration.
 * @throws Error naming every bad variable (envalid reports them together) — the process should exit.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const e = cleanEnv(
    env,
    {
      PORT: port({ default: 3000 }),
      HOST: str({ default: '0.0.0.0' }),
      DATA_DIR: str({ default: './data' }),
      PUBLIC_BASE_URL: httpUrl({ default: undefined }),
      EVENTSTORE_URL: eventStoreUrl({ default: undefined }),
      MONGODB_URL: mongoUrl({ default: undefined }),
      LEDGER_RPC_URL: ledgerRpcUrl({ default: undefined }),
      PUBLIC_RPC_URLS: httpUrlList({ default: undefined }),
      CLUSTER: str({ default: undefined }),
      NETWORK_LABEL: str({ default: undefined }),
      RELAYER_KEYPAIR: str({ default: undefined }),
      ATTESTOR_KEYPAIR: str({ default: undefined }),
      RELAYER_MIN_BALANCE_LAMPORTS: lamports({ default: '1000000000' }),
      CHALLENGE_TTL_SECONDS: num({ default: 300 }),
      SESSION_TTL_SECONDS: num({ default: 12 * 3600 }),
      SIGNIN_NONCE_TTL_SECONDS: wholeNumber(1, 86_400)({ default: 600 }),
      FRESH_SIGNATURE_SECONDS: wholeNumber(1, 86_400)({ default: 600 }),
      HTTP_REQUEST_TIMEOUT_SECONDS: wholeNumber(1, 3600)({ default: 120 }),
      AUDIT_ANCHOR_SECONDS: wholeNumber(0, 31_536_000)({ default: 3600 }),
      BATCH_WINDOW_MS: wholeNumber(10, 3_600_000)({ default: 10_000 }),
      BATCH_LANES: wholeNumber(1, 256)({ default: 4 }),
      RATE_LIMIT_GENERAL_PER_MINUTE: num({ default: 300 }),
      RATE_LIMIT_SIGNIN_PER_MINUTE: num({ default: 20 }),
      RATE_LIMIT_ACCEPTANCE_PER_MINUTE: num({ default: 30 }),
      RATE_LIMIT_DNS_CHECK_PER_MINUTE: num({ default: 10 }),
      TRUST_PROXY: trustProxyValidator({ default: false }),
      LEDGER_SLOT_MS: num({ default: 400 }),
      LEDGER_SYNCHRONOUS: str({ default: 'normal', choices: ['full', 'normal'] }),
      LEDGER_AIRDROP_MAX_LAMPORTS: lamports({ default: '2000000000' }),
      LEDGER_AIRDROPS_PER_MINUTE: num({ default: 10 }),
      RATE_LIMIT_RPC_CALLS_PER_MINUTE: num({ default: undefined }),
      LOG_LEVEL: str({ default: 'info', choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] }),
      SECURE_COOKIES: bool({ default: undefined }),
      DRAFTS_OPEN_PER_ORGANIZATION: num({ default: 50 }),
      WEBHOOKS_PER_ORGANIZATION: num({ default: 20 }),
      OPEN_CHALLENGES_PER_SIGNER: num({ default: 10 }),
      DRAFT_BYTES_PER_ORGANIZATION: num({ default: 100 * 1024 * 1024 }),
      RUN_PROJECTIONS: bool({ default: true }),
      CHECK_EVENT_LOG_ON_START: bool({ default: true }),
      RUNNER_HEARTBEAT_MS: wholeNumber(100, 60_000)({ default: 5_000 }),
      DNS_SERVERS: dnsServers({ default: undefined }),
    },
    {
      reporter: ({ errors }) => {
        const bad = Object.entries(errors);
        if (bad.length > 0) {
          throw new Error(`invalid configuration: ${bad.map(([k, err]) => `${k}: ${(err as Error).message}`).join('; ')}`);
        }
      },
    },
  );
  for (const [name, value] of [
    ['CHALLENGE_TTL_SECONDS', e.CHALLENGE_TTL_SECONDS],
    ['SESSION_TTL_SECONDS', e.SESSION_TTL_SECONDS],
    ['RATE_LIMIT_GENERAL_PER_MINUTE', e.RATE_LIMIT_GENERAL_PER_MINUTE],
    ['RATE_LIMIT_SIGNIN_PER_MINUTE', e.RATE_LIMIT_SIGNIN_PER_MINUTE],
    ['RATE_LIMIT_ACCEPTANCE_PER_MINUTE', e.RATE_LIMIT_ACCEPTANCE_PER_MINUTE],
    ['RATE_LIMIT_DNS_CHECK_PER_MINUTE', e.RATE_LIMIT_DNS_CHECK_PER_MINUTE],
    ['LEDGER_SLOT_MS', e.LEDGER_SLOT_MS],
    ['LEDGER_AIRDROPS_PER_MINUTE', e.LEDGER_AIRDROPS_PER_MINUTE],
    ['RATE_LIMIT_RPC_CALLS_PER_MINUTE', e.RATE_LIMIT_RPC_CALLS_PER_MINUTE ?? e.RATE_LIMIT_GENERAL_PER_MINUTE],
  ] as const) {
    if (!Number.isInteger(value) || value <= 0) throw new Error(`invalid configuration: ${name} must be a positive integer, got ${value}`);
  }
  const dataDir = path.resolve(e.DATA_DIR);
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  const embeddedLedger = !e.LEDGER_RPC_URL;
  if (!embeddedLedger && !e.PUBLIC_RPC_URLS && new URL(e.LEDGER_RPC_URL as string).search !== '') {
    // The default would announce the ledger URL in the public `/v1/network`, and a query string is where RPC
    // providers usually put the caller's key.
    throw new Error('invalid configuration: PUBLIC_RPC_URLS must be set when LEDGER_RPC_URL has a query string (often an RPC provider\'s key), which the default would announce in /v1/network');
  }
  const publicRpcUrls = e.PUBLIC_RPC_URLS ?? [embeddedLedger ? `${publicBaseUrl}/rpc` : (e.LEDGER_RPC_URL as string)];
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    publicBaseUrl,
    appOrigin: new URL(publicBaseUrl).origin,
    eventStoreUrl: e.EVENTSTORE_URL || undefined,
    mongodbUrl: e.MONGODB_URL || undefined,
    ledgerRpcUrl: e.LEDGER_RPC_URL || undefined,
    publicRpcUrls,
    cluster: e.CLUSTER ?? (embeddedLedger ? 'localnet' : 'devnet'),
    networkLabel: e.NETWORK_LABEL ?? (embeddedLedger ? 'Local test network' : 'Solana Devnet'),
    relayerKeypairPath: path.resolve(dataDir, e.RELAYER_KEYPAIR ?? 'keys/relayer.json'),
    attestorKeypairPath: path.resolve(dataDir, e.ATTESTOR_KEYPAIR ?? 'keys/attestor.json'),
    relayerMinBalanceLamports: BigInt(e.RELAYER_MIN_BALANCE_LAMPORTS),
    challengeTtlSeconds: e.CHALLENGE_TTL_SECONDS,
    sessionTtlSeconds: e.SESSION_TTL_SECONDS,
    signInNonceTtlSeconds: e.SIGNIN_NONCE_TTL_SECONDS,
    freshSignatureSeconds: e.FRESH_SIGNATURE_SECONDS,
    httpRequestTimeoutSeconds: e.HTTP_REQUEST_TIMEOUT_SECONDS,
    auditAnchorSeconds: e.AUDIT_ANCHOR_SECONDS,
    batchWindowMs: e.BATCH_WINDOW_MS,
    batchLanes: e.BATCH_LANES,
    rateLimitGeneral: e.RATE_LIMIT_GENERAL_PER_MINUTE,
    rateLimitSignIn: e.RATE_LIMIT_SIGNIN_PER_MINUTE,
    rateLimitAcceptance: e.RATE_LIMIT_ACCEPTANCE_PER_MINUTE,
    rateLimitDnsCheck: e.RATE_LIMIT_DNS_CHECK_PER_MINUTE,
    trustProxy: e.TRUST_PROXY,
    ledgerSlotMs: e.LEDGER_SLOT_MS,
    ledgerSynchronous: e.LEDGER_SYNCHRONOUS as 'full' | 'normal',
    ledgerAirdropMaxLamports: BigInt(e.LEDGER_AIRDROP_MAX_LAMPORTS),
    ledgerAirdropsPerMinute: e.LEDGER_AIRDROPS_PER_MINUTE,
    rateLimitRpcCalls: e.RATE_LIMIT_RPC_CALLS_PER_MINUTE ?? e.RATE_LIMIT_GENERAL_PER_MINUTE,
    logLevel: e.LOG_LEVEL,
    secureCookies: e.SECURE_COOKIES ?? publicBaseUrl.startsWith('https://'),
    draftsOpenPerOrganization: positiveInteger('DRAFTS_OPEN_PER_ORGANIZATION', e.DRAFTS_OPEN_PER_ORGANIZATION),
    webhooksPerOrganization: positiveInteger('WEBHOOKS_PER_ORGANIZATION', e.WEBHOOKS_PER_ORGANIZATION),
    openChallengesPerSigner: positiveInteger('OPEN_CHALLENGES_PER_SIGNER', e.OPEN_CHALLENGES_PER_SIGNER),
    draftBytesPerOrganization: positiveInteger('DRAFT_BYTES_PER_ORGANIZATION', e.DRAFT_BYTES_PER_ORGANIZATION),
    runProjections: e.RUN_PROJECTIONS,
    checkEventLogOnStart: e.CHECK_EVENT_LOG_ON_START,
    runnerHeartbeatMs: e.RUNNER_HEARTBEAT_MS,
    dnsServers: e.DNS_SERVERS,
    webhooks: webhookConfig(env, dataDir),
  };
}

/** Injection token of the validated configuration. */
export const APP_CONFIG = Symbol('APP_CONFIG');

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number, got ${value}`);
  return value;
}
