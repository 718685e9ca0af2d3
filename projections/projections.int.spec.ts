/**
 * The projections against read models written out by hand (testing/expected-read-models.ts) from a
 * hand-written event log (testing/fixture-log.ts): built by the runner, rebuilt, and applied twice.
 * Then the same replay check over a real log made by the running service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { EventSchemaRegistry, SqliteEventStore, type StoredEvent } from '@svc/event-store';
import { ProjectionRunner, SqliteReadStore, type Doc, type Projection, type ReadStore } from '@svc/read-store';
import { ApiClient } from '../apps/cli/src/api-client';
import { acceptAsWallet, signIn } from '../apps/cli/src/operations';
import { publishedDocument } from '../test/support/fixtures';
import { startTestService, type TestService } from '../test/support/test-service';
import { ALL_PROJECTIONS, COLLECTIONS, statsProjection } from './index';
import { EXPECTED_READ_MODELS } from './testing/expected-read-models';
import { FIXTURE_LOG } from './testing/fixture-log';

/** Every document of the collections of `projections`, sorted by `_id`. */
async function snapshot(store: ReadStore, projections: readonly Projection[] = ALL_PROJECTIONS): Promise<Record<string, Doc[]>> {
  const out: Record<string, Doc[]> = {};
  for (const p of projections) {
    for (const name of Object.keys(p.indexes)) out[name] = await store.collection(name).find({}, { sort: { _id: 1 } });
  }
  return out;
}

function expectedFor(projection: Projection): Record<string, Record<string, unknown>[]> {
  return Object.fromEntries(Object.keys(projection.indexes).map((name) => [name, EXPECTED_READ_MODELS[name]!]));
}

async function withStore<R>(dir: string, name: string, use: (store: SqliteReadStore) => Promise<R>): Promise<R> {
  const store = new SqliteReadStore({ file: path.join(dir, `${name}.sqlite`) });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

describe('projections over the hand-written fixture log', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'svc-projections-fixture-'));
  const log = new SqliteEventStore({ file: path.join(work, 'events.sqlite'), schemas: EventSchemaRegistry.fromDirectory() });
  let events: StoredEvent[];

  beforeAll(async () => {
    for (const { stream, events: batch } of FIXTURE_LOG) await log.append(stream, batch, 'any');
    events = await log.readAll();
  });
  afterAll(async () => {
    await log.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('the runner builds exactly the read models written out by hand, and again after each rebuild', async () => {
    await withStore(work, 'runner', async (store) => {
      const runner = new ProjectionRunner(log, store, ALL_PROJECTIONS, undefined, { idleCheckMs: 0 });
      try {
        await runner.start();
        await runner.waitFor(await log.headPosition());
        expect(await snapshot(store)).toEqual(EXPECTED_READ_MODELS);
        // A rebuild must restore a read model a reader damaged: a deleted and a corrupted document.
        await store.collection('acceptances_v5').deleteMany({ status: 'failed' });
        await store.collection('drafts_v1').updateMany({}, { $set: { status: 'open', title: 'corrupted' } });
        for (const name of runner.projectionNames) await runner.rebuild(name);
        await runner.waitFor(await log.headPosition());
        expect(await snapshot(store)).toEqual(EXPECTED_READ_MODELS);
      } finally {
        await runner.stop();
      }
    });
  });

  it.each(ALL_PROJECTIONS.map((p) => [p.name, p] as const))('%s: applying its events twice gives the same read model as once', async (name, projection) => {
    const mine = events.filter((e) => projection.eventTypes.includes(e.type));
    expect(mine.length).toBeGreaterThan(0);
    const once = await withStore(work, `${name}-once`, async (store) => {
      for (const e of mine) await projection.handle(e, store);
      return snapshot(store, [projection]);
    });
    const twice = await withStore(work, `${name}-twice`, async (store) => {
      for (const e of mine) {
        await projection.handle(e, store); // a retried event
        await projection.handle(e, store);
      }
      for (const e of mine) await projection.handle(e, store); // a replay of the whole log after a crash
      return snapshot(store, [projection]);
    });
    expect(once).toEqual(expectedFor(projection));
    expect(twice).toEqual(once);
  });

  it('stats: an outcome delivered again after a crash between its two counters counts once in each', async () => {
    const mine = events.filter((e) => statsProjection.eventTypes.includes(e.type));
    const outcome = mine.find((e) => e.type === 'AcceptanceRelayed')!;
    await withStore(work, 'stats-crash', async (store) => {
      for (const e of mine) await statsProjection.handle(e, store);
      // As if the process died after the per-day counter was written and before the signer's: no signer yet.
      await store.collection(COLLECTIONS.signerStats).deleteMany({});
      await statsProjection.handle(outcome, store);
      expect(await snapshot(store, [statsProjection])).toEqual(expectedFor(statsProjection));
    });
  });
});

describe('projections over a real event log made by the service', () => {
  let service: TestService;
  let events: StoredEvent[];
  const work = mkdtempSync(path.join(tmpdir(), 'svc-projections-'));

  beforeAll(async () => {
    // Organization, document, two versions, drafts, acceptances, a session started and ended.
    service = await startTestService();
    const doc = await publishedDocument(service, [1, 2]);
    const client = new ApiClient(service.baseUrl);
    for (let i = 0; i < 3; i++) {
      await acceptAsWallet(client, await generateKeyPairSigner(), { organization: doc.organization.address, document: doc.document.address, origin: 'https://a.example' });
    }
    const session = new ApiClient(service.baseUrl).useSession(await signIn(client, await generateKeyPairSigner()));
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

  it('every projection gives the same read models when each event is applied twice', async () => {
    const once = await withStore(work, 'once', async (store) => {
      for (const p of ALL_PROJECTIONS) for (const e of events.filter((x) => p.eventTypes.includes(x.type))) await p.handle(e, store);
      return snapshot(store);
    });
    const twice = await withStore(work, 'twice', async (store) => {
      for (const p of ALL_PROJECTIONS) {
        for (const e of events.filter((x) => p.eventTypes.includes(x.type))) {
          await p.handle(e, store);
          await p.handle(e, store);
        }
      }
      return snapshot(store);
    });
    expect(once['acceptances_v5']).toHaveLength(3);
    expect(once['versions_v1']).toHaveLength(2);
    expect(once['sessions_v1']!.some((s) => s['endedAt'] !== null)).toBe(true);
    expect(twice).toEqual(once);
  });
});
