/**
 * Messages between the benchmark and its child processes (Node IPC, JSON-serialisable).
 *
 * The load generator runs in its own process so that it never shares an event loop with the server it
 * measures; the service runs in another one, hosted by `service-host.ts` so that it can be profiled on demand.
 */

/** `GET` load under autocannon over keep-alive connections; each request picks one of `paths` at random. */
export interface HttpLoadJob {
  kind: 'http';
  /** Origin of the server, e.g. `http://127.0.0.1:3000`. */
  origin: string;
  /** Request paths (with query), at least one. */
  paths: string[];
  connections: number;
  seconds: number;
}

/**
 * Direct-mode wallet acceptances: each of `concurrency` loops makes a fresh Ed25519 key, asks a challenge
 * (`POST /api/v1/acceptance/challenges`), signs its message and submits it, until `seconds` have passed.
 */
export interface AcceptanceLoadJob {
  kind: 'acceptances';
  /** Origin of the service, e.g. `http://127.0.0.1:3000`. */
  origin: string;
  organization: string;
  document: string;
  /** `Origin` header sent as the requesting site. */
  requestOrigin: string;
  concurrency: number;
  seconds: number;
  /** The answer counted: `confirmed` (direct mode, the default) or `pending_batch` (batched evidence, no transaction yet). */
  expectStatus?: 'confirmed' | 'pending_batch';
}

export type LoadJob = HttpLoadJob | AcceptanceLoadJob;

/** Latency percentiles, in milliseconds. */
export interface Percentiles {
  p50: number;
  p99: number;
}

/** What every load figure reports. */
export interface LoadOutcome {
  /** Answers that count (2xx for reads; `confirmed` with a transaction signature for acceptances). */
  ok: number;
  /** Answers that do not count, by reason (`http_<status>`, an API error code, `connection`, …). */
  failures: Record<string, number>;
  /** Measured wall-clock seconds. */
  seconds: number;
  latency: Percentiles;
}

export interface HttpLoadResult extends LoadOutcome {
  kind: 'http';
}

/** An acceptance the service answered `confirmed` (with its transaction) or `pending_batch` (transaction null). */
export interface ConfirmedAcceptance {
  acceptanceId: string;
  transactionSignature: string | null;
}

export interface AcceptanceLoadResult extends LoadOutcome {
  kind: 'acceptances';
  confirmed: ConfirmedAcceptance[];
  /** Latency of the challenge request alone and of the submit request alone. */
  challengeLatency: Percentiles;
  submitLatency: Percentiles;
}

export type LoadResult = HttpLoadResult | AcceptanceLoadResult;

/** A failure inside a child process, reported instead of a result. */
export interface ChildFailure {
  kind: 'error';
  message: string;
}

/** Commands the benchmark sends to the service host. */
export type HostCommand = { kind: 'profile:start' } | { kind: 'profile:stop'; file: string };

/** Answers of the service host. */
export type HostReply = { kind: 'profile:started' } | { kind: 'profile:stopped'; file: string } | ChildFailure;

/** First message of the bare Fastify server: the port it listens on. */
export interface ListeningMessage {
  kind: 'listening';
  port: number;
}
