import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../apps/cli/src/paths';

const exec = promisify(execFile);

/** The compiled benchmark (`npm test` builds it first); BENCH_SCRIPT points at another build. */
const script = process.env.BENCH_SCRIPT ?? path.join(projectRoot(), 'dist', 'test', 'bench', 'run-bench.js');
const built = existsSync(script);

/** Every figure the table must carry, by the start of its name. */
const FIGURES = [
  'ceiling: raw LiteSVM executions',
  'ceiling: node:crypto Ed25519 verifications',
  'ceiling: bare Fastify JSON GET',
  'wallet acceptances, direct mode',
  'wallet acceptances, one client',
  'wallet acceptances, batched',
  'GET /v1/public/acceptances/{id}',
  'GET /v1/public/acceptances/{id}/receipt',
  'scale 200: synthesize acceptances',
  'scale 200: catch-up launch (log unseen by projections and processors) → first /api/ready',
  'scale 200: catch-up launch → first public read',
  'scale 200: svc rebuild-projections',
  'scale 200: restart (read models up to date) → first /api/ready',
  'scale 200: restart → first public read',
  'scale 200: GET /v1/public/acceptances/{id} while the start-up log check runs',
  'scale 200: restart → start-up check of the whole event log done',
  'scale 200: restart → projections and processors caught up, log check done (service idle)',
  'scale 200: GET /v1/public/acceptances/{id} (vs. small data set)',
  'scale 200: first launch, no read models → first /api/ready',
  'scale 200: first launch, no read models → first public read of the last one',
  'scale 200: first launch, no read models → indexes built, service idle',
  'scale 200: first launch, no read models: longest GET /api/health answer meanwhile',
];

/** The table's cells, row by row (cli-table3's box drawing: cells between `│`). */
function tableRows(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('│'))
    .map((line) => line.split('│').slice(1, -1).map((cell) => cell.trim()));
}

const isNumber = (cell: string | undefined) => cell !== undefined && /^\d+(\.\d+)?$/.test(cell);

(built ? describe : describe.skip)(`npm run bench --smoke${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  let stdout = '';

  beforeAll(async () => {
    const env = { ...process.env };
    for (const name of ['BENCH_SECONDS', 'BENCH_BATCHED_SECONDS', 'BENCH_CONCURRENCY', 'BENCH_SCALE']) delete env[name];
    ({ stdout } = await exec(process.execPath, [script, '--smoke'], { env, maxBuffer: 16 * 1024 * 1024, timeout: 110_000 }));
  }, 120_000);

  it('prints one table with the agreed columns and every figure, each with a number', () => {
    const rows = tableRows(stdout);
    expect(rows[0]).toEqual(['figure', 'per s', 'ceiling /s', 'ratio %', 'target %', 'p50 ms', 'p99 ms', 'RSS MB', 'time s']);
    const body = rows.slice(1);
    for (const figure of FIGURES) {
      const row = body.find((cells) => cells[0]!.startsWith(figure) && (figure.endsWith('{id}') ? !cells[0]!.includes('/receipt') : true));
      expect({ figure, found: row !== undefined }).toEqual({ figure, found: true });
      // A throughput figure has its rate; a one-off figure (start-up, rebuild) its seconds.
      expect({ figure, numeric: isNumber(row![1]) || isNumber(row![8]) }).toEqual({ figure, numeric: true });
    }
    expect(body).toHaveLength(FIGURES.length);
  });

  it('holds each service figure against its ceiling with a ratio, a target and latencies', () => {
    const body = tableRows(stdout).slice(1);
    const served = body.filter((cells) => !cells[0]!.startsWith('ceiling') && cells[4] !== '—');
    expect(served.map((cells) => cells[0]!.split(' (')[0])).toEqual([
      'wallet acceptances, direct mode',
      'GET /v1/public/acceptances/{id}',
      'GET /v1/public/acceptances/{id}/receipt',
      'scale 200: GET /v1/public/acceptances/{id}',
    ]);
    for (const cells of served) {
      expect(Number(cells[1])).toBeGreaterThan(0);
      expect(isNumber(cells[2]) && isNumber(cells[3])).toBe(true);
      expect(cells[4]).toMatch(/^≥ \d+ (ok|MISSED)$/);
      expect(isNumber(cells[5]) && isNumber(cells[6])).toBe(true);
    }
  });

  it('says the scale data is synthesized and breaks the acceptance time down by stage', () => {
    expect(stdout).toContain('synthesized, not relayed');
    expect(stdout).toMatch(/Where an acceptance's time goes/);
    expect(stdout).toMatch(/%\s+event store commits/);
    expect(stdout).toMatch(/%\s+ledger execution/);
  });
});
