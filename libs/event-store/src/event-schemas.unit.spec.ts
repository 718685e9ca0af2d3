/**
 * The JSON Schemas in `event-schemas/` against the domain's event union (libs/domain/src/events.ts):
 * one schema per type and version up to the current one (libs/domain/src/schema-versions.ts); the
 * current one has properties exactly the interface's fields, required = the non-optional fields,
 * null allowed exactly where the field type includes null; a sample of every type passes and broken
 * variants fail.
 *
 * The samples are typed `Required<DataOf<T>>`, so the compiler checks that they carry every field of
 * the interface and nothing else; OPTIONAL and NULLABLE are checked against the interfaces the same way.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EVENT_TYPES, type DataOf, type DomainEventType } from '../../domain/src/events';
import { CURRENT_SCHEMA_VERSION } from '../../domain/src/schema-versions';
import { EventSchemaRegistry } from './event-schema-registry';
import { EventSchemaError } from './event-store.port';

type OptionalKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? K : never }[keyof T];
type NullableKeys<T> = { [K in keyof T]-?: null extends T[K] ? K : never }[keyof T];
type KeySet<K extends PropertyKey> = { [P in K]: true };

const ADDR = (c: string) => c.repeat(44).slice(0, 44);
const A1 = ADDR('7');
const A2 = ADDR('8');
const A3 = ADDR('9');
const A4 = ADDR('A');
const SIG = 'x'.repeat(88);
const SIG2 = 'y'.repeat(87);
const H1 = 'a'.repeat(64);
const H2 = 'b'.repeat(64);
const H3 = 'c'.repeat(64);
const U1 = '2f1c6f5e-8a1b-4c3d-9e7f-0a1b2c3d4e5f';
const U2 = '3a2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d';
const U3 = '4b3c2d1e-0f9a-4b8c-9d7e-6f5a4b3c2d1e';
const NONCE = '0123456789abcdef0123456789abcdef';
const T1 = '2026-11-22T10:00:00Z';
const T2 = '2026-11-22T10:05:00.123Z';

const SAMPLES: { [T in DomainEventType]: Required<DataOf<T>> } = {
  OrganizationSynced: {
    organizationId: U1,
    address: A1,
    authority: A2,
    name: 'Acme',
    domain: 'acme.example',
    creationSignature: SIG,
    slot: 123,
    blockTime: 1_790_000_000,
    syncedBy: A2,
  },
  OrganizationRefreshed: { organizationId: U1, address: A1, transactionCount: 4, refreshedBy: A2 },
  DocumentSynced: {
    documentId: U2,
    address: A3,
    organizationId: U1,
    organization: A1,
    slug: 'terms-of-service',
    title: 'Terms of service',
    creationSignature: SIG,
    slot: 124,
    blockTime: null,
  },
  VersionPublished: {
    documentId: U2,
    document: A3,
    organizationId: U1,
    organization: A1,
    versionAddress: A4,
    number: 1,
    label: '2026-11',
    title: 'Terms of service',
    contentHash: H1,
    fingerprint: H2,
    effectiveAt: null,
    transactionSignature: SIG,
    slot: 200,
    blockTime: 1_790_000_100,
    publisher: A2,
    draftId: U3,
  },
  ContentStored: { contentHash: H1, text: '# Terms\n', byteLength: 8, mediaType: 'text/markdown' },
  DraftCreated: {
    draftId: U3,
    documentId: U2,
    organizationId: U1,
    title: 'Terms of service',
    versionLabel: 'v1',
    effectiveAt: 1_790_000_000,
    contentHash: H1,
    changeSummary: null,
    createdBy: A2,
  },
  DraftUpdated: { draftId: U3, title: 'Terms', versionLabel: 'v1.1', effectiveAt: null, contentHash: H2, changeSummary: 'typos' },
  DraftPrepared: { draftId: U3, number: 2, contentHash: H1, fingerprint: H2, preparedBy: A2 },
  DraftAbandoned: { draftId: U3, abandonedBy: A2 },
  DraftPublished: { draftId: U3, versionAddress: A4, transactionSignature: SIG },
  AcceptanceChallengeIssued: {
    challengeId: U1,
    organizationId: U1,
    organization: A1,
    documentId: U2,
    document: A3,
    documentSlug: 'terms',
    versionAddress: A4,
    versionNumber: 1,
    signer: A2,
    signerType: 'wallet',
    protocol: 'svc/1',
    message: 'I accept…',
    nonce: NONCE,
    clientBindingHash: H3,
    requestDomain: 'shop.example:8443',
    issuedAt: T1,
    expiresAt: T2,
    acceptanceSessionId: U3,
    externalUserRef: 'user-42',
    evidenceMode: 'MERKLE_BATCHED',
  },
  AcceptanceChallengeCompleted: { challengeId: U1, acceptanceId: H3 },
  AcceptanceSubmitted: {
    acceptanceId: H3,
    challengeId: U1,
    organizationId: U1,
    organization: A1,
    documentId: U2,
    document: A3,
    documentSlug: 'terms',
    versionAddress: A4,
    versionNumber: 1,
    signer: A2,
    signerType: 'wallet',
    protocol: 'svc/1',
    message: 'I accept…',
    signature: SIG2,
    requestDomain: 'shop.example',
    externalUserRef: null,
    evidenceMode: 'DIRECT_ONCHAIN',
    feePayer: A1,
    feeSponsor: 'svc',
    transactionSignature: SIG,
    transactionWire: 'AQID',
    lastValidBlockHeight: '123456789',
  },
  AcceptanceResigned: {
    acceptanceId: H3,
    transactionSignature: SIG2,
    transactionWire: 'AQID',
    lastValidBlockHeight: '123456999',
    replaces: SIG,
  },
  AcceptanceRelayed: {
    acceptanceId: H3,
    transactionSignature: SIG,
    slot: 300,
    blockTime: null,
    feeLamports: 5000,
    commitment: 'confirmed',
    batch: { lane: 3, sequence: 12, size: 1024, root: H1, leafIndex: 1023 },
  },
  AcceptanceRelayFailed: { acceptanceId: H3, transactionSignature: SIG, reason: 'blockhash expired', logs: ['Program log: x'] },
  AcceptanceFinalized: { acceptanceId: H3, transactionSignature: SIG, slot: 301 },
  SignInChallengeIssued: {
    nonce: NONCE,
    address: A2,
    message: 'Sign in to …',
    issuedAt: T1,
    expiresAt: T2,
    purpose: 'reauthenticate',
    sessionId: U2,
    domain: 'app.example.com',
    statement: 'Sign in to …',
    uri: 'https://app.example.com',
    chainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  },
  SignInCompleted: { nonce: NONCE, address: A2, sessionId: U2, signedAt: T2 },
  DashboardSessionStarted: { sessionId: U2, address: A2, tokenHash: H1, csrfHash: H2, signedAt: T1, expiresAt: T2 },
  DashboardSessionEnded: { sessionId: U2, reason: 'logout' },
  OrganizationSettingsChanged: {
    organizationId: U1,
    organization: A1,
    changes: { evidenceMode: 'DIRECT_ONCHAIN', products: { gate: true } },
    settings: {
      requireAcceptanceSessions: true,
      allowedRequestDomains: ['shop.example.com'],
      signingPolicy: 'WALLET_ONLY',
      feeSponsor: 'svc',
      sponsorFallbackToStele: true,
      sponsorLowBalanceLamports: 0,
      evidenceMode: 'DIRECT_ONCHAIN',
      products: { gate: true },
    },
    changedBy: A2,
  },
  ApiKeyCreated: {
    keyId: U3,
    organizationId: U1,
    organization: A1,
    name: 'Checkout server',
    scopes: ['acceptances:read', 'acceptances:write'],
    keyPrefix: 'svc_test_Ab3_',
    keyHash: H1,
    createdAt: T1,
    expiresAt: T2,
    createdBy: A2,
  },
  ApiKeyRevoked: { keyId: U3, organizationId: U1, revokedAt: T2, revokedBy: A2 },
  AcceptanceSessionCreated: {
    acceptanceSessionId: U3,
    organizationId: U1,
    organization: A1,
    document: A3,
    externalUserRef: 'user-42',
    tokenHash: H2,
    createdAt: T1,
    expiresAt: T2,
    keyId: U2,
  },
  AcceptanceSessionConsumed: { acceptanceSessionId: U3, acceptanceId: H3, challengeId: U1 },
  AcceptanceSessionReleased: { acceptanceSessionId: U3, acceptanceId: H3 },
  MemberChanged: {
    organizationId: U1,
    organization: A1,
    member: A3,
    roles: ['admin', 'publisher'],
    active: true,
    change: 'added',
    transactionSignature: SIG,
    slot: 120,
    blockTime: null,
  },
  MemberLabelSet: { organizationId: U1, member: A3, label: null, setBy: A2 },
  DomainVerificationStarted: {
    verificationId: U3,
    organizationId: U1,
    organization: A1,
    domain: 'acme.example',
    recordName: '_svc-verification.acme.example',
    recordValue: `svc-verification=${NONCE}`,
    startedBy: A2,
    startedAt: T1,
    checkBefore: T2,
  },
  DomainVerified: { verificationId: U3, organizationId: U1, organization: A1, domain: 'acme.example', verifiedAt: T1, expiresAt: T2, checkedBy: A2 },
  DomainVerificationRevoked: { verificationId: U3, organizationId: U1, domain: 'acme.example', revokedBy: A2 },
  ShardSynced: {
    organizationId: U1,
    organization: A1,
    shard: A4,
    operator: A3,
    creationSignature: SIG,
    slot: 130,
    blockTime: null,
    balanceLamports: 51_000_000,
    rentExemptLamports: 1_447_680,
    syncedBy: A2,
  },
  DashboardSessionReauthenticated: { sessionId: U2, nonce: NONCE, signedAt: T2 },
  AuditEntryAppended: {
    organizationId: U1,
    sequence: 3,
    occurredAt: T1,
    actor: `wallet:${A2}`,
    action: 'api_key.created',
    subject: U3,
    details: { name: 'Checkout server', scopes: ['acceptances:read'] },
    sourceEventId: U2,
    previousHash: H1,
    hash: H2,
  },
  AuditAnchorRequested: { organizationId: U1, organization: A1, sequence: 3, head: H2, transactionSignature: SIG, transactionWire: 'AQID', lastValidBlockHeight: '150' },
  AuditHeadAnchored: { organizationId: U1, sequence: 3, head: H2, transactionSignature: SIG, slot: 42, blockTime: null },
  AuditAnchorFailed: { organizationId: U1, sequence: 3, transactionSignature: SIG, reason: 'blockhash expired' },
  WebhookEndpointCreated: {
    webhookId: U2,
    organizationId: U1,
    organization: A1,
    url: 'https://hooks.example.com/svc',
    description: null,
    events: ['agreement.accepted'],
    sealedSecret: `v1.${'A'.repeat(16)}.${'B'.repeat(22)}.${'C'.repeat(60)}`,
    secretPrefix: 'whsec_Ab3d',
    createdAt: T1,
    createdBy: A2,
  },
  WebhookEndpointUpdated: { webhookId: U2, organizationId: U1, changes: { status: 'disabled' }, status: 'disabled', events: ['agreement.accepted'], updatedAt: T2, updatedBy: A2 },
  WebhookSecretRotated: { webhookId: U2, organizationId: U1, sealedSecret: `v1.${'A'.repeat(16)}.${'B'.repeat(22)}.${'D'.repeat(60)}`, secretPrefix: 'whsec_Zz9_', rotatedAt: T2, rotatedBy: A2 },
  WebhookEndpointDeleted: { webhookId: U2, organizationId: U1, deletedAt: T2, deletedBy: A2 },
  WebhookTestRequested: { webhookId: U2, organizationId: U1, requestedAt: T2, requestedBy: A2 },
  WebhookDeliveryScheduled: {
    deliveryId: U3,
    webhookId: U2,
    organizationId: U1,
    payload: { id: `evt_${'0f'.repeat(16)}`, type: 'webhook.test', createdAt: T1, organizationId: U1, data: { message: 'test' } },
    dueAt: T1,
  },
  WebhookDeliveryAttempted: {
    deliveryId: U3,
    webhookId: U2,
    organizationId: U1,
    attempt: 1,
    attemptedAt: T1,
    durationMs: 12,
    statusCode: 500,
    error: 'answered 500',
    succeeded: false,
    nextAttemptAt: T2,
  },
  WebhookDeliveryCancelled: { deliveryId: U3, webhookId: U2, organizationId: U1, reason: 'endpoint_disabled', cancelledAt: T2 },
  AcceptanceBatched: { acceptanceId: H3, lane: 0, sequence: 1 },
  BatchClosed: {
    lane: 255,
    sequence: 3,
    root: H1,
    leaves: [{ acceptanceId: H3, acceptanceStream: `acceptance-${A4}-${A2}`, message: 'svc/1 acceptance', signature: SIG2, signer: A2, versionAddress: A4 }],
    feePayer: A1,
    transactionSignature: SIG,
    transactionWire: 'AQID',
    lastValidBlockHeight: '123456789',
    closedAt: T1,
  },
  BatchResigned: { transactionSignature: SIG2, transactionWire: 'AQID', lastValidBlockHeight: '123456999', replaces: SIG },
  BatchAnchored: { transactionSignature: SIG, slot: 300, blockTime: null, feeLamports: 5000 },
};

const OPTIONAL: { [T in DomainEventType]: KeySet<OptionalKeys<DataOf<T>>> } = {
  OrganizationSynced: {},
  OrganizationRefreshed: {},
  DocumentSynced: {},
  VersionPublished: {},
  ContentStored: {},
  DraftCreated: {},
  DraftUpdated: { title: true, versionLabel: true, effectiveAt: true, contentHash: true, changeSummary: true },
  DraftPrepared: {},
  DraftAbandoned: {},
  DraftPublished: {},
  AcceptanceChallengeIssued: {},
  AcceptanceChallengeCompleted: {},
  AcceptanceSubmitted: {},
  AcceptanceResigned: {},
  AcceptanceRelayed: {},
  AcceptanceRelayFailed: {},
  AcceptanceFinalized: {},
  SignInChallengeIssued: {},
  SignInCompleted: {},
  DashboardSessionStarted: {},
  DashboardSessionEnded: {},
  OrganizationSettingsChanged: {},
  ApiKeyCreated: {},
  ApiKeyRevoked: {},
  AcceptanceSessionCreated: {},
  AcceptanceSessionConsumed: {},
  AcceptanceSessionReleased: {},
  MemberChanged: {},
  MemberLabelSet: {},
  DomainVerificationStarted: {},
  DomainVerified: {},
  DomainVerificationRevoked: {},
  ShardSynced: {},
  DashboardSessionReauthenticated: {},
  AuditEntryAppended: {},
  AuditAnchorRequested: {},
  AuditHeadAnchored: {},
  AuditAnchorFailed: {},
  WebhookEndpointCreated: {},
  WebhookEndpointUpdated: {},
  WebhookSecretRotated: {},
  WebhookEndpointDeleted: {},
  WebhookTestRequested: {},
  WebhookDeliveryScheduled: {},
  WebhookDeliveryAttempted: {},
  WebhookDeliveryCancelled: {},
  AcceptanceBatched: {},
  BatchClosed: {},
  BatchResigned: {},
  BatchAnchored: {},
};

const NULLABLE: { [T in DomainEventType]: KeySet<NullableKeys<DataOf<T>>> } = {
  OrganizationSynced: { domain: true, blockTime: true },
  OrganizationRefreshed: {},
  DocumentSynced: { blockTime: true },
  VersionPublished: { effectiveAt: true, blockTime: true, draftId: true },
  ContentStored: {},
  DraftCreated: { effectiveAt: true, changeSummary: true },
  DraftUpdated: { effectiveAt: true, changeSummary: true },
  DraftPrepared: {},
  DraftAbandoned: {},
  DraftPublished: {},
  AcceptanceChallengeIssued: { acceptanceSessionId: true, externalUserRef: true },
  AcceptanceChallengeCompleted: {},
  AcceptanceSubmitted: { externalUserRef: true, transactionSignature: true, transactionWire: true, lastValidBlockHeight: true },
  AcceptanceResigned: {},
  AcceptanceRelayed: { blockTime: true, batch: true },
  AcceptanceRelayFailed: {},
  AcceptanceFinalized: {},
  SignInChallengeIssued: { sessionId: true },
  SignInCompleted: {},
  DashboardSessionStarted: {},
  DashboardSessionEnded: {},
  OrganizationSettingsChanged: {},
  ApiKeyCreated: { expiresAt: true },
  ApiKeyRevoked: {},
  AcceptanceSessionCreated: { document: true, externalUserRef: true },
  AcceptanceSessionConsumed: {},
  AcceptanceSessionReleased: {},
  MemberChanged: { blockTime: true },
  MemberLabelSet: { label: true },
  DomainVerificationStarted: {},
  DomainVerified: {},
  DomainVerificationRevoked: {},
  ShardSynced: { blockTime: true },
  DashboardSessionReauthenticated: {},
  AuditEntryAppended: { subject: true },
  AuditAnchorRequested: {},
  AuditHeadAnchored: { blockTime: true },
  AuditAnchorFailed: {},
  WebhookEndpointCreated: { description: true },
  WebhookEndpointUpdated: {},
  WebhookSecretRotated: {},
  WebhookEndpointDeleted: {},
  WebhookTestRequested: {},
  WebhookDeliveryScheduled: {},
  WebhookDeliveryAttempted: { statusCode: true, error: true, nextAttemptAt: true },
  WebhookDeliveryCancelled: {},
  AcceptanceBatched: {},
  BatchClosed: {},
  BatchResigned: {},
  BatchAnchored: { blockTime: true },
};

/** Per type, a value that must fail for some field (a format or pattern the schema enforces). */
const BAD_FIELD: { [T in DomainEventType]?: [keyof DataOf<T> & string, unknown] } = {
  OrganizationSynced: ['address', '0OIl'.repeat(11)],
  VersionPublished: ['contentHash', 'A'.repeat(64)],
  DraftCreated: ['draftId', 'not-a-uuid'],
  AcceptanceChallengeIssued: ['issuedAt', '22/11/2026'],
  AcceptanceSubmitted: ['signerType', 'passkey'],
  AcceptanceRelayed: ['slot', 1.5],
  DashboardSessionEnded: ['reason', 'kicked'],
  SignInChallengeIssued: ['nonce', 'xyz'],
  SignInCompleted: ['signedAt', '2026-11-22T11:00:00+01:00'],
  MemberChanged: ['roles', ['owner']],
  MemberLabelSet: ['label', 'x'.repeat(81)],
  DomainVerified: ['domain', 'Acme.Example'],
  DashboardSessionReauthenticated: ['nonce', 'xyz'],
  AuditEntryAppended: ['sequence', 0],
  WebhookEndpointCreated: ['url', 'http://hooks.example.com/svc'],
  WebhookDeliveryAttempted: ['attempt', 11],
};

const SCHEMA_DIR = EventSchemaRegistry.defaultDirectory();
const registry = EventSchemaRegistry.fromDirectory(SCHEMA_DIR);

/** The schema file of the version `type` is written with today. */
function schemaOf(type: DomainEventType): { required: string[]; properties: Record<string, unknown>; $id: string } {
  return JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, `${type}.v${CURRENT_SCHEMA_VERSION[type]}.json`), 'utf8'));
}

function expectInvalid(type: DomainEventType, data: unknown): void {
  expect(() => registry.validate(type, CURRENT_SCHEMA_VERSION[type], data)).toThrow(EventSchemaError);
}

function expectValid(type: DomainEventType, data: unknown): void {
  expect(() => registry.validate(type, CURRENT_SCHEMA_VERSION[type], data)).not.toThrow();
}

/** Every (type, version) from 1 to the current version of each type, sorted like `registry.list()`. */
const ALL_VERSIONS = [...EVENT_TYPES]
  .sort()
  .flatMap((type) => Array.from({ length: CURRENT_SCHEMA_VERSION[type] }, (_, i) => ({ type, version: i + 1 })));

describe('event-schemas/', () => {
  it('is found from this file by walking up to the repository root', () => {
    expect(path.basename(SCHEMA_DIR)).toBe('event-schemas');
    expect(fs.existsSync(path.join(SCHEMA_DIR, '..', 'package.json'))).toBe(true);
    expect(EventSchemaRegistry.fromDirectory().list()).toEqual(registry.list());
  });

  it('has one schema per domain event type and version up to the current one, and nothing else', () => {
    const files = fs.readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.json')).sort();
    expect(files).toEqual(ALL_VERSIONS.map(({ type, version }) => `${type}.v${version}.json`).sort());
    expect(registry.list()).toEqual(ALL_VERSIONS);
    expect(Object.keys(SAMPLES).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('compiles every schema of every version (each refuses an empty object as invalid data, not as a schema error)', () => {
    const fresh = EventSchemaRegistry.fromDirectory(SCHEMA_DIR);
    const problems = ALL_VERSIONS.flatMap(({ type, version }) => {
      try {
        fresh.validate(type, version, {});
        return [`${type}.v${version}: accepted {}`];
      } catch (err) {
        return err instanceof EventSchemaError ? [] : [`${type}.v${version}: ${(err as Error).message}`];
      }
    });
    expect(problems).toEqual([]);
  });

  it('compiles a schema when first used: a registry with a schema that does not compile is built, and refuses that type only, naming it', () => {
    const broken = { $id: 'Broken.v1.json', type: 'object', properties: { a: { type: 'no-such-type' } } };
    const fine = { $id: 'Fine.v1.json', type: 'object', required: ['a'], properties: { a: { type: 'string' } } };
    const mixed = new EventSchemaRegistry([
      { type: 'Broken', version: 1, schema: broken },
      { type: 'Fine', version: 1, schema: fine },
    ]);
    expect(mixed.list()).toEqual([
      { type: 'Broken', version: 1 },
      { type: 'Fine', version: 1 },
    ]);
    expect(() => mixed.validate('Fine', 1, { a: 'x' })).not.toThrow();
    expect(() => mixed.validate('Fine', 1, {})).toThrow(EventSchemaError);
    expect(() => mixed.validate('Broken', 1, { a: 'x' })).toThrow(/^event schema Broken\.v1 does not compile: /);
  });

  it('keeps SignInCompleted v1 frozen: the v2 sample without signedAt passes v1, with it fails', () => {
    const { signedAt: _signedAt, ...v1 } = SAMPLES.SignInCompleted;
    expect(() => registry.validate('SignInCompleted', 1, v1)).not.toThrow();
    expect(() => registry.validate('SignInCompleted', 1, SAMPLES.SignInCompleted)).toThrow(EventSchemaError);
    expectInvalid('SignInCompleted', v1);
  });

  describe.each([...EVENT_TYPES])('%s', (type) => {
    const sample = SAMPLES[type] as Record<string, unknown>;
    const optional = Object.keys(OPTIONAL[type]);
    const nullable = Object.keys(NULLABLE[type]);
    const schema = schemaOf(type);

    it('names itself in $id; properties = the interface fields; required = the non-optional ones', () => {
      expect(schema.$id).toBe(`${type}.v${CURRENT_SCHEMA_VERSION[type]}.json`);
      expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(sample).sort());
      expect([...schema.required].sort()).toEqual(Object.keys(sample).filter((k) => !optional.includes(k)).sort());
    });

    it('accepts a valid sample (and the sample without its optional fields)', () => {
      expectValid(type, sample);
      const minimal = Object.fromEntries(Object.entries(sample).filter(([k]) => !optional.includes(k)));
      expectValid(type, minimal);
    });

    it('rejects a missing required field, an unknown field, and a wrong type', () => {
      for (const key of schema.required) {
        const { [key]: _removed, ...rest } = sample;
        expectInvalid(type, rest);
      }
      expectInvalid(type, { ...sample, unexpected: 1 });
      const firstKey = Object.keys(sample)[0]!;
      expectInvalid(type, { ...sample, [firstKey]: { nested: true } });
      expectInvalid(type, null);
      expectInvalid(type, []);
    });

    it('allows null exactly for the `T | null` fields', () => {
      for (const key of Object.keys(sample)) {
        if (nullable.includes(key)) expectValid(type, { ...sample, [key]: null });
        else expectInvalid(type, { ...sample, [key]: null });
      }
    });

    const bad = BAD_FIELD[type];
    if (bad) {
      it(`enforces the format of ${bad[0]}`, () => {
        expectInvalid(type, { ...sample, [bad[0]]: bad[1] });
      });
    }
  });

  it('an unknown type or schema version is an error', () => {
    expect(() => registry.validate('NoSuchEvent', 1, {})).toThrow(EventSchemaError);
    expect(() => registry.validate('DraftAbandoned', 2, SAMPLES.DraftAbandoned)).toThrow(/no schema/);
  });

  it('validates the metadata shape', () => {
    const good = {
      correlationId: 'req-1',
      causationId: 'req-1',
      actor: 'wallet:' + A2,
      schemaVersion: 1,
      occurredAt: T1,
    };
    expect(() => registry.validateEvent({ type: 'DraftAbandoned', data: SAMPLES.DraftAbandoned, metadata: good })).not.toThrow();
    const broken: unknown[] = [
      { ...good, schemaVersion: 0 },
      { ...good, schemaVersion: 1.5 },
      { ...good, occurredAt: 'now' },
      { ...good, actor: 'nobody' },
      { ...good, correlationId: '' },
      { ...good, extra: true },
      (({ causationId: _c, ...rest }) => rest)(good),
      null,
    ];
    for (const metadata of broken) {
      expect(() => registry.validateEvent({ type: 'DraftAbandoned', data: SAMPLES.DraftAbandoned, metadata })).toThrow(
        EventSchemaError,
      );
    }
  });
});
