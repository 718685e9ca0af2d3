/**
 * The compiled service parses published content for `GET /v1/public/content/{hash}/parsed` on a worker thread
 * (docs/api.md "Documents"): while a source that takes markdown-it seconds is parsed, other requests are answered.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { apiMain } from '../apps/cli/src/paths';
import { freePort } from '../apps/cli/src/service-process';
import { publishedDocument } from './support/fixtures';
import { tempDataDir } from './support/test-service';
import { publishVersion } from '../apps/cli/src/operations';

const built = existsSync(apiMain());
const describeBuilt = built ? describe : describe.skip;
if (!built) process.stdout.write('skipped: parsed-worker e2e needs the compiled service (npm run build)\n');

describeBuilt('parsed content on a worker thread (compiled service)', () => {
  let child: ChildProcess;
  let baseUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [apiMain()], {
      env: { ...process.env, DATA_DIR: tempDataDir(), PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: baseUrl, LOG_LEVEL: 'warn', LEDGER_SLOT_MS: '100', RATE_LIMIT_SIGNIN_PER_MINUTE: '1000', RATE_LIMIT_GENERAL_PER_MINUTE: '100000' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    let exited = false;
    child.once('exit', () => (exited = true));
    for (;;) {
      if (exited) throw new Error('the compiled service exited before it was ready');
      const up = await fetch(`${baseUrl}/api/ready`).then((r) => r.ok, () => false);
      if (up) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(() => {
    child?.kill('SIGKILL');
  });

  it('answers other requests while a slow source is parsed, and keeps the answer', async () => {
    const doc = await publishedDocument({ baseUrl, rpcUrl: `${baseUrl}/rpc` }, []);
    const source = '['.repeat(1_999_000);
    const { version } = await publishVersion(doc.dashboard, doc.ledger, doc.owner, { documentId: doc.document.id, source, label: 'v1', title: 'Brackets' });
    let parsedDone = false;
    const parsed = fetch(`${baseUrl}/api/v1/public/content/${version.contentHash}/parsed`).then(async (r) => {
      const body = (await r.json()) as { blocks: { type: string; text: string }[] };
      parsedDone = true;
      return [r.status, body.blocks.length, body.blocks[0]!.text.length];
    });
    // Pings sent one after the other while the parse runs: on the event loop, none would be answered before it.
    let answeredDuringParse = 0;
    while (!parsedDone) {
      const ok = (await fetch(`${baseUrl}/api/v1/network`)).ok;
      if (ok && !parsedDone) answeredDuringParse++;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await parsed).toEqual([200, 1, source.length]);
    expect(answeredDuringParse).toBeGreaterThan(5);
    // Kept: the next request is answered from memory, with the same etag.
    const again = await fetch(`${baseUrl}/api/v1/public/content/${version.contentHash}/parsed`);
    expect([again.status, again.headers.get('etag')]).toEqual([200, `"${version.contentHash}.blocks-1"`]);
  });
});
