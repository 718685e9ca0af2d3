/**
 * Deterministic crash points for the durability tests (docs/architecture.md "Durability"): when the process runs
 * with `NODE_ENV=test` and `SVC_TEST_KILL_AT=<point>` (or `<point>@<n>`: the n-th time the point is reached),
 * reaching it kills the process with SIGKILL, as a power cut would. Outside `NODE_ENV=test` the variable is
 * ignored, so no production configuration can arm it by accident.
 *
 * Points: `relay:before-send` (the transaction is recorded, not sent), `relay:after-send` (sent and landed,
 * outcome not recorded), `webhook:before-send` (a due webhook attempt, not sent), `webhook:after-send` (sent and
 * answered, the attempt not recorded), `batch:before-close` (a batch's leaves placed, the batch not recorded),
 * `batch:before-send` (a batch recorded, its anchor not sent), `batch:after-send` (the anchor landed, not recorded),
 * `finality:before-record` (a relayed acceptance's finalized slot known, `AcceptanceFinalized` not recorded),
 * `audit:before-send` (an audit anchor recorded, not sent), `audit:after-send` (the anchor landed, its outcome not
 * recorded), `publication:before-draft-mark` (a confirmed publication's version recorded, its draft not yet marked
 * published), `webhook:after-create`, `api-key:after-create`, `draft:after-create` (a new webhook endpoint, API key
 * or draft recorded, its answer not sent).
 */
export type FaultPoint =
  | 'relay:before-send'
  | 'relay:after-send'
  | 'webhook:before-send'
  | 'webhook:after-send'
  | 'batch:before-close'
  | 'batch:before-send'
  | 'batch:after-send'
  | 'finality:before-record'
  | 'audit:before-send'
  | 'audit:after-send'
  | 'publication:before-draft-mark'
  | 'webhook:after-create'
  | 'api-key:after-create'
  | 'draft:after-create';

const spec = process.env.NODE_ENV === 'test' ? process.env.SVC_TEST_KILL_AT : undefined;
const [armedPoint, armedAt] = spec ? [spec.split('@')[0], Number(spec.split('@')[1] ?? 1)] : [undefined, 0];
let reached = 0;

/** Marks a step boundary; kills the process when the test armed this point. */
export function faultPoint(point: FaultPoint): void {
  if (armedPoint !== point) return;
  reached += 1;
  if (reached >= armedAt) process.kill(process.pid, 'SIGKILL');
}
