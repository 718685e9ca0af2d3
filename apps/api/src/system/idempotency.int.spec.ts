import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import Fastify from 'fastify';
import { randomBytes } from 'node:crypto';
import { AdjustableClock, Sealer } from '@svc/application';
import { SqliteReadStore } from '@svc/read-store';
import { attachClaim, registerIdempotencyHooks } from './idempotency.interceptor';
import { IDEMPOTENCY_LEASE_MS, IdempotencyStore } from './idempotency.store';

/**
 * The idempotency store over two connections to one SQLite read store (two API replicas on one data directory),
 * and the hooks that store or release a response as it is sent.
 */
describe('IdempotencyStore shared by two replicas', () => {
  let dir: string;
  let stores: SqliteReadStore[];
  const clock = new AdjustableClock();
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-idem-'));
    stores = [];
  });
  afterEach(async () => {
    for (const s of stores) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const replica = async () => {
    const store = new SqliteReadStore({ file: path.join(dir, 'read.sqlite') });
    stores.push(store);
    const idempotency = new IdempotencyStore(store, clock);
    await idempotency.onModuleInit();
    idempotency.onModuleDestroy();
    return idempotency;
  };
  const response = { status: 201, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"ok":true}' };

  it('lets one replica run a key; the other waits for it and replays its response', async () => {
    const [a, b] = [await replica(), await replica()];
    const first = await a.begin('session:w', 'k1', 'fp');
    expect(first.kind).toBe('execute');
    let settled = false;
    const second = b.begin('session:w', 'k1', 'fp').finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(settled).toBe(false);
    if (first.kind === 'execute') await a.complete(first.claim, response);
    expect(await second).toEqual({ kind: 'replay', response, rowId: first.kind === 'execute' ? first.claim.id : null });
    await expect(b.begin('session:w', 'k1', 'another request')).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    expect((await b.begin('session:other', 'k1', 'another request')).kind).toBe('execute');
  });

  it('runs the waiting request itself when the first releases the key (a 5xx), or when its lease ran out', async () => {
    const [a, b] = [await replica(), await replica()];
    const first = await a.begin('session:w', 'k2', 'fp');
    const second = b.begin('session:w', 'k2', 'fp');
    if (first.kind === 'execute') await a.release(first.claim);
    expect((await second).kind).toBe('execute');

    // A holder whose process died: the key is taken over once its lease is over.
    await a.begin('session:w', 'k3', 'fp');
    clock.advance(IDEMPOTENCY_LEASE_MS / 1000 + 1);
    expect((await b.begin('session:w', 'k3', 'fp')).kind).toBe('execute');
  });

  it('runs a retry after a 5xx as the same run, so that it finds what the failed run recorded; another request with the key runs anew', async () => {
    const [a, b] = [await replica(), await replica()];
    const first = await a.begin('session:w', 'k5', 'fp');
    if (first.kind !== 'execute') throw new Error('the first request runs');
    await a.release(first.claim);
    const retry = await b.begin('session:w', 'k5', 'fp');
    expect(retry).toMatchObject({ kind: 'execute', claim: { run: first.claim.run } });
    if (retry.kind === 'execute') await b.release(retry.claim);
    // Nothing was stored under the key: a different request may have it, and is a run of its own.
    clock.advance(1);
    const other = await a.begin('session:w', 'k5', 'another request');
    expect(other.kind).toBe('execute');
    if (other.kind === 'execute') {
      expect(other.claim.run).not.toBe(first.claim.run);
      await a.complete(other.claim, response);
    }
    await expect(b.begin('session:w', 'k5', 'fp')).rejects.toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('forgets a stored response after 24 hours', async () => {
    const a = await replica();
    const first = await a.begin('session:w', 'k4', 'fp');
    if (first.kind === 'execute') await a.complete(first.claim, response);
    await expect(a.begin('session:w', 'k4', 'other')).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    clock.advance(24 * 3600 + 1);
    expect((await a.begin('session:w', 'k4', 'other')).kind).toBe('execute');
    clock.advance(24 * 3600 + 1);
    expect(await a.expire()).toBe(1);
  });

  it('stores a response below 500 as it is sent, and releases the key on a 5xx', async () => {
    const idempotency = await replica();
    const app = Fastify();
    let calls = 0;
    app.addHook('preHandler', async (request) => {
      const outcome = await idempotency.begin('session:w', 'k5', 'fp');
      if (outcome.kind === 'replay') throw Object.assign(new Error('replayed'), { statusCode: 409 });
      attachClaim(request, outcome.claim);
    });
    registerIdempotencyHooks(app, idempotency, new Sealer(randomBytes(32)));
    app.post('/thing', async (_request, reply) => {
      calls++;
      if (calls === 1) return reply.status(503).send({ error: { code: 'nonce_unavailable', message: 'try again' } });
      return reply.status(201).header('location', '/thing/1').send({ id: 1 });
    });
    expect((await app.inject({ method: 'POST', url: '/thing' })).statusCode).toBe(503);
    // Released: the retry runs.
    expect((await app.inject({ method: 'POST', url: '/thing' })).statusCode).toBe(201);
    expect(calls).toBe(2);
    const stored = await idempotency.begin('session:w', 'k5', 'fp');
    expect(stored).toEqual({
      kind: 'replay',
      response: { status: 201, headers: { 'content-type': 'application/json; charset=utf-8', location: '/thing/1' }, body: '{"id":1}' },
      rowId: expect.any(String),
    });
    await app.close();
  });
});
