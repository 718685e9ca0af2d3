/**
 * Upcasting on read: each upcaster alone, and the chain `upcast` up to CURRENT_SCHEMA_VERSION.
 */
import { EVENT_TYPES } from './events';
import { CURRENT_SCHEMA_VERSION, isDomainEventType } from './schema-versions';
import {
  UPCASTERS,
  acceptanceChallengeIssuedV2ToV3,
  acceptanceRelayedV1ToV2,
  acceptanceSubmittedV1ToV2,
  signInChallengeIssuedV1ToV2,
  signInCompletedV1ToV2,
  upcast,
} from './upcasters';

const V1 = { nonce: '0123456789abcdef0123456789abcdef', address: '7'.repeat(44), sessionId: '2f1c6f5e-8a1b-4c3d-9e7f-0a1b2c3d4e5f' };

describe('signInCompletedV1ToV2', () => {
  it('adds signedAt from metadata.occurredAt, in UTC, and keeps the other fields', () => {
    expect(signInCompletedV1ToV2(V1, { occurredAt: '2026-11-22T10:00:00Z' })).toEqual({ ...V1, signedAt: '2026-11-22T10:00:00.000Z' });
    expect(signInCompletedV1ToV2(V1, { occurredAt: '2026-11-22T11:30:00.250+01:00' })).toEqual({ ...V1, signedAt: '2026-11-22T10:30:00.250Z' });
  });

  it('does not modify its input', () => {
    const data = { ...V1 };
    signInCompletedV1ToV2(data, { occurredAt: '2026-11-22T10:00:00Z' });
    expect(data).toEqual(V1);
  });

  it('refuses a metadata time that is not a time', () => {
    expect(() => signInCompletedV1ToV2(V1, { occurredAt: 'yesterday' })).toThrow(RangeError);
  });
});

describe('signInChallengeIssuedV1ToV2', () => {
  const message = [
    'app.example.com wants you to sign in with your Solana account:',
    '7'.repeat(44),
    '',
    'Sign in to the agreement evidence dashboard.',
    '',
    'URI: https://app.example.com',
    'Version: 1',
    'Chain ID: solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    'Nonce: 0123456789abcdef0123456789abcdef',
    'Issued At: 2026-11-22T10:00:00Z',
    'Expiration Time: 2026-11-22T10:10:00Z',
  ].join('\n');
  const issued = { nonce: V1.nonce, address: V1.address, message, issuedAt: '2026-11-22T10:00:00Z', expiresAt: '2026-11-22T10:10:00Z' };

  it('adds the purpose (sign-in), no session, and the fields read from the issued message', () => {
    expect(signInChallengeIssuedV1ToV2(issued)).toEqual({
      ...issued,
      purpose: 'sign_in',
      sessionId: null,
      domain: 'app.example.com',
      statement: 'Sign in to the agreement evidence dashboard.',
      uri: 'https://app.example.com',
      chainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    });
  });

  it('refuses a stored message without the issued layout', () => {
    expect(() => signInChallengeIssuedV1ToV2({ ...issued, message: 'hello' })).toThrow(RangeError);
    expect(() => signInChallengeIssuedV1ToV2({ ...issued, message: message.replace('URI:', 'Uri:') })).toThrow(/line 6/);
  });
});

describe('upcast', () => {
  it('brings SignInCompleted v1 to the current version; v2 data is returned as stored', () => {
    const meta = { occurredAt: '2026-11-22T10:00:00.000Z' };
    expect(upcast('SignInCompleted', 1, V1, meta)).toEqual({ data: { ...V1, signedAt: meta.occurredAt }, schemaVersion: 2 });
    const v2 = { ...V1, signedAt: '2026-11-22T09:59:00.000Z' };
    expect(upcast('SignInCompleted', 2, v2, meta)).toEqual({ data: v2, schemaVersion: 2 });
  });

  it('returns current and unknown types unchanged, as copies', () => {
    const data = { draftId: 'd', abandonedBy: 'a' };
    const out = upcast('DraftAbandoned', 1, data, { occurredAt: '2026-11-22T10:00:00Z' });
    expect(out).toEqual({ data, schemaVersion: 1 });
    expect(out.data).not.toBe(data);
    expect(upcast('SomethingElse', 3, { x: 1 }, { occurredAt: '2026-11-22T10:00:00Z' })).toEqual({ data: { x: 1 }, schemaVersion: 3 });
  });

  it('refuses a version newer than the current one', () => {
    expect(() => upcast('SignInCompleted', 3, V1, { occurredAt: '2026-11-22T10:00:00Z' })).toThrow(/newer/);
  });

  it('has an upcaster for every version below the current one of every type, and none beyond', () => {
    for (const type of EVENT_TYPES) {
      const steps = Object.keys(UPCASTERS[type] ?? {}).map(Number).sort((a, b) => a - b);
      expect([type, steps]).toEqual([type, Array.from({ length: CURRENT_SCHEMA_VERSION[type] - 1 }, (_, i) => i + 1)]);
    }
    expect(isDomainEventType('SignInCompleted')).toBe(true);
    expect(isDomainEventType('toString')).toBe(false);
  });
});

describe('batched evidence upcasters', () => {
  const meta = { occurredAt: '2026-11-22T10:00:00Z' };

  it('a v2 challenge was issued in direct mode; a v1 challenge reaches v3 through both steps', () => {
    expect(acceptanceChallengeIssuedV2ToV3({ challengeId: 'c', acceptanceSessionId: null })).toEqual({ challengeId: 'c', acceptanceSessionId: null, evidenceMode: 'DIRECT_ONCHAIN' });
    expect(upcast('AcceptanceChallengeIssued', 1, { challengeId: 'c' }, meta)).toEqual({
      data: { challengeId: 'c', acceptanceSessionId: null, externalUserRef: null, evidenceMode: 'DIRECT_ONCHAIN' },
      schemaVersion: 3,
    });
  });

  it('a v1 submission is a v2 direct-mode submission, unchanged', () => {
    const v1 = { acceptanceId: 'a', evidenceMode: 'DIRECT_ONCHAIN', transactionSignature: 's' };
    expect(acceptanceSubmittedV1ToV2(v1)).toEqual(v1);
    expect(upcast('AcceptanceSubmitted', 1, v1, meta)).toEqual({ data: v1, schemaVersion: 2 });
  });

  it('a v1 relay outcome was no batch: batch null', () => {
    expect(acceptanceRelayedV1ToV2({ acceptanceId: 'a', slot: 3 })).toEqual({ acceptanceId: 'a', slot: 3, batch: null });
  });
});
