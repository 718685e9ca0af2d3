/**
 * The runner lease on a real read store, two connections to one SQLite file standing for processes on two hosts
 * that share the stores (README "Production topology").
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SqliteReadStore } from '@svc/read-store';
import { currentPidSpace } from '@svc/config';
import { leaseHolderOf, RUNNER_HEARTBEAT_COLLECTION, RUNNER_HEARTBEAT_ID, RunnerLease, RunnerLeaseHeldError, type RunnerLeaseFields } from './runner-lease';

describe('runner lease', () => {
  let dir: string;
  let opened: SqliteReadStore[];
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-lease-'));
    opened = [];
  });
  afterEach(async () => {
    for (const store of opened) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  /** A connection to this test's read store file (each one a process sharing the stores). */
  function open(): SqliteReadStore {
    opened.push(new SqliteReadStore({ file: path.join(dir, 'read.sqlite') }));
    return opened[opened.length - 1]!;
  }
  const stored = (store: SqliteReadStore) => store.collection<RunnerLeaseFields>(RUNNER_HEARTBEAT_COLLECTION).findOne({ _id: RUNNER_HEARTBEAT_ID });

  it('lets one of two processes starting together on shared stores run the processors, and refuses the other while the first beats', async () => {
    const [a, b] = [open(), open()];
    let clock = Date.parse('2026-11-27T12:00:00Z');
    const now = () => clock;
    const first = new RunnerLease(a, 1_000, { host: 'worker-a', pid: 101, now });
    // The other waits once for the holder's beat to go stale; the holder beats meanwhile.
    const second = new RunnerLease(b, 1_000, {
      host: 'worker-b',
      pid: 202,
      now,
      sleep: async (ms) => {
        clock += ms;
        await first.renew({ startedAt: 'x' });
      },
    });
    const outcomes = await Promise.allSettled([first.claim(), second.claim()]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    const refusal = (outcomes[1] as PromiseRejectedResult).reason as Error;
    expect(refusal).toBeInstanceOf(RunnerLeaseHeldError);
    expect(refusal.message).toMatch(/^another process already runs the projections and processors on these stores: pid 101 on host worker-a/);
    expect(await stored(b)).toMatchObject({ runnerId: first.runnerId, pid: 101, host: 'worker-a', intervalMs: 1_000 });
    expect(await new RunnerLease(b, 1_000, { host: 'cli', pid: 303, now }).liveHolder()).toMatchObject({ pid: 101 });
    await first.release();
  });

  it('is not taken from another service of this same process that holds it, and is lost when it cannot be renewed', async () => {
    const store = open();
    let clock = Date.parse('2026-11-27T12:00:00Z');
    const now = () => clock;
    const holder = new RunnerLease(store, 1_000, { now });
    await holder.claim();
    const sibling = new RunnerLease(store, 1_000, {
      now,
      sleep: async (ms) => {
        clock += ms;
        await holder.renew({});
      },
    });
    await expect(sibling.claim()).rejects.toThrow(RunnerLeaseHeldError);
    // Cut off from the store past three intervals and a second: the holder gives the lease up.
    const lost: string[] = [];
    holder.onLost = (reason) => lost.push(reason);
    await store.close();
    clock += 3_500;
    await expect(holder.renew({})).rejects.toThrow();
    expect(lost).toEqual([]);
    clock += 1_000;
    await expect(holder.renew({})).rejects.toThrow();
    expect(lost).toEqual([expect.stringMatching(/^the lease could not be renewed for too long/)]);
    expect(await holder.renew({})).toBe(false);
    await holder.release().catch(() => undefined);
  });

  it('takes over from a holder on another host once its beat is stale, and the old holder learns it lost the lease', async () => {
    const store = open();
    let clock = Date.parse('2026-11-27T12:00:00Z');
    const now = () => clock;
    const old = new RunnerLease(store, 5_000, { host: 'worker-a', pid: 101, now });
    await old.claim();
    clock += 10_000; // fresh still: three intervals and a second is 16 s
    const waits: number[] = [];
    const next = new RunnerLease(store, 5_000, {
      host: 'worker-b',
      pid: 202,
      now,
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    });
    await next.claim({ projectionFaults: [] });
    expect(waits).toEqual([6_250]);
    expect(await stored(store)).toMatchObject({ runnerId: next.runnerId, host: 'worker-b', projectionFaults: [] });
    expect(await old.renew({})).toBe(false);
    expect(await next.renew({})).toBe(true);
    // A clean stop of the old holder removes nothing of the new one's.
    await old.release();
    expect(await stored(store)).toMatchObject({ runnerId: next.runnerId });
    await next.release();
    expect(await stored(store)).toBeNull();
  });

  it('takes over at once from a holder of this host whose process is gone (a restart after a crash)', async () => {
    const store = open();
    const gone = spawn(process.execPath, ['-e', '']);
    const deadPid = gone.pid!;
    await new Promise((resolve) => gone.once('exit', resolve));
    const crashed = new RunnerLease(store, 5_000, { pid: deadPid, pidSpace: currentPidSpace() });
    await crashed.claim();
    const sleeps: number[] = [];
    const restarted = new RunnerLease(store, 5_000, {
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    await restarted.claim();
    expect(sleeps).toEqual([]);
    expect(await stored(store)).toMatchObject({ runnerId: restarted.runnerId, pid: process.pid });
    await restarted.release();
  });

  it('refuses when the holder on this host still runs, and takes a document of an older release once it is stale', async () => {
    const store = open();
    let clock = Date.parse('2026-11-27T12:00:00Z');
    const now = () => clock;
    // pid 1 runs on every Linux host.
    await store.collection<RunnerLeaseFields>(RUNNER_HEARTBEAT_COLLECTION).insertOne({ _id: RUNNER_HEARTBEAT_ID, pid: 1, host: new RunnerLease(store, 0).host, startedAt: new Date(clock).toISOString(), beatAt: new Date(clock).toISOString(), intervalMs: 5_000 });
    const keepsBeating = async () => {
      await store.collection<RunnerLeaseFields>(RUNNER_HEARTBEAT_COLLECTION).updateOne({ _id: RUNNER_HEARTBEAT_ID }, { $set: { beatAt: new Date(clock).toISOString() } });
    };
    const beating = new RunnerLease(store, 5_000, {
      now,
      sleep: async (ms) => {
        clock += ms;
        await keepsBeating();
      },
    });
    await expect(beating.claim()).rejects.toThrow(/pid 1 on host/);
    // The same holder stops beating: its document (no runnerId: written by an older release) is taken.
    const lease = new RunnerLease(store, 5_000, {
      now,
      sleep: async (ms) => {
        clock += ms;
      },
    });
    await lease.claim();
    expect(await stored(store)).toMatchObject({ runnerId: lease.runnerId, pid: process.pid });
    await lease.release();
  });

  it('does not take a live holder for itself when another container has the same host name and pid, and does take a reused pid', async () => {
    const store = open();
    let clock = Date.parse('2026-11-27T12:00:00Z');
    const now = () => clock;
    const leases = store.collection<RunnerLeaseFields>(RUNNER_HEARTBEAT_COLLECTION);
    const beat = () => leases.updateOne({ _id: RUNNER_HEARTBEAT_ID, runnerId: 'other-container' }, { $set: { beatAt: new Date(clock).toISOString() } });
    const sleep = async (ms: number) => {
      clock += ms;
      await beat();
    };
    // Two containers given the host name "worker", each its process as pid 1, in pid namespaces of their own; the
    // holder is another process (written as it would write it).
    const at = new Date(clock).toISOString();
    await leases.insertOne({
      _id: RUNNER_HEARTBEAT_ID,
      runnerId: 'other-container',
      host: 'worker',
      pid: 1,
      holder: { runnerId: 'other-container', pidSpace: 'boot-a/4026532001', startTicks: '500', role: 'runner' },
      startedAt: at,
      beatAt: at,
      intervalMs: 1_000,
    });
    const twin = new RunnerLease(store, 1_000, { host: 'worker', pid: 1, pidSpace: 'boot-a/4026532002', startTicks: '700', now, sleep });
    await expect(twin.claim()).rejects.toThrow(/^another process already runs the projections and processors on these stores: pid 1 on host worker/);
    // In one pid space, a holder whose pid now belongs to a process started at another time is gone: taken at once.
    const seen: Array<[number, string | null | undefined]> = [];
    const restarted = new RunnerLease(store, 1_000, {
      host: 'worker',
      pid: 7,
      pidSpace: 'boot-a/4026532001',
      startTicks: '900',
      now,
      processRuns: (pid, startTicks) => {
        seen.push([pid, startTicks]);
        return false;
      },
      sleep: async () => {
        throw new Error('no wait expected');
      },
    });
    await restarted.claim();
    expect(seen).toEqual([[1, '500']]);
    expect(await stored(store)).toMatchObject({ runnerId: restarted.runnerId, pid: 7, holder: { runnerId: restarted.runnerId, pidSpace: 'boot-a/4026532001', startTicks: '900', role: 'runner' } });
    await restarted.release();
  });

  it('is held by a rebuild, which a runner starting on any host is refused beside, naming the rebuild', async () => {
    const [a, b] = [open(), open()];
    let clock = Date.parse('2026-11-27T12:00:00Z');
    const now = () => clock;
    const rebuild = new RunnerLease(a, 1_000, { host: 'ops', pid: 55, role: 'rebuild', now });
    await rebuild.claim();
    expect(await stored(b)).toMatchObject({ pid: 55, host: 'ops', holder: { role: 'rebuild' } });
    const worker = new RunnerLease(b, 1_000, {
      host: 'worker-b',
      pid: 202,
      now,
      sleep: async (ms) => {
        clock += ms;
        await rebuild.renew({});
      },
    });
    await expect(worker.claim()).rejects.toThrow(
      /^svc rebuild-projections \(pid 55 on host ops\) is rebuilding the read models on these stores, its last beat [\d.]+ s ago: start this process once it has finished$/,
    );
    expect(leaseHolderOf((await new RunnerLease(b, 1_000, { host: 'cli', pid: 303, now }).liveHolder())!).role).toBe('rebuild');
    await rebuild.release();
    await worker.claim();
    expect(await stored(a)).toMatchObject({ runnerId: worker.runnerId, holder: { role: 'runner' } });
    await worker.release();
  });

  it('never takes a live holder of an older release, nor trusts the identity another holder left behind', async () => {
    const store = open();
    let clock = Date.parse('2026-11-27T12:00:00Z');
    const now = () => clock;
    const leases = store.collection<RunnerLeaseFields>(RUNNER_HEARTBEAT_COLLECTION);
    const at = () => new Date(clock).toISOString();
    const beating = (runnerId: string) => async (ms: number) => {
      clock += ms;
      await leases.updateOne({ _id: RUNNER_HEARTBEAT_ID, runnerId }, { $set: { beatAt: at() } });
    };
    // An older release (no holder identity) running as pid 1 of a container named "worker"; this one is pid 1 of
    // another container with the same name, whose process table also has a live pid 1.
    await leases.insertOne({ _id: RUNNER_HEARTBEAT_ID, runnerId: 'old-release', host: 'worker', pid: 1, startedAt: at(), beatAt: at(), intervalMs: 1_000 });
    const asked: Array<string | null | undefined> = [];
    const twin = new RunnerLease(store, 1_000, {
      host: 'worker',
      pid: 1,
      pidSpace: 'boot-a/4026532002',
      startTicks: '700',
      now,
      processRuns: (_pid, startTicks) => {
        asked.push(startTicks);
        return true;
      },
      sleep: beating('old-release'),
    });
    await expect(twin.claim()).rejects.toThrow(/pid 1 on host worker/);
    // Its pid space unknown, the holder is not judged by this container's process table at all.
    expect(asked).toEqual([]);
    // Nor when this one's process has another pid (behind an init process) and no pid 1 of its own is alive.
    const behindInit = new RunnerLease(store, 1_000, { host: 'worker', pid: 7, pidSpace: 'boot-a/4026532003', startTicks: '800', now, processRuns: () => false, sleep: beating('old-release') });
    await expect(behindInit.claim()).rejects.toThrow(/pid 1 on host worker/);

    // That older release took the document over from a rebuild and left the rebuild's identity in it: it reads as a
    // runner of unknown start time, not as a rebuild started at tick 100 (which would pass for gone).
    await leases.updateOne(
      { _id: RUNNER_HEARTBEAT_ID },
      { $set: { runnerId: 'old-release-2', holder: { runnerId: 'a-rebuild', pidSpace: 'boot-a/4026532002', startTicks: '100', role: 'rebuild' }, beatAt: at() } },
    );
    const doc = (await stored(store))!;
    expect(leaseHolderOf(doc)).toEqual({ pidSpace: null, startTicks: null, role: 'runner' });
    const sameSpace = new RunnerLease(store, 1_000, {
      host: 'worker',
      pid: 7,
      pidSpace: 'boot-a/4026532002',
      startTicks: '900',
      now,
      processRuns: (_pid, startTicks) => startTicks !== '100',
      sleep: beating('old-release-2'),
    });
    await expect(sameSpace.claim()).rejects.toThrow(/^another process already runs the projections and processors on these stores: pid 1 on host worker/);
  });

  it('is not written back by a renewal under way when it is released', async () => {
    const store = open();
    const holder = new RunnerLease(store, 60_000);
    await holder.claim();
    // The document removed behind the holder (by hand, a reset store): a renewal takes it again, unless released.
    await store.collection<RunnerLeaseFields>(RUNNER_HEARTBEAT_COLLECTION).deleteMany({ _id: RUNNER_HEARTBEAT_ID });
    const renewal = holder.renew({});
    await holder.release();
    expect(await renewal).toBe(false);
    expect(await stored(store)).toBeNull();
    // Taken again later by the same run, it is held as before.
    await holder.claim();
    expect(await holder.renew({})).toBe(true);
    await holder.release();
    expect(await stored(store)).toBeNull();
  });
});
