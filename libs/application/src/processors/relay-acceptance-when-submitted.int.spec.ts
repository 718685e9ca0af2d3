/**
 * The direct-mode relay does not re-sign a transaction whose message's validity window has closed (docs/architecture.md
 * "Relay"): the re-signed transaction would land after `expires-at` plus the verifier's 120 s, and its receipt could
 * never verify. The acceptance is recorded as failed instead, so its signer can accept again. (A landing outside the
 * window is covered end to end by test/validity-window.e2e.spec.ts; this case needs a blockhash that expired unlanded,
 * which a ledger stand-in gives at once.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { acceptanceDecider, CURRENT_SCHEMA_VERSION, type AcceptanceSubmittedData } from '@svc/domain';
import { acceptanceIdOf, buildAcceptanceMessage } from '@svc/evidence';
import { EventSchemaRegistry, SqliteEventStore } from '@svc/event-store';
import { LedgerError, LedgerErrorCode, type Ledger } from '@svc/ledger';
import type { AcceptanceRelay } from '../shared/acceptance-relay.service';
import { Decisions } from '../shared/decisions.service';
import { RelayOutcomes } from '../shared/relay-outcomes';
import type { StoredDomainEvent } from '../shared/stored-events';
import { RelayAcceptanceWhenSubmitted } from './relay-acceptance-when-submitted.processor';

const ORG = '4pBRVjzWPo7UkGdVLeHfN8mggVdcvLKJr8W6jXkWyzrQ';
const DOC = '4zLzLDH8mke39xHACheZ4GMohY8YPy1PAALTSEoua8nJ';
const VERSION = 'CaZcMN33CtkoWP8jheoUhgax6Efd9Mdi17Vpvfbkw6t7';
const SIGNER = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
const RELAYER = 'AqyK4FZgYamktqCdcM1HvrnNAtCBVaqKxGkjPtPxHE8x';
const TX = '64rA229PupjmPMspG9qNSeWZujcw86DrNRWDiUz2rnZHHdDLE86w2pemveZeaUFs1P8Dx9psAAPMnfrrHwe4WRhE';
const STREAM = `acceptance-${VERSION}-${SIGNER}`;

/** A direct-mode submission whose message was issued `issuedSecondsAgo` ago and open for five minutes. */
function submission(issuedSecondsAgo: number): AcceptanceSubmittedData {
  const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  const issued = Date.now() - issuedSecondsAgo * 1000;
  const message = buildAcceptanceMessage({
    protocol: 'svc/1',
    requestDomain: 'shop.example.com',
    chainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    organization: ORG,
    document: DOC,
    versionAddress: VERSION,
    versionNumber: 1,
    contentHash: 'a'.repeat(64),
    fingerprint: 'b'.repeat(64),
    signer: SIGNER,
    nonce: 'd8787e707fb26860671049c586323614',
    issuedAt: iso(issued),
    expiresAt: iso(issued + 300_000),
  });
  return {
    acceptanceId: acceptanceIdOf(message),
    challengeId: '462d08b9-7845-43be-87de-83b7663b43c3',
    organizationId: '8fc47f29-9ca7-409c-8480-64f3da4cd423',
    organization: ORG,
    documentId: 'e8130f50-a43d-41d7-a0b5-c420ed2b9430',
    document: DOC,
    documentSlug: 'terms-of-service',
    versionAddress: VERSION,
    versionNumber: 1,
    signer: SIGNER,
    signerType: 'wallet',
    protocol: 'svc/1',
    message,
    signature: '3CPV3RQDD23e3tHN8FKtE9JSgvfM1RiwXvyoXF46NWtoGGxNFcMn9f7A6o5Z9JS7y3bSkGyzNCgMyZDKZcm5kHfB',
    requestDomain: 'shop.example.com',
    externalUserRef: null,
    evidenceMode: 'DIRECT_ONCHAIN',
    feePayer: RELAYER,
    feeSponsor: 'svc',
    transactionSignature: TX,
    transactionWire: 'nCYLrL7rJ2EU8kF1v8yCCqYo05GlKCVkKL8uXs16Ejv+iJyUVb+QGw==',
    lastValidBlockHeight: '3120605',
  };
}

/** A ledger on which every send finds its blockhash expired and nothing landed: the relay must decide to re-sign or not. */
const expiringLedger = {
  sendTransaction: async () => {
    throw new LedgerError(LedgerErrorCode.BlockhashNotFound, 'Blockhash not found');
  },
  getSignatureStatuses: async () => [null],
} as Pick<Ledger, 'sendTransaction' | 'getSignatureStatuses'>;

describe('the direct-mode relay and the validity window', () => {
  let dir: string;
  let store: SqliteEventStore;
  let decisions: Decisions;
  let resigned: number;
  let processor: RelayAcceptanceWhenSubmitted;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-relay-window-'));
    store = new SqliteEventStore({ file: path.join(dir, 'events.sqlite'), schemas: EventSchemaRegistry.fromDirectory() });
    decisions = new Decisions(store);
    resigned = 0;
    const relay = {
      resign: async () => {
        resigned++;
        throw new Error('re-signing is not expected here');
      },
    } as Pick<AcceptanceRelay, 'resign'> as AcceptanceRelay;
    processor = new RelayAcceptanceWhenSubmitted(decisions, relay, new RelayOutcomes(store, { runProjections: true }), expiringLedger as Ledger, { now: () => new Date() });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const submitted = async (data: AcceptanceSubmittedData): Promise<StoredDomainEvent<never>> => {
    await store.append(STREAM, [{ type: 'AcceptanceSubmitted', data, metadata: { correlationId: '866bbc67-19b3-49ae-93f6-563e6f61b5e2', causationId: '866bbc67-19b3-49ae-93f6-563e6f61b5e2', actor: 'challenge:462d08b9-7845-43be-87de-83b7663b43c3', schemaVersion: CURRENT_SCHEMA_VERSION.AcceptanceSubmitted, occurredAt: new Date().toISOString() } }], 'no_stream');
    const [event] = await store.readStream(STREAM);
    return event as unknown as StoredDomainEvent<never>;
  };

  it("records the acceptance as failed, without re-signing, once the window's last valid landing time has passed", async () => {
    // Issued 10 minutes ago, expired 5 minutes ago: past expires-at plus 120 s.
    await processor.handle(await submitted(submission(600)));
    const { state } = await decisions.load(STREAM, acceptanceDecider);
    expect(state.status).toBe('failed');
    expect(resigned).toBe(0);
    const events = await store.readStream(STREAM);
    expect(events.map((e) => e.type)).toEqual(['AcceptanceSubmitted', 'AcceptanceRelayFailed']);
    expect((events[1]!.data as { reason: string }).reason).toMatch(/validity window .* closed before the transaction landed/);
  });

  it('still re-signs while the window is open', async () => {
    // Issued a minute ago: the re-signing is attempted (this stand-in relay refuses it, so the handler rejects).
    await expect(processor.handle(await submitted(submission(60)))).rejects.toThrow('re-signing is not expected here');
    expect(resigned).toBe(1);
  });
});
