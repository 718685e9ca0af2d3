/**
 * Solana's PubSub websocket over a ledger that can be subscribed to ({@link LedgerInspector.subscribe}):
 * `signatureSubscribe`, `slotSubscribe`, `rootSubscribe`, `accountSubscribe` (notified when a transaction wrote the account), `logsSubscribe` and
 * their `*Unsubscribe`, JSON-RPC 2.0 over websocket frames (the `ws` package), with notifications
 * shaped as Solana's RPC sends them (`{jsonrpc, method: "<kind>Notification", params: {result,
 * subscription}}`).
 *
 * Where clients find it (libs/ledger/README.md, "PubSub websocket"):
 * - on the HTTP server itself, upgrading requests to the JSON-RPC path (`ws://<host>:<port>/rpc`):
 *   what `@solana/kit`'s `createSolanaRpcSubscriptions` is given, and what web3.js 1.x derives from
 *   an endpoint without a port (behind a reverse proxy on 80/443);
 * - on the HTTP port + 1, any path, as an Agave validator does: web3.js 1.x `Connection` derives
 *   `ws://<host>:<port + 1><path>` from an endpoint with an explicit port.
 *
 * Commitment (`finalized` when absent, like Solana): `processed` and `confirmed` notify when the
 * transaction is journaled; `finalized` once the root reaches its slot (32 slots later on the
 * embedded ledger), with account values read at `finalized`. A signature that already landed at
 * the requested commitment is notified at once after the subscription answer.
 *
 * Limits: frames up to `maxPayload` bytes, at most `maxSubscriptions` per connection and
 * `maxConnectionsPerClient` per client address, batches up to `maxBatch` calls, and every call
 * counted by `countCalls` like on the HTTP endpoint (a refused call gets JSON-RPC error 429 with
 * `data.retryAfterSeconds`).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Commitment, Ledger } from '../ledger.port';
import type { LandedTransactionEvent, LedgerInspector } from '../ledger-inspector';
import { encodeBase58 } from '../internal/base58';
import { invalidParams, JsonRpcFailure, malformedParams, methodNotFound, toJsonRpcFailure } from './json-rpc-errors';
import { addressParam, commitmentOf, config, readRequest, requestIdOf, signatureString, type Params } from './json-rpc-params';
import { stringifyJson } from './json';
import { accountEncodingOf, encodeAccountData, type AccountEncoding } from './json-rpc-accounts';
import { asksForWebsocket, serveWithoutUpgrade } from './upgrade-fallback';
import type { CallAllowance } from './rpc-limits';

export interface LedgerPubSubOptions {
  /** Path upgraded on the HTTP server, e.g. `/rpc`. */
  path: string;
  /**
   * Also listen on the HTTP port + 1 (any path), where web3.js 1.x looks for the websocket of an
   * endpoint with an explicit port (default true). A busy port is logged and skipped.
   */
  secondaryPort?: boolean;
  /** Largest frame in bytes (default 64 KiB). */
  maxPayload?: number;
  /** Subscriptions one connection may hold (default 1,000). */
  maxSubscriptions?: number;
  /** Open connections per client address (default 32). */
  maxConnectionsPerClient?: number;
  /** Calls per frame (batch), default 100. */
  maxBatch?: number;
  /** Counts every call (each of a batch) against the client's budget; default no limit. */
  countCalls?: (client: { ip: string }, calls: number) => CallAllowance;
  /** Client address of an upgrade request (default the socket's remote address). */
  clientAddress?: (request: IncomingMessage) => string;
  /** Where a warning goes, such as the port + 1 being busy (default Fastify's own logger). */
  warn?: (message: string) => void;
}

type Json = Record<string, unknown>;

interface Subscription {
  id: number;
  conn: Connection;
  kind: 'signature' | 'slot' | 'root' | 'account' | 'logs';
  commitment: Commitment;
  /** signature: the signature; account: the address; logs: the mentioned address or null for all. */
  key: string | null;
  encoding: AccountEncoding;
  received: boolean;
}

interface Connection {
  socket: WebSocket;
  client: string;
  subscriptions: Map<number, Subscription>;
  alive: boolean;
}

/** What a `finalized` subscription waits for: the root reaching `slot`. */
interface Deferred {
  slot: bigint;
  run: (root: bigint) => void;
}

const UNSUBSCRIBE: Record<string, Subscription['kind']> = {
  signatureUnsubscribe: 'signature',
  slotUnsubscribe: 'slot',
  rootUnsubscribe: 'root',
  accountUnsubscribe: 'account',
  logsUnsubscribe: 'logs',
};

const HEARTBEAT_MS = 30_000;


/**
 * Serves the PubSub websocket for `ledger` on `fastify`'s server (and port + 1); see the file comment.
 * Call before `listen()`. Nothing is served when the ledger cannot be subscribed to.
 * @returns false when the ledger offers no subscriptions.
 */
export function registerLedgerPubSub(fastify: FastifyInstance, ledger: Ledger & LedgerInspector, options: LedgerPubSubOptions): boolean {
  if (!ledger.subscribe) return false;
  const maxSubscriptions = options.maxSubscriptions ?? 1_000;
  const maxPerClient = options.maxConnectionsPerClient ?? 32;
  const maxBatch = options.maxBatch ?? 100;
  const clientOf = options.clientAddress ?? ((r: IncomingMessage) => r.socket.remoteAddress ?? 'unknown');
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload ?? 64 * 1024 });
  const connections = new Set<Connection>();
  const perClient = new Map<string, number>();
  let nextId = 1;
  let secondary: Server | null = null;

  // Indexes of live subscriptions.
  const bySignature = new Map<string, Set<Subscription>>();
  const byAccount = new Map<string, Set<Subscription>>();
  const logsAll = new Set<Subscription>();
  const logsMentions = new Map<string, Set<Subscription>>();
  const slotSubs = new Set<Subscription>();
  const rootSubs = new Set<Subscription>();
  const deferred: Deferred[] = [];

  const indexOf = (sub: Subscription): Set<Subscription> => {
    const keyed = (map: Map<string, Set<Subscription>>): Set<Subscription> => {
      let set = map.get(sub.key!);
      if (set === undefined) map.set(sub.key!, (set = new Set()));
      return set;
    };
    switch (sub.kind) {
      case 'signature':
        return keyed(bySignature);
      case 'account':
        return keyed(byAccount);
      case 'logs':
        return sub.key === null ? logsAll : keyed(logsMentions);
      case 'slot':
        return slotSubs;
      case 'root':
        return rootSubs;
    }
  };
  /** Ends a subscription (an unsubscribe, a closed connection, or a signature notified). */
  const drop = (sub: Subscription): void => {
    sub.conn.subscriptions.delete(sub.id);
    const set = indexOf(sub);
    set.delete(sub);
    if (set.size === 0 && sub.key !== null) {
      if (sub.kind === 'signature') bySignature.delete(sub.key);
      else if (sub.kind === 'account') byAccount.delete(sub.key);
      else if (sub.kind === 'logs') logsMentions.delete(sub.key);
    }
  };
  const live = (sub: Subscription): boolean => sub.conn.subscriptions.get(sub.id) === sub;

  const notify = (sub: Subscription, method: string, result: unknown): void => {
    const socket = sub.conn.socket;
    if (socket.readyState !== socket.OPEN) return;
    socket.send(stringifyJson({ jsonrpc: '2.0', method, params: { result, subscription: sub.id } }));
  };
  const later = (slot: bigint, run: (root: bigint) => void): void => {
    // Kept sorted by slot; transactions arrive in slot order, so this is nearly always an append.
    let i = deferred.length;
    while (i > 0 && deferred[i - 1]!.slot > slot) i--;
    deferred.splice(i, 0, { slot, run });
  };

  const accountValue = async (sub: Subscription, commitment: Commitment): Promise<Json> => {
    const info = ledger.getAccountInfo ? await ledger.getAccountInfo(sub.key!, commitment) : null;
    const lamports = info?.lamports ?? (await ledger.getBalance(sub.key! as never, commitment));
    const data = info?.data ?? new Uint8Array(0);
    return {
      lamports,
      data: encodeAccountData(data, sub.encoding, 'mark'),
      owner: info?.owner ?? '11111111111111111111111111111111',
      executable: info?.executable ?? false,
      rentEpoch: info?.rentEpoch ?? 0n,
      space: data.length,
    };
  };
  const sendAccount = (sub: Subscription, slot: bigint, commitment: Commitment): void => {
    accountValue(sub, commitment).then(
      (value) => notify(sub, 'accountNotification', { context: { slot }, value }),
      () => undefined,
    );
  };

  const onTransaction = (tx: LandedTransactionEvent): void => {
    const sigSubs = bySignature.get(tx.signature);
    if (sigSubs !== undefined) {
      for (const sub of [...sigSubs]) {
        if (sub.received) notify(sub, 'signatureNotification', { context: { slot: tx.slot }, value: 'receivedSignature' });
        if (sub.commitment === 'finalized') {
          later(tx.slot, (root) => {
            if (!live(sub)) return;
            drop(sub);
            notify(sub, 'signatureNotification', { context: { slot: root }, value: { err: tx.err } });
          });
        } else {
          drop(sub);
          notify(sub, 'signatureNotification', { context: { slot: tx.slot }, value: { err: tx.err } });
        }
      }
    }
    const logs = (sub: Subscription): void => {
      const send = (slot: bigint): void =>
        notify(sub, 'logsNotification', { context: { slot }, value: { signature: tx.signature, err: tx.err, logs: tx.logs } });
      if (sub.commitment === 'finalized') later(tx.slot, (root) => live(sub) && send(root));
      else send(tx.slot);
    };
    for (const sub of logsAll) logs(sub);
    for (const { address, written } of tx.accounts) {
      for (const sub of logsMentions.get(address) ?? []) logs(sub);
      // As Agave: only accounts the transaction wrote (a failed one writes only its fee payer).
      if (!written) continue;
      for (const sub of byAccount.get(address) ?? []) {
        if (sub.commitment === 'finalized') later(tx.slot, (root) => live(sub) && sendAccount(sub, root, 'finalized'));
        else sendAccount(sub, tx.slot, sub.commitment);
      }
    }
  };

  let lastRoot = -1n;
  const onSlot = (slot: bigint, parent: bigint, root: bigint): void => {
    for (const sub of slotSubs) notify(sub, 'slotNotification', { parent, root, slot });
    if (root !== lastRoot) {
      lastRoot = root;
      for (const sub of rootSubs) notify(sub, 'rootNotification', root);
    }
    let n = 0;
    while (n < deferred.length && deferred[n]!.slot <= root) n++;
    if (n > 0) for (const d of deferred.splice(0, n)) d.run(root);
  };

  const stopListening = ledger.subscribe({ transaction: onTransaction, slot: onSlot });

  const subscribe = async (conn: Connection, method: string, params: Params): Promise<number> => {
    if (conn.subscriptions.size >= maxSubscriptions) {
      throw invalidParams(`Too many subscriptions on this connection; max ${maxSubscriptions}`);
    }
    const base = { id: nextId++, conn, encoding: 'base58' as const, received: false };
    let sub: Subscription;
    let after: (() => Promise<void>) | null = null;
    switch (method) {
      case 'slotSubscribe':
        sub = { ...base, kind: 'slot', commitment: 'processed', key: null };
        break;
      case 'rootSubscribe':
        sub = { ...base, kind: 'root', commitment: 'finalized', key: null };
        break;
      case 'accountSubscribe': {
        const address = addressParam(params, 0);
        const c = config(params, 1);
        sub = { ...base, kind: 'account', commitment: commitmentOf(c), key: address, encoding: accountEncodingOf(c, 'binary') };
        break;
      }
      case 'logsSubscribe': {
        const filter = params[0];
        const c = config(params, 1);
        let key: string | null = null;
        if (filter !== 'all' && filter !== 'allWithVotes') {
          const mentions = (filter as { mentions?: unknown } | null)?.mentions;
          if (!Array.isArray(mentions)) throw malformedParams('invalid type: filter must be "all", "allWithVotes" or {"mentions": [<address>]}');
          if (mentions.length !== 1) throw invalidParams('Invalid Request: Only 1 address supported');
          key = addressParam(mentions, 0);
        }
        sub = { ...base, kind: 'logs', commitment: commitmentOf(c), key };
        break;
      }
      case 'signatureSubscribe': {
        const signature = signatureString(params[0]);
        const c = config(params, 1);
        sub = { ...base, kind: 'signature', commitment: commitmentOf(c), key: signature, received: c.enableReceivedNotification === true };
        const s = sub;
        // Already landed: notify (now, or when its slot is finalized) without waiting for another event.
        after = async () => {
          const [status] = await ledger.getSignatureStatuses([signature as never]);
          if (!status || !live(s)) return;
          const value = { err: status.err ?? null };
          if (s.commitment === 'finalized' && status.confirmationStatus !== 'finalized') {
            later(status.slot, (root) => {
              if (!live(s)) return;
              drop(s);
              notify(s, 'signatureNotification', { context: { slot: root }, value });
            });
            return;
          }
          drop(s);
          const slot = s.commitment === 'finalized' ? await ledger.getSlot('finalized') : status.slot;
          notify(s, 'signatureNotification', { context: { slot }, value });
        };
        break;
      }
      default:
        throw methodNotFound();
    }
    indexOf(sub).add(sub);
    conn.subscriptions.set(sub.id, sub);
    if (after !== null) {
      const run = after;
      setImmediate(() => void run().catch(() => undefined));
    }
    return sub.id;
  };

  const unsubscribe = (conn: Connection, kind: Subscription['kind'], params: Params): boolean => {
    const id = params[0];
    const sub = typeof id === 'number' ? conn.subscriptions.get(id) : undefined;
    if (sub === undefined || sub.kind !== kind) throw new JsonRpcFailure(-32602, 'Invalid subscription id.');
    drop(sub);
    return true;
  };

  const handleOne = async (conn: Connection, request: unknown, refused: CallAllowance | null): Promise<Json | null> => {
    const id = requestIdOf(request);
    try {
      const { method, params, notification } = readRequest(request);
      // A notification (no id), e.g. a client's keep-alive `ping`, gets no answer.
      if (notification) return null;
      if (refused !== null) {
        const retry = refused.retryAfterSeconds ?? 60;
        throw new JsonRpcFailure(429, `Too many requests: retry in ${retry} s`, { retryAfterSeconds: retry });
      }
      const kind = Object.prototype.hasOwnProperty.call(UNSUBSCRIBE, method) ? UNSUBSCRIBE[method] : undefined;
      const result = kind !== undefined ? unsubscribe(conn, kind, params) : await subscribe(conn, method, params);
      return { jsonrpc: '2.0', result, id };
    } catch (e) {
      return { jsonrpc: '2.0', error: toJsonRpcFailure(e).toJson(), id };
    }
  };

  const onMessage = async (conn: Connection, data: Buffer): Promise<void> => {
    let body: unknown;
    try {
      body = JSON.parse(data.toString('utf8'));
    } catch {
      conn.socket.send(stringifyJson({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }));
      return;
    }
    const batch = Array.isArray(body);
    const items = batch ? (body as unknown[]) : [body];
    if (items.length === 0 || items.length > maxBatch) {
      conn.socket.send(stringifyJson({ jsonrpc: '2.0', error: { code: -32600, message: `Invalid request: batch of 1 to ${maxBatch} calls` }, id: null }));
      return;
    }
    const allowance = options.countCalls?.({ ip: conn.client }, items.length) ?? { allowed: true };
    const refused = allowance.allowed ? null : allowance;
    const out: Json[] = [];
    for (const item of items) {
      const answer = await handleOne(conn, item, refused);
      if (answer !== null) out.push(answer);
    }
    if (out.length === 0 || conn.socket.readyState !== conn.socket.OPEN) return;
    conn.socket.send(stringifyJson(batch ? out : out[0]));
  };

  const accept = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const client = clientOf(request);
    const open = perClient.get(client) ?? 0;
    if (open >= maxPerClient) {
      // Destroyed once written: a half-closed socket would stay open as long as the client keeps its side.
      socket.end('HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nRetry-After: 60\r\nContent-Length: 0\r\n\r\n', () => socket.destroy());
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const conn: Connection = { socket: ws, client, subscriptions: new Map(), alive: true };
      connections.add(conn);
      perClient.set(client, (perClient.get(client) ?? 0) + 1);
      ws.on('pong', () => {
        conn.alive = true;
      });
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        if (isBinary) return;
        void onMessage(conn, data).catch(() => undefined);
      });
      ws.on('error', () => ws.terminate());
      ws.on('close', () => {
        connections.delete(conn);
        const left = (perClient.get(client) ?? 1) - 1;
        if (left <= 0) perClient.delete(client);
        else perClient.set(client, left);
        for (const sub of [...conn.subscriptions.values()]) drop(sub);
      });
    });
  };

  const pathOf = (url: string | undefined): string => (url ?? '/').split('?')[0]!;
  fastify.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (pathOf(request.url) === options.path && asksForWebsocket(request)) return accept(request, socket, head);
    // Nobody else upgrades on this server: any other request with `Connection: Upgrade` (curl --http2, Java's
    // HttpClient) is answered as an ordinary request, as if it had not asked.
    if (fastify.server.listenerCount('upgrade') === 1) serveWithoutUpgrade(fastify.server, request, socket, head);
  });

  const heartbeat = setInterval(() => {
    for (const conn of connections) {
      if (!conn.alive) {
        conn.socket.terminate();
        continue;
      }
      conn.alive = false;
      conn.socket.ping();
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();

  if (options.secondaryPort !== false) {
    fastify.addHook('onListen', async () => {
      const address = fastify.server.address() as AddressInfo | null;
      if (address === null || typeof address !== 'object') return;
      const server = createServer((_req, res) => {
        res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket', connection: 'Upgrade' });
        res.end('Upgrade Required: this port serves the ledger PubSub websocket\n');
      });
      server.on('upgrade', accept);
      await new Promise<void>((resolve) => {
        server.once('error', (e: NodeJS.ErrnoException) => {
          const message = `ledger PubSub websocket not served on port ${address.port + 1} (${e.code ?? e.message}): @solana/web3.js 1.x clients of ${options.path} find no websocket there; the path ${options.path} itself serves it`;
          if (options.warn) options.warn(message);
          else fastify.log.warn(message);
          resolve();
        });
        server.listen(address.port + 1, address.address, () => {
          secondary = server;
          resolve();
        });
      });
    });
  }

  fastify.addHook('onClose', async () => {
    clearInterval(heartbeat);
    stopListening();
    deferred.length = 0;
    for (const conn of connections) conn.socket.terminate();
    wss.close();
    const server = secondary as Server | null;
    if (server !== null) await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return true;
}
