/**
 * `createEventStore` with the repository's schemas (`event-schemas/`): the embedded store it builds
 * upcasts with the domain's upcasters, so a `SignInCompleted` v1 event reads as v2.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EventSchemaRegistry, createEventStore } from './index';
import { meta } from './testing/fixtures';

const SIGN_IN = { nonce: '0123456789abcdef0123456789abcdef', address: '7'.repeat(44), sessionId: '2f1c6f5e-8a1b-4c3d-9e7f-0a1b2c3d4e5f' };

describe('createEventStore (embedded)', () => {
  let dataDir = '';
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'create-event-store-'));
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores SignInCompleted v1 as written and serves it as v2 with signedAt = occurredAt', async () => {
    const store = createEventStore({ dataDir }, EventSchemaRegistry.fromDirectory());
    try {
      const v1 = meta({ schemaVersion: 1, occurredAt: '2026-11-22T10:00:00.000Z' });
      const v2 = meta({ schemaVersion: 2 });
      await store.append('signin-a', [{ type: 'SignInCompleted', data: SIGN_IN, metadata: v1 }], 'no_stream');
      await store.append('signin-b', [{ type: 'SignInCompleted', data: { ...SIGN_IN, signedAt: '2026-11-22T09:00:00.000Z' }, metadata: v2 }], 'no_stream');
      const [a] = await store.readStream('signin-a');
      expect(a!.data).toEqual({ ...SIGN_IN, signedAt: '2026-11-22T10:00:00.000Z' });
      expect(a!.metadata).toEqual({ ...v1, schemaVersion: 2 });
      const [b] = await store.readStream('signin-b');
      expect(b!.data['signedAt']).toBe('2026-11-22T09:00:00.000Z');
      // A v2 event without signedAt is refused on append.
      await expect(store.append('signin-c', [{ type: 'SignInCompleted', data: SIGN_IN, metadata: v2 }], 'no_stream')).rejects.toThrow(/signedAt/);
    } finally {
      await store.close();
    }
  });
});
