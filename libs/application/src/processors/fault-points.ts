/**
 * Deterministic crash points for the durability tests (docs/architecture.md "Durability"): when the process runs
 * with `NODE_ENV=test` and `SVC_TEST_KILL_AT=<point>`, reaching that point kills the process with SIGKILL, as a
 * power cut would. Outside `NODE_ENV=test` the variable is ignored, so no production configuration can set it by
 * accident.
 *
 * Points: `relay:before-send` (the transaction is recorded, not sent), `relay:after-send` (sent and landed,
 * outcome not recorded).
 */
export type FaultPoint = 'relay:before-send' | 'relay:after-send';

const armed: string | undefined = process.env.NODE_ENV === 'test' ? process.env.SVC_TEST_KILL_AT : undefined;

export function faultPoint(point: FaultPoint): void {
  if (armed === point) process.kill(process.pid, 'SIGKILL');
}
