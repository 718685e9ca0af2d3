import { loadConfig } from '@svc/config';
import { createEventStore, EventSchemaRegistry } from '@svc/event-store';
import { createReadStore, ProjectionRunner } from '@svc/read-store';
import { ALL_PROJECTIONS } from '@svc/projections';

/**
 * Rebuilds read models from the event log, on the stores the service's configuration names
 * (`DATA_DIR`, `EVENTSTORE_URL`, `MONGODB_URL`). With the embedded read store the service must be stopped
 * first (its files belong to one process at a time).
 * @returns the rebuilt projections and the log position they were rebuilt through.
 * @throws Error naming an unknown projection.
 */
export async function rebuildProjections(names: string[], dataDir?: string): Promise<{ projection: string; throughPosition: string }[]> {
  const config = loadConfig(dataDir ? { ...process.env, DATA_DIR: dataDir } : process.env);
  const known = ALL_PROJECTIONS.map((p) => p.name);
  const chosen = names.length > 0 ? names : known;
  const unknown = chosen.filter((n) => !known.includes(n));
  if (unknown.length > 0) throw new Error(`unknown projection(s) ${unknown.join(', ')}; known: ${known.join(', ')}`);
  const eventStore = createEventStore(config, EventSchemaRegistry.fromDirectory());
  const readStore = await createReadStore(config);
  const runner = new ProjectionRunner(eventStore, readStore, [...ALL_PROJECTIONS]);
  try {
    await runner.start();
    const head = await eventStore.headPosition();
    for (const name of chosen) await runner.rebuild(name);
    await runner.waitFor(head, { timeoutMs: 10 * 60_000 });
    return chosen.map((projection) => ({ projection, throughPosition: head.toString() }));
  } finally {
    await runner.stop();
    await eventStore.close();
    await readStore.close();
  }
}
