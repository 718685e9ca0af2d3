/**
 * A creation whose answer is lost because the service died after recording it (docs/api.md "Idempotency"): the
 * service is killed with SIGKILL (armed with `SVC_TEST_KILL_AT`) right after it records a new API key or draft and
 * before it answers, then restarted on the same data; the client retries with the same Idempotency-Key. The retry
 * runs at once (the key's holder is known dead) and answers what the first run recorded, never a second one.
 */
import { existsSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { apiMain } from '../apps/cli/src/paths';
import { startService, type RunningService } from '../apps/cli/src/service-process';
import { exited } from './support/durability';
import { publishedDocument, termsOfService } from './support/fixtures';
import { tempDataDir } from './support/test-service';

const built = existsSync(apiMain());

/** Events of `type` in the stopped service's log whose data names `field: value`. */
function recorded(dataDir: string, type: string, field: string, value: string): number {
  const log = new Database(path.join(dataDir, 'events.sqlite'), { readonly: true });
  try {
    const rows = log.prepare('SELECT data FROM events WHERE type = ?').all(type) as { data: string }[];
    return rows.filter((r) => (JSON.parse(r.data) as Record<string, unknown>)[field] === value).length;
  } finally {
    log.close();
  }
}

(built ? describe : describe.skip)(`a creation retried after the service died before answering${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  const env = { LEDGER_SLOT_MS: '100', NODE_ENV: 'test', RATE_LIMIT_SIGNIN_PER_MINUTE: '1000' };

  const cases = [
    {
      point: 'api-key:after-create',
      kill: 'api-key:after-create',
      route: (doc: { organization: { id: string } }) => `/v1/organizations/${doc.organization.id}/api-keys`,
      body: { name: 'shop server', scopes: ['acceptances:write'] },
      idOf: (answer: Record<string, unknown>) => (answer['apiKey'] as { id: string }).id,
      event: { type: 'ApiKeyCreated', field: 'organizationId', value: (doc: { organization: { id: string } }) => doc.organization.id },
    },
    {
      point: 'draft:after-create',
      // The first draft is the published v1's.
      kill: 'draft:after-create@2',
      route: (doc: { document: { id: string } }) => `/v1/documents/${doc.document.id}/drafts`,
      body: { title: 'Terms of Service', versionLabel: 'v2', source: termsOfService(2) },
      idOf: (answer: Record<string, unknown>) => (answer['draft'] as { id: string }).id,
      // The published v1 had a draft of its own.
      event: { type: 'DraftCreated', field: 'documentId', value: (doc: { document: { id: string } }) => doc.document.id },
      before: 1,
    },
  ] as const;

  it.each(cases)('killed at $point: the retry answers the recorded one, and only one is recorded', async (c) => {
    const dataDir = tempDataDir('svc-create-crash-');
    let first: RunningService | undefined;
    let second: RunningService | undefined;
    try {
      first = await startService({ dataDir, env: { ...env, SVC_TEST_KILL_AT: c.kill } });
      const port = Number(new URL(first.baseUrl).port);
      const doc = await publishedDocument(first, [1]);
      const create = () => doc.dashboard.request<Record<string, unknown>>('POST', c.route(doc), c.body, { headers: { 'idempotency-key': `create-${c.point}` } });
      await expect(create()).rejects.toThrow();
      await exited(first.process);
      expect(first.process.signalCode).toBe('SIGKILL');

      second = await startService({ dataDir, port, env });
      const started = Date.now();
      const answer = await create();
      // The dead run's key is taken over at once, not after the 120 s a running request may hold it.
      expect(Date.now() - started).toBeLessThan(60_000);
      const id = c.idOf(answer);
      if (c.point === 'api-key:after-create') {
        // Only the key's hash was stored: the retry tells it exists, as a replay does, without the key.
        expect(answer['key']).toBeNull();
        const { apiKeys } = await doc.dashboard.request<{ apiKeys: { id: string }[] }>('GET', c.route(doc));
        expect(apiKeys.map((k) => k.id)).toEqual([id]);
      } else {
        const { draft } = await doc.dashboard.request<{ draft: { id: string; versionLabel: string } }>('GET', `/v1/drafts/${id}`);
        expect(draft.versionLabel).toBe('v2');
      }
      await second.stop();
      second = undefined;
      expect(recorded(dataDir, c.event.type, c.event.field, c.event.value(doc))).toBe(('before' in c ? c.before : 0) + 1);
    } finally {
      if (first && first.process.exitCode === null && first.process.signalCode === null) first.process.kill('SIGKILL');
      await second?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
