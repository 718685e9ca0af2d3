import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { describeHolder, leaseHolderOf, RunnerLease, RunnerLeaseHeldError } from '@svc/application';
import { claimDataDir, loadConfig, offlineToolsUsing, otherProcessesUsing, type AppConfig } from '@svc/config';
import { createEventStore, EventSchemaRegistry } from '@svc/event-store';
import { checkpointKey, checkpointsBeyondHead, createReadStore, ProjectionRunner } from '@svc/read-store';
import { ALL_PROJECTIONS } from '@svc/projections';
import { UsageError } from './usage-error';

/**
 * Events applied per read-store transaction by a rebuild (the service is stopped, so nobody waits for the commits):
 * each B-tree page the replay touches is written once per 20,000 events instead of once per 1,000.
 */
const REBUILD_COMMIT_EVENTS = 20_000;

/** One rebuilt projection, as `svc rebuild-projections --json` reports it. */
export interface RebuiltProjection {
  projection: string;
  /** Global log position the read model now reflects (decimal string). */
  throughPosition: string;
  /** Wall-clock seconds of the whole rebuild (all chosen projections replay together). */
  seconds: number;
}

/**
 * Rebuilds read models from the event log, on the stores the service's configuration names
 * (`DATA_DIR`, `EVENTSTORE_URL`, `MONGODB_URL`): each chosen projection's collections are dropped and its
 * checkpoint deleted, then the log is read once and each page applied by all of them (with the embedded store, one
 * read-store transaction per 20,000 events; `ProjectionRunner.rebuildTogether`). Stop the service first: its own
 * projections would write the same read models. The data directory is claimed while it runs, and the runner's
 * lease in the read store is held (role `rebuild`, runner-lease.ts), so a service or worker started meanwhile is
 * refused, on this host or any other sharing the stores.
 * @returns the rebuilt projections, the log position they were rebuilt through and the time it took.
 * Unless `skipLogCheck`, the chain of the whole embedded log is checked first (hashes and links, flat out on a
 * worker thread: about 67 s at 1,000,000 acceptances), and nothing is reset when it fails.
 * @throws UsageError naming an unknown projection, and when the embedded event log (`DATA_DIR/events.sqlite`)
 *   does not exist; Error when a service or worker process is running on the data directory, when another process holds the
 *   runner's lease (a runner or another rebuild, on any host), or when the lease was lost during the rebuild; ProjectionFaultedError naming the projection, stream and
 *   position when a stored event fails its integrity check (the read model then stops before it); Error naming the
 *   event when the check of the log before the replay, or the replay's read of the whole log, met a bad one; Error
 *   when stored checkpoints name positions beyond the log's head (the log lost its tail) and not every projection was
 *   chosen (nothing is touched then). With every projection chosen, the other checkpoints beyond the head (the
 *   processors') are moved back to it, so that they handle what is appended at the lost positions.
 */
export async function rebuildProjections(names: string[], dataDir?: string, options: { skipLogCheck?: boolean } = {}): Promise<RebuiltProjection[]> {
  const config = loadConfig(dataDir ? { ...process.env, DATA_DIR: dataDir } : process.env);
  const known = ALL_PROJECTIONS.map((p) => p.name);
  const chosen = names.length > 0 ? names : known;
  const unknown = chosen.filter((n) => !known.includes(n));
  if (unknown.length > 0) throw new UsageError(`unknown projection(s) ${unknown.join(', ')}; known: ${known.join(', ')}`);
  // A mistyped data directory would otherwise get a fresh, empty log and report a rebuild through position -1.
  const log = path.join(config.dataDir, 'events.sqlite');
  if (!config.eventStoreUrl && !existsSync(log)) throw new UsageError(`no event log at ${log}: is the data directory (--data-dir, DATA_DIR) right?`);
  // A running service or worker would go on serving, and writing, the read models being rebuilt; one started
  // meanwhile is refused by this claim (claimed before looking, so that the two can never both go ahead).
  const release = claimDataDir(config.dataDir, { offline: true });
  const running = otherProcessesUsing(config.dataDir);
  if (running.length > 0) {
    release();
    const tools = offlineToolsUsing(config.dataDir);
    const services = running.filter((pid) => !tools.includes(pid));
    throw new Error(
      services.length > 0
        ? `the service is running on ${config.dataDir} (pid ${services.join(', ')}): stop it first`
        : `another rebuild (pid ${tools.join(', ')}) is working on ${config.dataDir}: wait for it to finish`,
    );
  }
  try {
    return await rebuildClaimed(config, chosen, options);
  } finally {
    release();
  }
}

async function rebuildClaimed(config: AppConfig, chosen: string[], options: { skipLogCheck?: boolean }): Promise<RebuiltProjection[]> {
  const eventStore = createEventStore(config, EventSchemaRegistry.fromDirectory());
  // The service is stopped during a rebuild (nothing to answer): indexes are built on the command's own connection.
  const readStore = await createReadStore(config, { serving: false });
  const runner = new ProjectionRunner(eventStore, readStore, [...ALL_PROJECTIONS], undefined, { idleCheckMs: 0, replayCommitEvents: REBUILD_COMMIT_EVENTS, replayReadAhead: true });
  const started = Date.now();
  // With shared stores (MongoDB) the runner may live on another host, out of reach of the data directory's claims:
  // the rebuild takes the runner's lease for as long as it runs, so that none starts meanwhile on any host. On the
  // embedded store its renewals wait behind the replay's long transactions, and its beat may go stale; harmless there,
  // since the data directory's claim keeps every other process off that store.
  const lease = new RunnerLease(readStore, config.runnerHeartbeatMs, { role: 'rebuild' });
  let lostLease: string | undefined;
  const leaseLost = () =>
    new Error(`the runner's lease was lost during the rebuild (${lostLease}): another process may have written the read models meanwhile; stop it and rebuild again`);
  lease.onLost = (reason) => {
    // Another process may take over from now on: stop writing at once (the replay and its wait end) and say so.
    lostLease = reason;
    void runner.stop().catch(() => undefined);
  };
  let claimed = false;
  let failed = false;
  try {
    const holder = await lease.liveHolder();
    if (holder) {
      const what = leaseHolderOf(holder).role === 'rebuild' ? describeHolder(holder) : `${describeHolder(holder)} runs the projections and processors on these stores`;
      throw new Error(`${what} (last beat ${holder.beatAt}): stop it first`);
    }
    try {
      // A dead runner's reports (its faults) are not this rebuild's.
      await lease.claim({ projectionFaults: [], processorFaults: [], eventLogFaults: [] });
      claimed = true;
    } catch (err) {
      // Another process took it between the look and the claim.
      if (err instanceof RunnerLeaseHeldError) throw new Error(`${err.message}; stop it first`);
      throw err;
    }
    // A replay applies what it reads once the link from the next event holds; an edit of consecutive events with
    // their links recomputed shows only where the rewritten run meets the original. So the whole chain is checked
    // first, and read models are left as they are when it fails (libs/event-store/README.md "Tamper evidence").
    const check = options.skipLogCheck ? undefined : await eventStore.checkLog?.({ flatOut: true });
    if (check && check.faults.length > 0) {
      const [first, ...others] = check.faults;
      const more = others.length === 0 ? '' : ` (and ${others.length} more bad event${others.length === 1 ? '' : 's'} after it, at positions ${others.map((f) => f.position).join(', ')})`;
      throw new Error(
        `the event log fails its check, so no read model was touched: ${first!.message}${more}. ` +
          `${check.checked} events are good. Restore the log from a backup (docs/architecture.md "Events on disk")`,
      );
    }
    if (lostLease) throw leaseLost();
    // Checkpoints beyond the log's head (the log lost its tail, or is older than the read store): every read model may
    // hold what the log lost, so all of them are rebuilt; the processors (and any retired projection version) resume
    // at the head, so that what is appended from now on at the lost positions is handled.
    const { head: logHead, beyond } = await checkpointsBeyondHead(eventStore, readStore);
    if (beyond.length > 0) {
      const rebuilt = new Set(ALL_PROJECTIONS.filter((p) => chosen.includes(p.name)).map((p) => checkpointKey(p)));
      const stale = ALL_PROJECTIONS.filter((p) => !chosen.includes(p.name) && beyond.some((c) => c.projection === checkpointKey(p)));
      if (stale.length > 0) {
        throw new Error(
          `the event log ends at position ${logHead}, before the checkpoints of ${beyond.map((c) => `${c.projection} (${c.position})`).join(', ')}: ` +
            `the log lost events these read models hold, so every projection must be rebuilt (run svc rebuild-projections without names); nothing was touched`,
        );
      }
      for (const c of beyond) if (!rebuilt.has(c.projection)) await readStore.saveCheckpoint(c.projection, logHead);
    }
    // Reset first, then start: the chosen projections, left without a checkpoint, replay the log together from one
    // read and get their indexes after it; the others resume from their checkpoints.
    const head = await eventStore.headPosition();
    try {
      await runner.rebuildTogether(chosen);
      // A runner stopped while idle may still be started: a loss during the resets must end the rebuild here.
      if (lostLease) throw leaseLost();
      await runner.start();
      await runner.waitFor(head, { timeoutMs: Infinity });
    } catch (err) {
      throw lostLease ? leaseLost() : err;
    }
    // A bad event that only the replay's read of the whole log met (a removed row, between events the read models
    // are made of) leaves every projection complete on its own reads: the log is still not to be trusted.
    const fault = eventStore.integrityFaults?.()[0];
    if (fault) throw new Error(`the event log holds a bad stored event: ${fault.message}; the read models stop before it where they meet it, and the rest may be incomplete`);
    if (lostLease) throw leaseLost();
    const seconds = (Date.now() - started) / 1000;
    return chosen.map((projection) => ({ projection, throughPosition: head.toString(), seconds }));
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    // Each step even when one before it fails: the lease must not outlive the command, nor the stores stay open. A
    // failure of the clean-up is the command's error only when nothing failed before it (it must not hide why).
    const cleanUp = await inTurn([() => runner.stop(), () => (claimed ? lease.release().catch(() => undefined) : undefined), () => eventStore.close(), () => readStore.close()]);
    if (cleanUp && !failed) throw cleanUp.error;
  }
}

/** Runs every step in order, each even when one before it failed. @returns the first step's error, if one failed. */
async function inTurn(steps: ReadonlyArray<() => Promise<unknown> | unknown>): Promise<{ error: unknown } | undefined> {
  let first: { error: unknown } | undefined;
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      first ??= { error };
    }
  }
  return first;
}
