/**
 * A Solana-compatible JSON-RPC 2.0 endpoint over any {@link Ledger}, so wallets, `@solana/kit`
 * (`createSolanaRpc`) and the verifier can talk to the embedded ledger like to a cluster.
 *
 * POST `<path>` with one request or a batch array (at most `maxBatch`, default 100). Notifications
 * (requests without `id`) run but get no response object, as JSON-RPC 2.0 and Agave's HTTP server
 * have it: no entry in a batch answer, and HTTP 200 with an empty body when nothing is left to
 * answer. An `id` that is not a string, a number or null is -32600. The methods
 * are in json-rpc-methods.ts, the error shapes in json-rpc-errors.ts. Limits (libs/ledger/README.md,
 * "Limits"): every call of a batch counts against the caller's budget (`countCalls`, answered by
 * HTTP 429 with `retry-after` and JSON-RPC error 429 when refused); airdrops are capped per request
 * and per minute per recipient and client address.
 *
 * With a ledger that can be subscribed to (the embedded one), the same path also serves Solana's
 * PubSub websocket (pubsub-server.ts), and so does the HTTP port + 1 where web3.js 1.x looks for it.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ledger } from '../ledger.port';
import type { LedgerInspector } from '../ledger-inspector';
import { methodNotFound, toJsonRpcFailure } from './json-rpc-errors';
import { isNotification, readRequest, requestIdOf } from './json-rpc-params';
import { createLedgerRpcMethods, type CallContext } from './json-rpc-methods';
import { stringifyJson } from './json';
import { AirdropGuard, DEFAULT_AIRDROP_LIMITS, type AirdropLimits, type CallAllowance } from './rpc-limits';
import { registerLedgerPubSub, type LedgerPubSubOptions } from './pubsub-server';

export interface LedgerJsonRpcOptions {
  /** Route path, e.g. `/rpc`. */
  path: string;
  /** Version reported by getVersion and in `context.apiVersion` (default `2.2.0`). */
  solanaVersion?: string;
  /**
   * Serve requestAirdrop (default true; the embedded ledger is a test network), with these caps
   * (default 2 SOL per request, 10 per minute per recipient and per client address).
   */
  airdrop?: boolean | Partial<AirdropLimits>;
  /** Maximum requests in one batch (default 100). */
  maxBatch?: number;
  /** Request body limit in bytes (default 1 MiB). */
  bodyLimit?: number;
  /**
   * Counts calls against the caller's budget: 1 for every request before its body is read (so a body refused
   * unparsed counts too), then the rest of a batch (length - 1) once parsed; a refusal answers HTTP 429 with
   * `retry-after` and executes nothing. Default: no limit.
   * `callsPerMinutePerClient(n)` (rpc-limits.ts) is a ready one.
   */
  countCalls?: (client: { ip: string }, calls: number) => CallAllowance;
  /**
   * Serve the PubSub websocket on `path` and on the HTTP port + 1 when the ledger can be subscribed
   * to (default true), with these limits; its calls count through `countCalls` too.
   */
  pubsub?: boolean | Omit<LedgerPubSubOptions, 'path' | 'countCalls'>;
}

/** `host:port` of a socket address as Rust prints a SocketAddr (`[v6]:port`); null when unknown. */
function socketAddress(host: string | undefined, port: number | undefined): string | null {
  if (host === undefined || port === undefined) return null;
  const plain = host.startsWith('::ffff:') && host.includes('.') ? host.slice(7) : host;
  return plain.includes(':') ? `[${plain}]:${port}` : `${plain}:${port}`;
}

function airdropGuard(option: LedgerJsonRpcOptions['airdrop']): AirdropGuard | null {
  if (option === false) return null;
  const limits = option === true || option === undefined ? DEFAULT_AIRDROP_LIMITS : { ...DEFAULT_AIRDROP_LIMITS, ...option };
  return new AirdropGuard(limits);
}

/**
 * Registers the JSON-RPC endpoint on `fastify` (POST `options.path`). Call before `listen()`.
 * Every response is HTTP 200 with a JSON-RPC body (an empty body when the request held only
 * notifications), except a refusal by `countCalls` and a lone refused airdrop (HTTP 429 with
 * `retry-after`, JSON-RPC error 429 with `data.retryAfterSeconds`).
 * @throws RangeError when the airdrop limits are not positive.
 */
export function registerLedgerJsonRpc(fastify: FastifyInstance, ledger: Ledger & LedgerInspector, options: LedgerJsonRpcOptions): void {
  const maxBatch = options.maxBatch ?? 100;
  const methods = createLedgerRpcMethods(ledger, { apiVersion: options.solanaVersion ?? '2.2.0', airdrops: airdropGuard(options.airdrop) });
  if (options.pubsub !== false) {
    const pubsub = typeof options.pubsub === 'object' ? options.pubsub : {};
    registerLedgerPubSub(fastify, ledger, { maxBatch, ...pubsub, path: options.path, countCalls: options.countCalls });
  }

  /** The response object of one request; null for a notification (it runs, nobody is told). */
  const handleOne = async (request: unknown, call: CallContext): Promise<Record<string, unknown> | null> => {
    const id = requestIdOf(request);
    const silent = isNotification(request);
    try {
      const r = readRequest(request);
      const method = Object.prototype.hasOwnProperty.call(methods, r.method) ? methods[r.method] : undefined;
      if (method === undefined) throw methodNotFound();
      const result = await method(r.params, call);
      return silent ? null : { jsonrpc: '2.0', result, id };
    } catch (e) {
      return silent ? null : { jsonrpc: '2.0', error: toJsonRpcFailure(e).toJson(), id };
    }
  };

  const send = (reply: FastifyReply, payload: unknown, status = 200): FastifyReply =>
    reply.code(status).header('content-type', 'application/json; charset=utf-8').send(stringifyJson(payload));
  const nothing = (reply: FastifyReply): FastifyReply => reply.code(200).header('content-type', 'application/json; charset=utf-8').send('');
  const fail = (reply: FastifyReply, code: number, message: string): FastifyReply => send(reply, { jsonrpc: '2.0', error: { code, message }, id: null });

  const tooMany = (reply: FastifyReply, retryAfterSeconds: number | undefined): FastifyReply => {
    const retry = retryAfterSeconds ?? 60;
    reply.header('retry-after', String(retry));
    return send(reply, { jsonrpc: '2.0', error: { code: 429, message: `Too many requests: retry in ${retry} s`, data: { retryAfterSeconds: retry } }, id: null }, 429);
  };

  fastify.post(
    options.path,
    {
      bodyLimit: options.bodyLimit ?? 1024 * 1024,
      // Every request counts one call before its body is read, so that bodies refused unparsed (invalid JSON, too
      // large, an empty or oversized batch) still spend the budget; the other calls of a batch count once parsed.
      onRequest: (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
        const allowance = options.countCalls?.(request, 1) ?? { allowed: true };
        if (allowance.allowed) return done();
        tooMany(reply, allowance.retryAfterSeconds);
      },
      errorHandler: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
        const parse = error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError || error.statusCode === 400;
        if (parse) return fail(reply, -32700, 'Parse error');
        if (error.statusCode === 413) return fail(reply, -32600, 'Request too large');
        if (error.statusCode === 415) return fail(reply, -32700, 'Parse error: the body must be application/json');
        if (error.statusCode === 429) {
          // Refused by a limiter in front of this route: as this server refuses calls itself (HTTP 429, error 429).
          const retry = Number(reply.getHeader('retry-after')) || 60;
          reply.header('retry-after', String(retry));
          return send(reply, { jsonrpc: '2.0', error: { code: 429, message: `Too many requests: retry in ${retry} s`, data: { retryAfterSeconds: retry } }, id: null }, 429);
        }
        return fail(reply, -32603, `Internal error: ${error.message}`);
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const body: unknown = request.body;
      // A text body (text/plain) reached the route unparsed: only application/json is taken, as Agave takes it.
      if (typeof body === 'string') return fail(reply, -32700, 'Parse error: the body must be application/json');
      const batch = Array.isArray(body);
      const calls = batch ? (body as unknown[]).length : 1;
      if (batch && calls === 0) return fail(reply, -32600, 'Invalid request: empty batch');
      if (calls > maxBatch) return fail(reply, -32600, `Invalid request: batch of ${calls} calls is over the limit of ${maxBatch}`);
      const allowance = calls > 1 ? (options.countCalls?.(request, calls - 1) ?? { allowed: true }) : { allowed: true };
      if (!allowance.allowed) return tooMany(reply, allowance.retryAfterSeconds);
      const call: CallContext = { clientAddress: request.ip, localAddress: socketAddress(request.socket.localAddress, request.socket.localPort) };
      if (!batch) {
        const response = await handleOne(body, call);
        if (response === null) return nothing(reply);
        const error = response.error as { code?: unknown; data?: { retryAfterSeconds?: unknown } } | undefined;
        if (error?.code !== 429) return send(reply, response);
        // A refused airdrop alone answers HTTP 429 as public test clusters do (stock clients expect it there).
        reply.header('retry-after', String(error.data?.retryAfterSeconds ?? 60));
        return send(reply, response, 429);
      }
      const out: unknown[] = [];
      // Sequential: keeps the order of transactions submitted in one batch.
      for (const item of body as unknown[]) {
        const response = await handleOne(item, call);
        if (response !== null) out.push(response);
      }
      return out.length === 0 ? nothing(reply) : send(reply, out);
    },
  );
}
