import type { FastifyRequest } from 'fastify';

/**
 * Who an authenticated request acts for, set by the guard that authenticated it: a dashboard session (spec §5
 * "Dashboard session") or an organization's API key (spec §5 "API keys"). Cross-cutting behaviour scoped to the
 * caller (stored idempotent responses, spec §8) keys on `scope`.
 */
export type Caller =
  | { kind: 'session'; id: string; address: string }
  | { kind: 'api_key'; id: string; organizationId: string };

const CALLER = Symbol('caller');

type WithCaller = { [CALLER]?: Caller };

export function setCaller(request: object, caller: Caller): void {
  (request as WithCaller)[CALLER] = caller;
}

/** The caller of an authenticated request; undefined on public routes. */
export function callerOf(request: FastifyRequest | object): Caller | undefined {
  return (request as WithCaller)[CALLER];
}

/** A stable key for the caller: `session:<wallet address>` or `api_key:<keyId>`. */
export function callerScope(caller: Caller): string {
  return caller.kind === 'session' ? `session:${caller.address}` : `api_key:${caller.id}`;
}
