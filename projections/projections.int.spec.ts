import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { EventSchemaRegistry, SqliteEventStore, type StoredEvent } from '@svc/event-store';
import { NedbReadStore, ProjectionRunner, type Doc, type ReadStore } from '@svc/read-store';
import { ApiClient } from '../apps/cli/src/api-client';
import { acceptAsWallet, signIn } from '../apps/cli/src/operations';
import { publishedDocument } from '../test/support/fixtures';
import { startTestService, type TestService } from '../test/support/test-service';
import { ALL_PROJECTIONS } from './index';

/** Every document of every collection the projections write, sorted, for comparison. */
async function snapshot(store: ReadStore): Promise<Record<string, Doc[]>> {
  const out: Record<string, Doc[]> = {};
  for (const p of ALL_PROJECTIONS) {
    for (const name of Object.keys(p.indexes)) {
      const docs = await store.collection(name).find({}, { sort: { _id: 1 } });
      out[name] = docs;
    }
  }
  return out;
}

describe('projections over a real event log', () => {
  let service: TestService;
  let events: StoredEvent[];
  const work = mkdtempSync(path.join(tmpdir(), 'svc-projections-'));

  beforeAll(async () => {
    // A real log: organization, document, two versions, drafts, acceptances, a session started and ended.
    service = await startTestService();
    const doc = await publishedDocument(service, [1, 2]);
    const client = new ApiClient(service.baseUrl);
    for (let i = 0; i < 3; i++) {
      await acceptAsWallet(client, await generateKeyPairSigner(), { organization: doc.organization.address, document: doc.document.address, origin: 'https://a.example' });
    }
    const wallet = await generateKeyPairSigner();
    const session = new ApiClient(service.baseUrl).useSession(await signIn(client, wallet));
    await session.request('POST', '/v1/auth/logout');
    await service.stop();
    const log = new SqliteEventStore({ file: path.join(service.dataDir, 'events.sqlite'), schemas: EventSchemaRegistry.fromDirectory() });
    events = await log.readAll();
    await log.close();
  });
  afterAll(async () => {
    await service.destroy();
    rmSync(work, { recursive: true, force: true });
  });

  it('produce the same read models when every event is applied twice (a replay is harmless)', async () => {
    const once = await NedbReadStore.open({ dataDir: path.join(work, 'once') });
    const twice = await NedbReadStore.open({ dataDir: path.join(work, 'twice') });
    try {
      for (const projection of ALL_PROJECTIONS) {
        const mine = events.filter((e) => projection.eventTypes.includes(e.type));
        expect(mine.length).toBeGreaterThan(0);
        for (const e of mine) await projection.handle(e, once);
        for (const e of mine) {
          await projection.handle(e, twice);
          await projection.handle(e, twice);
        }
      }
      const a = await snapshot(once);
      expect(a.acceptances_v1).toHaveLength(3);
      expect(a.versions_v1).toHaveLength(2);
      expect(a.sessions_v1.some((s) => s.endedAt !== null)).toBe(true);
      expect(await snapshot(twice)).toEqual(a);
    } finally {
      await once.close();
      await twice.close();
    }
  });

  it('rebuild from the log into the same read models the service built', async () => {
    const served = await NedbReadStore.open({ dataDir: service.dataDir });
    const expected = await snapshot(served);
    await served.close();

    const log = new SqliteEventStore({ file: path.join(service.dataDir, 'events.sqlite'), schemas: EventSchemaRegistry.fromDirectory() });
    const fresh = await NedbReadStore.open({ dataDir: path.join(work, 'rebuilt') });
    const runner = new ProjectionRunner(log, fresh, [...ALL_PROJECTIONS]);
    try {
      await runner.start();
      await runner.waitFor(await log.headPosition());
      expect(await snapshot(fresh)).toEqual(expected);
      await runner.rebuild('acceptances');
      await runner.waitFor(await log.headPosition());
      expect(await snapshot(fresh)).toEqual(expected);
    } finally {
      await runner.stop();
      await log.close();
      await fresh.close();
    }
  });
});
