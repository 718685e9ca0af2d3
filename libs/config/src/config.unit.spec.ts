import * as path from 'node:path';
import { loadConfig } from './config';

describe('configuration', () => {
  it('needs no variable for the embedded default and applies the spec limits', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.dataDir).toBe(path.resolve('./data'));
    expect(c.publicBaseUrl).toBe('http://localhost:3000');
    expect(c.publicRpcUrls).toEqual(['http://localhost:3000/rpc']);
    expect([c.eventStoreUrl, c.mongodbUrl, c.ledgerRpcUrl]).toEqual([undefined, undefined, undefined]);
    expect([c.rateLimitGeneral, c.rateLimitSignIn, c.rateLimitAcceptance, c.rateLimitDnsCheck]).toEqual([300, 20, 30, 10]);
    expect([c.signInNonceTtlSeconds, c.freshSignatureSeconds]).toEqual([600, 600]);
    expect(c.httpRequestTimeoutSeconds).toBe(120);
    expect(c.trustProxy).toBe(false);
    expect(c.relayerKeypairPath).toBe(path.resolve('./data/keys/relayer.json'));
  });

  it('bounds the time a client has to send a request: 1 to 3,600 seconds', () => {
    expect(loadConfig({ HTTP_REQUEST_TIMEOUT_SECONDS: '30' }).httpRequestTimeoutSeconds).toBe(30);
    for (const bad of ['0', '3601', '1.5', 'never']) expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_SECONDS: bad })).toThrow(/HTTP_REQUEST_TIMEOUT_SECONDS/);
  });

  it('announces the cluster RPC when a production ledger is configured', () => {
    const c = loadConfig({ LEDGER_RPC_URL: 'http://validator:8899', PUBLIC_BASE_URL: 'https://svc.example.com/' });
    expect(c.publicBaseUrl).toBe('https://svc.example.com');
    expect(c.appOrigin).toBe('https://svc.example.com');
    expect(c.publicRpcUrls).toEqual(['http://validator:8899']);
    expect(c.secureCookies).toBe(true);
    expect(c.cluster).toBe('devnet');
  });

  it('does not announce a ledger URL with a query string (a provider key) unless PUBLIC_RPC_URLS says what to announce', () => {
    const keyed = 'https://rpc.example.net/?api-key=k3y-s3cr3t';
    expect(() => loadConfig({ LEDGER_RPC_URL: keyed })).toThrow(/PUBLIC_RPC_URLS must be set when LEDGER_RPC_URL has a query string/);
    expect(() => loadConfig({ LEDGER_RPC_URL: keyed })).not.toThrow(/k3y-s3cr3t/);
    const c = loadConfig({ LEDGER_RPC_URL: keyed, PUBLIC_RPC_URLS: 'https://api.devnet.solana.com' });
    expect(c.ledgerRpcUrl).toBe(keyed);
    expect(c.publicRpcUrls).toEqual(['https://api.devnet.solana.com']);
  });

  it('refuses a ledger URL with user:password, or not http(s), without repeating it', () => {
    expect(() => loadConfig({ LEDGER_RPC_URL: 'http://user:pa55word@rpc.example.net/' })).toThrow(/LEDGER_RPC_URL: must not carry user:password@/);
    expect(() => loadConfig({ LEDGER_RPC_URL: 'http://user:pa55word@rpc.example.net/' })).not.toThrow(/pa55word/);
    expect(() => loadConfig({ LEDGER_RPC_URL: 'ws://rpc.example.net/' })).toThrow(/LEDGER_RPC_URL: must be an http or https URL/);
    expect(() => loadConfig({ LEDGER_RPC_URL: 'not a url pa55word' })).toThrow(/LEDGER_RPC_URL: is not a valid URL/);
    expect(() => loadConfig({ LEDGER_RPC_URL: 'not a url pa55word' })).not.toThrow(/pa55word/);
  });

  it('takes MongoDB connection strings with a replica set host list or SRV, and never repeats a bad one', () => {
    const replicaSet = 'mongodb://svc:pa55word@db1:27017,db2:27017,db3/evidence?replicaSet=rs0&authSource=admin';
    expect(loadConfig({ MONGODB_URL: replicaSet }).mongodbUrl).toBe(replicaSet);
    expect(loadConfig({ MONGODB_URL: 'mongodb+srv://svc:pa55word@cluster0.example.net/evidence' }).mongodbUrl).toBe('mongodb+srv://svc:pa55word@cluster0.example.net/evidence');
    for (const bad of ['http://svc:pa55word@db1/evidence', 'mongodb://', 'svc:pa55word@db1']) {
      expect(() => loadConfig({ MONGODB_URL: bad })).toThrow(/MONGODB_URL: must be a mongodb:\/\/ or mongodb\+srv:\/\/ connection string/);
      expect(() => loadConfig({ MONGODB_URL: bad })).not.toThrow(/pa55word/);
    }
  });

  it('takes EventStoreDB connection strings and never repeats a bad one', () => {
    expect(loadConfig({ EVENTSTORE_URL: 'esdb://admin:pa55word@es1:2113,es2:2113?tls=true' }).eventStoreUrl).toBe('esdb://admin:pa55word@es1:2113,es2:2113?tls=true');
    expect(loadConfig({ EVENTSTORE_URL: 'esdb+discover://cluster.example.net:2113' }).eventStoreUrl).toBe('esdb+discover://cluster.example.net:2113');
    for (const bad of ['http://admin:pa55word@es1:2113', 'admin:pa55word@es1']) {
      expect(() => loadConfig({ EVENTSTORE_URL: bad })).toThrow(/EVENTSTORE_URL: must be an esdb:\/\/ or esdb\+discover:\/\/ connection string/);
      expect(() => loadConfig({ EVENTSTORE_URL: bad })).not.toThrow(/pa55word/);
    }
  });

  it('refuses EventStoreDB options the client would print the whole connection string for, naming the key only', () => {
    const printed = jest.spyOn(console, 'warn');
    try {
      // What the client takes without a word: its options in any case, a password holding "?" or an escaped "@".
      for (const known of [
        'esdb://admin:pa55word@es1:2113?tls=true&TLS_CA_FILE=%2Fca.pem&node-preference=leader&keepAliveInterval=10000',
        'esdb://admin:abc?def@es1:2113?tls=false',
        'esdb://admin:p%40ss@es1:2113/?tls=false&dnsDiscover=false',
      ]) {
        expect(loadConfig({ EVENTSTORE_URL: known }).eventStoreUrl).toBe(known);
      }
      expect(printed).not.toHaveBeenCalled();
      // What it would print whole: unknown keys (dnsDiscover is known to it in that spelling only), empty pairs, an
      // unsupported tlsVerifyCert=false; and what it cannot parse at all.
      const refusals: Array<[string, RegExp]> = [
        ['esdb://admin:pa55word@es1:2113?tls=true&tlsCaFiel=/ca.pem', /has an option the EventStoreDB client does not know, "tlsCaFiel"/],
        ['esdb://admin:pa55word@es1:2113?dnsdiscover=true', /has an option the EventStoreDB client does not know, "dnsdiscover"/],
        ['esdb://admin:pa55word@es1:2113?&tls=true', /has a query the EventStoreDB client does not understand/],
        ['esdb://admin:pa55word@es1:2113?tls=true&tlsVerifyCert=false', /has tlsVerifyCert=false, which the EventStoreDB client does not support/],
        ['esdb://admin:pa55word@es1:2113?tls=false&', /is not a connection string the EventStoreDB client can parse/],
      ];
      for (const [bad, reason] of refusals) {
        expect(() => loadConfig({ EVENTSTORE_URL: bad })).toThrow(reason);
        expect(() => loadConfig({ EVENTSTORE_URL: bad })).not.toThrow(/pa55word/);
      }
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
    }
  });

  it('parses TRUST_PROXY as a flag or a list of addresses, and refuses a hop count', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(() => loadConfig({ TRUST_PROXY: '2' })).toThrow(/TRUST_PROXY: no longer takes a hop count/);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toBe('10.0.0.0/8, 127.0.0.1');
  });

  it('reads DNS_SERVERS as resolver addresses with optional ports, default the system resolvers', () => {
    expect(loadConfig({}).dnsServers).toBeUndefined();
    expect(loadConfig({ DNS_SERVERS: '127.0.0.1:5353, 9.9.9.9,::1,[::1]:53' }).dnsServers).toEqual(['127.0.0.1:5353', '9.9.9.9', '::1', '[::1]:53']);
    for (const bad of ['dns.example.com', '127.0.0.1:0', '127.0.0.1:70000', '[127.0.0.1]:53', ' , ', '::1:53x']) {
      expect(() => loadConfig({ DNS_SERVERS: bad })).toThrow(/DNS_SERVERS/);
    }
  });

  it('refuses bad values with a message naming each variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'not a url' })).toThrow(/PUBLIC_BASE_URL/);
    expect(() => loadConfig({ RATE_LIMIT_GENERAL_PER_MINUTE: '0' })).toThrow(/RATE_LIMIT_GENERAL_PER_MINUTE must be a positive integer/);
    expect(() => loadConfig({ TRUST_PROXY: 'sometimes' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => loadConfig({ RELAYER_MIN_BALANCE_LAMPORTS: '-1' })).toThrow(/RELAYER_MIN_BALANCE_LAMPORTS/);
  });

  it('reads the webhook settings; the test-only ones are honoured under NODE_ENV=test and refused otherwise', () => {
    const c = loadConfig({ DATA_DIR: '/srv/svc' });
    expect(c.webhooks).toEqual({ secretsKey: undefined, secretsKeyPath: '/srv/svc/keys/webhook-secrets.key', allowLoopback: false, testCaFile: undefined, retryScale: 1, timeoutMs: 10_000 });
    const test = { WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_TEST_CA_FILE: '/tmp/ca.pem', WEBHOOK_RETRY_SCALE: '0.001', WEBHOOK_TIMEOUT_MS: '400' };
    expect(loadConfig(test).webhooks).toMatchObject({ allowLoopback: true, testCaFile: '/tmp/ca.pem', retryScale: 0.001, timeoutMs: 400 });
    expect(() => loadConfig({ WEBHOOK_SECRETS_KEY: Buffer.alloc(16).toString('base64') })).toThrow(/WEBHOOK_SECRETS_KEY/);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '20000' })).toThrow(/WEBHOOK_TIMEOUT_MS/);
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      for (const [name, value] of Object.entries(test)) expect(() => loadConfig({ [name]: value, NODE_ENV: 'test' })).toThrow(new RegExp(`${name} is a test setting`));
      expect(loadConfig({ WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') }).webhooks.secretsKey).toEqual(Buffer.alloc(32, 7));
    } finally {
      process.env.NODE_ENV = previous;
    }
  });
});

describe('RUNNER_HEARTBEAT_MS', () => {
  it('defaults to 5,000 ms and is refused outside 100 to 60,000, named once', () => {
    expect(loadConfig({}).runnerHeartbeatMs).toBe(5_000);
    expect(loadConfig({ RUNNER_HEARTBEAT_MS: '200' }).runnerHeartbeatMs).toBe(200);
    expect(() => loadConfig({ RUNNER_HEARTBEAT_MS: '50' })).toThrow('invalid configuration: RUNNER_HEARTBEAT_MS: must be a whole number from 100 to 60000, got "50"');
  });
});
