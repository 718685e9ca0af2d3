/**
 * A Solana-compatible JSON-RPC 2.0 endpoint over any {@link Ledger}, so wallets, `@solana/kit`
 * (`createSolanaRpc`) and the verifier can talk to the embedded ledger like to a cluster.
 *
 * POST `<path>` with one request or a batch array. Implemented methods: getLatestBlockhash,
 * sendTransaction, simulateTransaction, getSignatureStatuses, getTransaction,
 * getSignaturesForAddress, getBalance, getAccountInfo, getSlot, getBlockHeight, getBlockTime,
 * getGenesisHash, getVersion, getHealth, requestAirdrop, getFeeForMessage,
 * getMinimumBalanceForRentExemption, isBlockhashValid. Result shapes follow Solana's RPC
 * (`{context: {slot, apiVersion}, value}` where Solana wraps; u64 as JSON numbers).
 *
 * Errors: -32700 parse error, -32600 invalid request, -32601 method not found, -32602 invalid
 * params, -32603 internal, -32002 transaction failed (`data: {err, logs, …}` like a failed
 * preflight), -32003 signature verification failure, -32004 block not available,
 * -32005 unhealthy, -32015 unsupported transaction version, -32016 min context slot not reached.
 *
 * Commitment defaults follow Solana: `getTransaction` and `getSignaturesForAddress` default to
 * `finalized` (kit's client sends `confirmed`); account/slot reads always see the latest state.
 *
 * Preflight: the embedded ledger executes atomically, so `sendTransaction` runs the transaction
 * for real. A transaction that fails during execution is on the ledger with its error (fee
 * charged); with `skipPreflight: true` its signature is returned (as a cluster would), otherwise
 * the -32002 error is.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TransactionFailedError, type Commitment, type Ledger } from '../ledger.port';
import type { AddressSignatureWithMemo, DetailedLedgerTransaction, LedgerInspector } from '../ledger-inspector';
import { LedgerInputError, LedgerTransactionFailedError } from '../errors';
import { decodeBase58, encodeBase58, tryDecodeBase58Fixed } from '../internal/base58';
import { describeTransactionError } from '../internal/tx-error';
import { parseWireTransaction, type WireMessage } from '../internal/wire';
import { stringifyJson } from './json';

export interface LedgerJsonRpcOptions {
  /** Route path, e.g. `/rpc`. */
  path: string;
  /** Version reported by getVersion and in `context.apiVersion` (default `2.2.0`). */
  solanaVersion?: string;
  /** Serve requestAirdrop (default true; the embedded ledger is a test network). */
  airdrop?: boolean;
  /** Maximum requests in one batch (default 100). */
  maxBatch?: number;
  /** Request body limit in bytes (default 1 MiB). */
  bodyLimit?: number;
}

type Params = unknown[];
type JsonRpcId = string | number | null;

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const invalidParams = (message: string): RpcError => new RpcError(-32602, `Invalid params: ${message}`);
const COMMITMENT_RANK: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };

function config(params: Params, index: number): Record<string, unknown> {
  const c = params[index];
  if (c === undefined || c === null) return {};
  if (typeof c !== 'object' || Array.isArray(c)) throw invalidParams(`expected a configuration object at position ${index}`);
  return c as Record<string, unknown>;
}

function stringParam(params: Params, index: number, what: string): string {
  const v = params[index];
  if (typeof v !== 'string') throw invalidParams(`${what} must be a string`);
  return v;
}

function addressParam(params: Params, index: number): string {
  const v = stringParam(params, index, 'address');
  if (tryDecodeBase58Fixed(v, 32) === null) throw invalidParams('Invalid param: WrongSize');
  return v;
}

function signatureString(v: unknown): string {
  if (typeof v !== 'string' || tryDecodeBase58Fixed(v, 64) === null) throw invalidParams('Invalid param: not a base58 signature');
  return v;
}

function u64Param(v: unknown, what: string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'bigint' && v >= 0n) return v;
  throw invalidParams(`${what} must be a non-negative integer`);
}

function commitmentOf(c: Record<string, unknown>, fallback: Commitment = 'finalized'): Commitment {
  const v = c.commitment ?? fallback;
  if (v === 'processed' || v === 'confirmed' || v === 'finalized') return v;
  throw invalidParams(`unknown commitment ${String(v)}`);
}

function decodeWire(encoded: string, encoding: unknown): Uint8Array {
  const enc = encoding ?? 'base58';
  let bytes: Uint8Array;
  if (enc === 'base64') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) throw invalidParams('invalid base64 encoding');
    bytes = new Uint8Array(Buffer.from(encoded, 'base64'));
  } else if (enc === 'base58') {
    try {
      bytes = decodeBase58(encoded);
    } catch {
      throw invalidParams('invalid base58 encoding');
    }
  } else {
    throw invalidParams(`unsupported encoding: ${String(enc)}. Supported encodings: base58, base64`);
  }
  try {
    parseWireTransaction(bytes);
  } catch (e) {
    throw invalidParams(`failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(e as Error).message}`);
  }
  return bytes;
}

function statusField(err: unknown): Record<string, unknown> {
  return err === null || err === undefined ? { Ok: null } : { Err: err };
}

function messageJson(message: WireMessage, signatures: Uint8Array[]): Record<string, unknown> {
  const out: Record<string, unknown> = {
    accountKeys: message.accountKeys.map(encodeBase58),
    header: message.header,
    instructions: message.instructions.map((ix) => ({
      programIdIndex: ix.programIdIndex,
      accounts: [...ix.accounts],
      data: encodeBase58(ix.data),
      stackHeight: null,
    })),
    recentBlockhash: encodeBase58(message.recentBlockhash),
  };
  if (message.version === 0) {
    out.addressTableLookups = message.addressTableLookups.map((l) => ({
      accountKey: encodeBase58(l.accountKey),
      writableIndexes: [...l.writableIndexes],
      readonlyIndexes: [...l.readonlyIndexes],
    }));
  }
  return { signatures: signatures.map(encodeBase58), message: out };
}

/**
 * Registers the JSON-RPC endpoint on `fastify` (POST `options.path`). Call before `listen()`.
 * Methods backed by {@link LedgerInspector} extras answer -32601 when the ledger lacks them.
 */
export function registerLedgerJsonRpc(
  fastify: FastifyInstance,
  ledger: Ledger & LedgerInspector,
  options: LedgerJsonRpcOptions,
): void {
  const apiVersion = options.solanaVersion ?? '2.2.0';
  const maxBatch = options.maxBatch ?? 100;
  const airdrop = options.airdrop ?? true;

  const context = async (c: Record<string, unknown> = {}): Promise<{ slot: bigint; apiVersion: string }> => {
    const slot = await ledger.getSlot();
    if (c.minContextSlot !== undefined && c.minContextSlot !== null) {
      const min = u64Param(c.minContextSlot, 'minContextSlot');
      if (min > slot) throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: slot });
    }
    return { slot, apiVersion };
  };

  const transactionFailure = (e: TransactionFailedError): RpcError => {
    if (e.err === 'SignatureFailure') return new RpcError(-32003, 'Transaction signature verification failure');
    return new RpcError(-32002, `Transaction simulation failed: ${describeTransactionError(e.err)}`, {
      err: e.err ?? null,
      logs: e.logs,
      accounts: null,
      unitsConsumed: 0,
      returnData: null,
      innerInstructions: null,
      replacementBlockhash: null,
      loadedAccountsDataSize: 0,
      fee: null,
      preBalances: null,
      postBalances: null,
      preTokenBalances: null,
      postTokenBalances: null,
      loadedAddresses: null,
    });
  };

  const methods: Record<string, (params: Params) => Promise<unknown>> = {
    getHealth: async () => {
      if (!(await ledger.ping())) throw new RpcError(-32005, 'Node is unhealthy');
      return 'ok';
    },
    getVersion: async () => ({ 'solana-core': apiVersion, 'feature-set': 0 }),
    getGenesisHash: async () => ledger.getGenesisHash(),
    getSlot: async (p) => {
      const c = config(p, 0);
      await context(c);
      return ledger.getSlot(commitmentOf(c));
    },
    getBlockHeight: async (p) => {
      const c = config(p, 0);
      await context(c);
      return ledger.getBlockHeight(commitmentOf(c));
    },
    getLatestBlockhash: async (p) => {
      const c = config(p, 0);
      const ctx = await context(c);
      const value = await ledger.getLatestBlockhash();
      return { context: ctx, value: { blockhash: value.blockhash, lastValidBlockHeight: value.lastValidBlockHeight } };
    },
    isBlockhashValid: async (p) => {
      const blockhash = stringParam(p, 0, 'blockhash');
      if (tryDecodeBase58Fixed(blockhash, 32) === null) throw invalidParams('Invalid param: WrongSize');
      const c = config(p, 1);
      const ctx = await context(c);
      if (!ledger.isBlockhashValid) throw new RpcError(-32601, 'Method not found');
      return { context: ctx, value: await ledger.isBlockhashValid(blockhash) };
    },
    getBalance: async (p) => {
      const address = addressParam(p, 0);
      const ctx = await context(config(p, 1));
      return { context: ctx, value: await ledger.getBalance(address) };
    },
    getAccountInfo: async (p) => {
      const address = addressParam(p, 0);
      const c = config(p, 1);
      const encoding = c.encoding ?? 'base58';
      if (encoding !== 'base64' && encoding !== 'base58' && encoding !== 'jsonParsed') {
        throw invalidParams(`unsupported encoding: ${String(encoding)}`);
      }
      if (!ledger.getAccountInfo) throw new RpcError(-32601, 'Method not found');
      const ctx = await context(c);
      const info = await ledger.getAccountInfo(address);
      if (info === null) return { context: ctx, value: null };
      let data = info.data;
      const slice = c.dataSlice as { offset?: unknown; length?: unknown } | undefined;
      if (slice) {
        const offset = Number(u64Param(slice.offset, 'dataSlice.offset'));
        const length = Number(u64Param(slice.length, 'dataSlice.length'));
        data = data.subarray(Math.min(offset, data.length), Math.min(offset + length, data.length));
      }
      let encoded: [string, string];
      if (encoding === 'base58') {
        if (data.length > 128) {
          throw invalidParams('Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.');
        }
        encoded = [encodeBase58(data), 'base58'];
      } else {
        encoded = [Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64'), 'base64'];
      }
      return {
        context: ctx,
        value: {
          data: encoded,
          executable: info.executable,
          lamports: info.lamports,
          owner: info.owner,
          rentEpoch: info.rentEpoch,
          space: info.data.length,
        },
      };
    },
    getMinimumBalanceForRentExemption: async (p) => {
      const size = u64Param(p[0], 'data length');
      await context(config(p, 1));
      return ledger.getMinimumBalanceForRentExemption(Number(size));
    },
    getFeeForMessage: async (p) => {
      const message = stringParam(p, 0, 'message');
      const ctx = await context(config(p, 1));
      return { context: ctx, value: await ledger.getFeeForMessage(message) };
    },
    getBlockTime: async (p) => {
      const slot = u64Param(p[0], 'slot');
      if (!ledger.getBlockTime) throw new RpcError(-32601, 'Method not found');
      const time = await ledger.getBlockTime(slot);
      if (time === null) throw new RpcError(-32004, `Block not available for slot ${slot}`);
      return time;
    },
    requestAirdrop: async (p) => {
      if (!airdrop) throw new RpcError(-32601, 'Method not found');
      const address = addressParam(p, 0);
      const lamports = u64Param(p[1], 'lamports');
      return ledger.requestAirdrop(address, lamports);
    },
    sendTransaction: async (p) => {
      const c = config(p, 1);
      const wire = decodeWire(stringParam(p, 0, 'transaction'), c.encoding);
      await context(c);
      try {
        return await ledger.sendTransaction(wire, { skipPreflight: c.skipPreflight === true, commitment: 'processed' });
      } catch (e) {
        if (!(e instanceof TransactionFailedError)) throw e;
        if (c.skipPreflight === true && e instanceof LedgerTransactionFailedError && e.landed && e.signature) return e.signature;
        throw transactionFailure(e);
      }
    },
    simulateTransaction: async (p) => {
      const c = config(p, 1);
      const wire = decodeWire(stringParam(p, 0, 'transaction'), c.encoding);
      if (c.sigVerify === true && c.replaceRecentBlockhash === true) {
        throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
      }
      if (!ledger.simulateTransaction) throw new RpcError(-32601, 'Method not found');
      const ctx = await context(c);
      const r = await ledger.simulateTransaction(wire, {
        sigVerify: c.sigVerify === true,
        replaceRecentBlockhash: c.replaceRecentBlockhash === true,
      });
      const accounts = c.accounts as { addresses?: unknown } | undefined;
      return {
        context: ctx,
        value: {
          err: r.err,
          logs: r.logs,
          accounts: accounts && Array.isArray(accounts.addresses) ? accounts.addresses.map(() => null) : null,
          unitsConsumed: r.unitsConsumed,
          returnData: null,
          innerInstructions: c.innerInstructions === true ? [] : null,
          replacementBlockhash: r.replacementBlockhash,
          loadedAccountsDataSize: 0,
          fee: r.fee,
          preBalances: null,
          postBalances: null,
          preTokenBalances: null,
          postTokenBalances: null,
          loadedAddresses: null,
        },
      };
    },
    getSignatureStatuses: async (p) => {
      const sigs = p[0];
      if (!Array.isArray(sigs)) throw invalidParams('expected an array of signatures');
      if (sigs.length > 256) throw invalidParams('Too many inputs provided; max 256');
      const list = sigs.map(signatureString);
      const ctx = await context();
      const statuses = await ledger.getSignatureStatuses(list);
      return {
        context: ctx,
        value: statuses.map((s) =>
          s === null
            ? null
            : {
                slot: s.slot,
                confirmations: s.confirmations,
                err: s.err ?? null,
                status: statusField(s.err),
                confirmationStatus: s.confirmationStatus,
              },
        ),
      };
    },
    getSignaturesForAddress: async (p) => {
      const address = addressParam(p, 0);
      const c = config(p, 1);
      const commitment = commitmentOf(c);
      if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
      await context(c);
      const limit = c.limit === undefined || c.limit === null ? 1000 : Number(u64Param(c.limit, 'limit'));
      if (limit < 1 || limit > 1000) throw invalidParams('Invalid limit; max 1000');
      const before = c.before === undefined || c.before === null ? undefined : signatureString(c.before);
      const until = c.until === undefined || c.until === null ? undefined : signatureString(c.until);
      const entries = (await ledger.getSignaturesForAddress(address, { limit, before })) as AddressSignatureWithMemo[];
      const out: unknown[] = [];
      for (const e of entries) {
        if (until !== undefined && e.signature === until) break;
        if (COMMITMENT_RANK[e.confirmationStatus] < COMMITMENT_RANK[commitment]) continue;
        out.push({
          signature: e.signature,
          slot: e.slot,
          err: e.err ?? null,
          memo: e.memo ?? null,
          blockTime: e.blockTime,
          confirmationStatus: e.confirmationStatus,
        });
      }
      return out;
    },
    getTransaction: async (p) => {
      const signature = signatureString(p[0]);
      const c = config(p, 1);
      const encoding = c.encoding ?? 'json';
      if (encoding !== 'json' && encoding !== 'base64' && encoding !== 'base58') {
        throw invalidParams(`unsupported encoding: ${String(encoding)}`);
      }
      const commitment = commitmentOf(c);
      if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
      const maxVersion = c.maxSupportedTransactionVersion;
      if (maxVersion !== undefined && maxVersion !== null && maxVersion !== 0) {
        throw invalidParams(`unsupported maxSupportedTransactionVersion ${String(maxVersion)}`);
      }
      const tx = (await ledger.getTransaction(signature)) as DetailedLedgerTransaction | null;
      if (tx === null || COMMITMENT_RANK[tx.confirmationStatus] < COMMITMENT_RANK[commitment]) return null;
      const parsed = parseWireTransaction(tx.wire);
      const version = parsed.message.version;
      const versioned = maxVersion === 0;
      if (version === 0 && !versioned) {
        throw new RpcError(
          -32015,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        );
      }
      let transaction: unknown;
      if (encoding === 'base64') transaction = [Buffer.from(tx.wire).toString('base64'), 'base64'];
      else if (encoding === 'base58') transaction = [encodeBase58(tx.wire), 'base58'];
      else transaction = messageJson(parsed.message, parsed.signatures);
      const meta: Record<string, unknown> = {
        err: tx.err ?? null,
        status: statusField(tx.err),
        fee: tx.fee,
        preBalances: [],
        postBalances: [],
        innerInstructions: [],
        logMessages: tx.logMessages,
        preTokenBalances: [],
        postTokenBalances: [],
        rewards: [],
      };
      if (tx.computeUnitsConsumed !== undefined) meta.computeUnitsConsumed = tx.computeUnitsConsumed;
      if (versioned) meta.loadedAddresses = tx.loadedAddresses ?? { writable: [], readonly: [] };
      const out: Record<string, unknown> = { slot: tx.slot, blockTime: tx.blockTime, transaction, meta };
      if (versioned) out.version = version;
      return out;
    },
  };

  const handleOne = async (request: unknown): Promise<Record<string, unknown>> => {
    let id: JsonRpcId = null;
    try {
      if (request === null || typeof request !== 'object' || Array.isArray(request)) throw new RpcError(-32600, 'Invalid request');
      const r = request as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
      if (typeof r.id === 'string' || typeof r.id === 'number') id = r.id;
      if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') throw new RpcError(-32600, 'Invalid request');
      const method = Object.prototype.hasOwnProperty.call(methods, r.method) ? methods[r.method] : undefined;
      if (method === undefined) throw new RpcError(-32601, 'Method not found');
      const params = r.params === undefined || r.params === null ? [] : r.params;
      if (!Array.isArray(params)) throw invalidParams('params must be an array');
      const result = await method(params);
      return { jsonrpc: '2.0', result, id };
    } catch (e) {
      let error: RpcError;
      if (e instanceof RpcError) error = e;
      else if (e instanceof LedgerInputError) error = invalidParams(e.message);
      else if (e instanceof TransactionFailedError) error = transactionFailure(e);
      else error = new RpcError(-32603, `Internal error: ${(e as Error)?.message ?? String(e)}`);
      const body: Record<string, unknown> = { code: error.code, message: error.message };
      if (error.data !== undefined) body.data = error.data;
      return { jsonrpc: '2.0', error: body, id };
    }
  };

  const send = (reply: FastifyReply, payload: unknown): FastifyReply =>
    reply.code(200).header('content-type', 'application/json; charset=utf-8').send(stringifyJson(payload));

  fastify.post(
    options.path,
    {
      bodyLimit: options.bodyLimit ?? 1024 * 1024,
      errorHandler: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
        const parse = error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError || error.statusCode === 400;
        const code = parse ? -32700 : error.statusCode === 413 ? -32600 : -32603;
        const message = parse ? 'Parse error' : error.statusCode === 413 ? 'Request too large' : `Internal error: ${error.message}`;
        return send(reply, { jsonrpc: '2.0', error: { code, message }, id: null });
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      let body: unknown = request.body;
      if (typeof body === 'string') {
        try {
          body = JSON.parse(body);
        } catch {
          return send(reply, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
        }
      }
      if (Array.isArray(body)) {
        if (body.length === 0 || body.length > maxBatch) {
          return send(reply, { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null });
        }
        const out: unknown[] = [];
        // Sequential: keeps the order of transactions submitted in one batch.
        for (const item of body) out.push(await handleOne(item));
        return send(reply, out);
      }
      return send(reply, await handleOne(body));
    },
  );
}
