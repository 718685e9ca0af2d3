/** Injection tokens of the service's own singletons (ports have theirs in their libraries). */
export const PROJECTION_RUNNER = Symbol('PROJECTION_RUNNER');
export const RELAYER = Symbol('RELAYER');
export const INFRA_OPTIONS = Symbol('INFRA_OPTIONS');
/** The relayer as a synchronous `node:crypto` signer (same key as RELAYER), for the acceptance hot path. */
export const RELAYER_SIGNER = Symbol('RELAYER_SIGNER');
/** The lease that lets one process run the projections and processors (infrastructure/runner-lease.ts). */
export const RUNNER_LEASE = Symbol('RUNNER_LEASE');
