/**
 * The methods of the ledger's JSON-RPC endpoint, over any {@link Ledger}: getLatestBlockhash,
 * sendTransaction, simulateTransaction, getSignatureStatuses, getTransaction, getBlock, getBlocks,
 * getBlocksWithLimit, getFirstAvailableBlock, getEpochInfo, getTransactionCount,
 * getSignaturesForAddress, getBalance, getSlot, getBlockHeight, getBlockTime, getGenesisHash,
 * getVersion, getHealth, requestAirdrop, getFeeForMessage, getMinimumBalanceForRentExemption,
 * isBlockhashValid; the account reads of json-rpc-accounts.ts and the node methods of
 * json-rpc-node-methods.ts. Result shapes follow Solana's RPC
 * (`{context: {slot, apiVersion}, value}` where Solana wraps; u64 as bigint, written as JSON numbers).
 *
 * `getSignatureStatuses` finds a transaction older than the node's status cache (STATUS_CACHE_SLOTS, 300 slots) only
 * with `searchTransactionHistory: true`, as a cluster node does.
 *
 * Commitment follows Solana: every method taking a `commitment` answers at that level, `finalized`
 * when absent (`context.slot` is the slot of that level); `getTransaction`, `getBlock`, `getBlocks`
 * and `getSignaturesForAddress` refuse `processed`. Transactions come in the `json`, `jsonParsed`
 * (json-rpc-parsed.ts), `base58` and `base64` encodings, with `preBalances`/`postBalances`.
 *
 * Preflight, as a cluster's RPC node does it: unless `skipPreflight`, `sendTransaction` first simulates the
 * transaction (signatures verified) against the current state, and a failing simulation is answered -32002 with
 * its error, logs and units (-32003 for a bad signature) while nothing is sent: no fee, no history. A transaction
 * that passes and then fails during execution (the state changed in between) is on the ledger with its error,
 * fee charged. With `skipPreflight: true` the signature is returned whatever becomes of the transaction (as a
 * cluster forwards it to the leader): one that fails during execution lands with its error; one refused before
 * execution (already processed, unknown blockhash, unfunded fee payer, bad signature, a program account that does
 * not exist) is dropped. Methods throw
 * {@link JsonRpcFailure}s or ledger errors; the endpoint maps the latter with `toJsonRpcFailure`.
 */
import { TransactionFailedError, type Ledger } from '../ledger.port';
import { LedgerErrorCode } from '../ledger-error';
import { STATUS_CACHE_SLOTS } from '../constants';
import type { Commitment } from '../ledger.port';
import type { AddressSignatureWithMemo, DetailedLedgerTransaction, LedgerInspector } from '../ledger-inspector';
import { encodeBase58, toSignature } from '../internal/base58';
import { parseWireTransaction } from '../internal/wire';
import { invalidParams, JsonRpcFailure, malformedParams, methodNotFound, preflightFailure } from './json-rpc-errors';
import {
  addressParam,
  base58Fixed,
  COMMITMENT_RANK,
  commitmentOf,
  config,
  decodeWire,
  messageJson,
  signatureString,
  statusField,
  stringParam,
  u64Param,
  type Params,
} from './json-rpc-params';
import type { AirdropGuard } from './rpc-limits';
import { parsedTransactionJson } from './json-rpc-parsed';
import { createAccountRpcMethods, readSimulationAccounts, simulationAccounts } from './json-rpc-accounts';
import { createNodeRpcMethods } from './json-rpc-node-methods';

/** `binary` is Solana's legacy form: `transaction` is a plain base58 string (Agave's `EncodedTransaction::LegacyBinary`). */
type TransactionEncoding = 'json' | 'jsonParsed' | 'base64' | 'base58' | 'binary';

/** Largest slot range of getBlocks / limit of getBlocksWithLimit, as Solana's RPC. */
const MAX_BLOCK_RANGE = 500_000n;

const VERSION_NOT_SUPPORTED =
  'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0';

function transactionEncoding(c: Record<string, unknown>): TransactionEncoding {
  const encoding = c.encoding ?? 'json';
  if (encoding !== 'json' && encoding !== 'jsonParsed' && encoding !== 'base64' && encoding !== 'base58' && encoding !== 'binary') {
    throw malformedParams(`unknown variant \`${String(encoding)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\``);
  }
  return encoding;
}

/**
 * The state a recent blockhash is judged at by isBlockhashValid, getFeeForMessage, simulateTransaction and the
 * preflight of sendTransaction: the commitment the call names (`preflightCommitment` for the preflight), so that a
 * blockhash newer than the finalized slot is unknown at `finalized`, as to Agave's bank of that commitment. Without
 * one, the newest state: more lenient than Agave, which judges at `finalized`, so that a client that signs with a
 * `confirmed` blockhash and leaves the preflight commitment out (a common mix) is not refused "Blockhash not found".
 * @throws JsonRpcFailure -32602 for a value that is not a commitment level.
 */
function blockhashCommitmentOf(named: unknown): Commitment {
  return named === undefined || named === null ? 'processed' : commitmentOf({ commitment: named });
}

/**
 * `maxSupportedTransactionVersion`: absent (legacy only), or any version a client supports (a u8, as Agave reads it):
 * every transaction here is legacy or v0, so any number lets v0 through.
 */
function maxVersionOf(c: Record<string, unknown>): 0 | undefined {
  const v = c.maxSupportedTransactionVersion;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 255) throw malformedParams(`invalid value: ${JSON.stringify(v)}, expected u8`);
  return 0;
}

/** Commitment of reads that only exist once confirmed (transactions, blocks, history). */
function confirmedCommitmentOf(c: Record<string, unknown>): Commitment {
  const commitment = commitmentOf(c);
  if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  return commitment;
}

/**
 * A landed transaction as Solana's RPC encodes it in getTransaction and getBlock: `{transaction,
 * meta, version?}` (`version` only when the client declared `maxSupportedTransactionVersion`).
 * @throws JsonRpcFailure -32015 for a v0 transaction when the client did not declare version 0.
 */
function encodeTransaction(tx: DetailedLedgerTransaction, encoding: TransactionEncoding, maxVersion: 0 | undefined, showRewards = true): Record<string, unknown> {
  const parsed = parseWireTransaction(tx.wire);
  const version = parsed.message.version;
  const versioned = maxVersion === 0;
  if (version === 0 && !versioned) throw new JsonRpcFailure(-32015, VERSION_NOT_SUPPORTED);
  let transaction: unknown;
  if (encoding === 'base64') transaction = [Buffer.from(tx.wire).toString('base64'), 'base64'];
  else if (encoding === 'base58') transaction = [encodeBase58(tx.wire), 'base58'];
  else if (encoding === 'binary') transaction = encodeBase58(tx.wire);
  else if (encoding === 'jsonParsed') transaction = parsedTransactionJson(parsed.message, parsed.signatures, tx.loadedAddresses ?? null);
  else transaction = messageJson(parsed.message, parsed.signatures);
  const meta: Record<string, unknown> = {
    err: tx.err ?? null,
    status: statusField(tx.err),
    fee: tx.fee,
    preBalances: tx.preBalances ?? [],
    postBalances: tx.postBalances ?? [],
    innerInstructions: [],
    logMessages: tx.logMessages,
    preTokenBalances: [],
    postTokenBalances: [],
    // The ledger pays no rewards; a block read with `rewards: false` says null, as Agave does.
    rewards: showRewards ? [] : null,
  };
  if (tx.computeUnitsConsumed !== undefined) meta.computeUnitsConsumed = tx.computeUnitsConsumed;
  // As Agave's UiTransactionStatusMeta: always present (empty for legacy transactions), whatever the
  // declared version; the parsed encoding lists loaded addresses among the account keys instead.
  if (encoding !== 'jsonParsed') meta.loadedAddresses = tx.loadedAddresses ?? { writable: [], readonly: [] };
  const out: Record<string, unknown> = { transaction, meta };
  if (versioned) out.version = version;
  return out;
}

/** Who is calling: the client address the limits count against, and the `host:port` the call arrived at (null when unknown). */
export interface CallContext {
  clientAddress: string;
  localAddress?: string | null;
}

export type LedgerRpcMethod = (params: Params, call: CallContext) => Promise<unknown>;

export interface LedgerRpcMethodOptions {
  /** Version reported by getVersion and in `context.apiVersion`. */
  apiVersion: string;
  /** Airdrop caps; null when requestAirdrop is not served (-32601). */
  airdrops: AirdropGuard | null;
}

/**
 * The method table, by JSON-RPC method name. Methods backed by {@link LedgerInspector} extras
 * answer -32601 when the ledger lacks them.
 */
export function createLedgerRpcMethods(ledger: Ledger & LedgerInspector, options: LedgerRpcMethodOptions): Record<string, LedgerRpcMethod> {
  const { apiVersion, airdrops } = options;

  /** `{slot, apiVersion}` at the request's commitment (default `finalized`), after its `minContextSlot` check. */
  const context = async (c: Record<string, unknown> = {}, commitment: Commitment = commitmentOf(c)): Promise<{ slot: bigint; apiVersion: string }> => {
    const slot = await ledger.getSlot(commitment);
    if (c.minContextSlot !== undefined && c.minContextSlot !== null) {
      const min = u64Param(c.minContextSlot, 'minContextSlot');
      if (min > slot) throw new JsonRpcFailure(-32016, 'Minimum context slot has not been reached', { contextSlot: slot });
    }
    return { slot, apiVersion };
  };

  const methods: Record<string, LedgerRpcMethod> = {
    ...createAccountRpcMethods(ledger, context),
    ...createNodeRpcMethods(ledger, { apiVersion, context }),
    getHealth: async () => {
      if (!(await ledger.health()).up) throw new JsonRpcFailure(-32005, 'Node is unhealthy');
      return 'ok';
    },
    getVersion: async () => ({ 'solana-core': apiVersion, 'feature-set': 0 }),
    getGenesisHash: async () => ledger.getGenesisHash(),
    getSlot: async (p) => {
      const c = config(p, 0);
      return (await context(c)).slot;
    },
    getBlockHeight: async (p) => {
      const c = config(p, 0);
      await context(c);
      return ledger.getBlockHeight(commitmentOf(c));
    },
    getLatestBlockhash: async (p) => {
      const c = config(p, 0);
      const ctx = await context(c);
      const value = await ledger.getLatestBlockhash(commitmentOf(c));
      return { context: ctx, value: { blockhash: value.blockhash, lastValidBlockHeight: value.lastValidBlockHeight } };
    },
    getEpochInfo: async (p) => {
      const c = config(p, 0);
      await context(c);
      if (!ledger.getEpochInfo) throw methodNotFound();
      return ledger.getEpochInfo(commitmentOf(c));
    },
    getTransactionCount: async (p) => {
      const c = config(p, 0);
      await context(c);
      if (!ledger.getEpochInfo) throw methodNotFound();
      return (await ledger.getEpochInfo(commitmentOf(c))).transactionCount;
    },
    getFirstAvailableBlock: async () => {
      if (!ledger.getBlock) throw methodNotFound();
      return 0n;
    },
    getBlock: async (p) => {
      const slot = u64Param(p[0], 'slot');
      const c = config(p, 1);
      const encoding = transactionEncoding(c);
      const details = c.transactionDetails ?? 'full';
      if (details !== 'full' && details !== 'signatures' && details !== 'none' && details !== 'accounts') {
        throw malformedParams(`unknown variant \`${String(details)}\`, expected one of \`full\`, \`signatures\`, \`none\`, \`accounts\``);
      }
      const maxVersion = maxVersionOf(c);
      const commitment = confirmedCommitmentOf(c);
      if (!ledger.getBlock) throw methodNotFound();
      const block = await ledger.getBlock(slot, commitment);
      if (block === null) throw new JsonRpcFailure(-32004, `Block not available for slot ${slot}`);
      const out: Record<string, unknown> = {
        blockHeight: block.blockHeight,
        blockTime: block.blockTime,
        blockhash: block.blockhash,
        parentSlot: block.parentSlot,
        previousBlockhash: block.previousBlockhash,
      };
      const showRewards = c.rewards !== false;
      if (details === 'full') out.transactions = block.transactions.map((tx) => encodeTransaction(tx, encoding, maxVersion, showRewards));
      else if (details === 'signatures') out.signatures = block.transactions.map((tx) => tx.signature);
      else if (details === 'accounts') {
        out.transactions = block.transactions.map((tx) => {
          const full = encodeTransaction(tx, 'jsonParsed', maxVersion);
          const t = full.transaction as { signatures: string[]; message: { accountKeys: unknown[] } };
          const m = full.meta as Record<string, unknown>;
          const meta = {
            err: m.err,
            status: m.status,
            fee: m.fee,
            preBalances: m.preBalances,
            postBalances: m.postBalances,
            preTokenBalances: [],
            postTokenBalances: [],
            ...(showRewards ? { rewards: [] } : {}),
          };
          return {
            transaction: { signatures: t.signatures, accountKeys: t.message.accountKeys },
            meta,
            ...(full.version === undefined ? {} : { version: full.version }),
          };
        });
      }
      if (showRewards) out.rewards = [];
      return out;
    },
    getBlocks: async (p) => {
      const start = u64Param(p[0], 'start slot');
      // The end slot is optional: [start, config] is accepted like Solana's RPC.
      const hasEnd = p[1] !== undefined && p[1] !== null && typeof p[1] !== 'object';
      const c = config(p, hasEnd ? 2 : 1);
      const top = await ledger.getSlot(confirmedCommitmentOf(c));
      const end = hasEnd ? u64Param(p[1], 'end slot') : top;
      if (end >= start && end - start > MAX_BLOCK_RANGE) throw invalidParams(`Slot range too large; max ${MAX_BLOCK_RANGE}`);
      if (!ledger.getBlock) throw methodNotFound();
      const out: bigint[] = [];
      for (let s = start; s <= end && s <= top; s++) out.push(s);
      return out;
    },
    getBlocksWithLimit: async (p) => {
      const start = u64Param(p[0], 'start slot');
      const limit = u64Param(p[1], 'limit');
      if (limit > MAX_BLOCK_RANGE) throw invalidParams(`Limit too large; max ${MAX_BLOCK_RANGE}`);
      const top = await ledger.getSlot(confirmedCommitmentOf(config(p, 2)));
      if (!ledger.getBlock) throw methodNotFound();
      const out: bigint[] = [];
      for (let s = start; s < start + limit && s <= top; s++) out.push(s);
      return out;
    },
    isBlockhashValid: async (p) => {
      const blockhash = stringParam(p, 0, 'blockhash');
      base58Fixed(blockhash, 32);
      const c = config(p, 1);
      const ctx = await context(c);
      if (!ledger.isBlockhashValid) throw methodNotFound();
      return { context: ctx, value: await ledger.isBlockhashValid(blockhash, blockhashCommitmentOf(c.commitment)) };
    },
    getBalance: async (p) => {
      const address = addressParam(p, 0);
      const c = config(p, 1);
      const ctx = await context(c);
      return { context: ctx, value: await ledger.getBalance(address, commitmentOf(c)) };
    },
    getMinimumBalanceForRentExemption: async (p) => {
      const size = u64Param(p[0], 'data length');
      await context(config(p, 1));
      return ledger.getMinimumBalanceForRentExemption(Number(size));
    },
    getFeeForMessage: async (p) => {
      const message = stringParam(p, 0, 'message');
      const c = config(p, 1);
      const ctx = await context(c);
      return { context: ctx, value: await ledger.getFeeForMessage(message, blockhashCommitmentOf(c.commitment)) };
    },
    getBlockTime: async (p) => {
      const slot = u64Param(p[0], 'slot');
      if (!ledger.getBlockTime) throw methodNotFound();
      const time = await ledger.getBlockTime(slot);
      if (time === null) throw new JsonRpcFailure(-32004, `Block not available for slot ${slot}`);
      return time;
    },
    requestAirdrop: async (p, call) => {
      if (airdrops === null) throw methodNotFound();
      const address = addressParam(p, 0);
      const lamports = u64Param(p[1], 'lamports');
      const { maxLamports } = airdrops.limits;
      if (lamports > maxLamports) throw invalidParams(`airdrop of ${lamports} lamports is over the limit of ${maxLamports} lamports per request`);
      const allowance = airdrops.take(address, call.clientAddress);
      if (!allowance.allowed) {
        const retry = allowance.retryAfterSeconds ?? 60;
        throw new JsonRpcFailure(429, `Too many airdrops: at most ${airdrops.limits.perMinute} per minute per recipient and per client; retry in ${retry} s`, {
          retryAfterSeconds: retry,
        });
      }
      try {
        return await ledger.requestAirdrop(address, lamports);
      } catch (e) {
        // As a cluster node sends the faucet's transfer (without preflight): one that fails on the ledger, such as an
        // amount that leaves a new account below rent exemption, is answered with its signature; its status says why.
        if (e instanceof TransactionFailedError && e.landed && e.signature !== null) return e.signature;
        throw e;
      }
    },
    sendTransaction: async (p) => {
      const c = config(p, 1);
      const wire = decodeWire(stringParam(p, 0, 'transaction'), c.encoding);
      await context(c);
      const skipPreflight = c.skipPreflight === true;
      if (!skipPreflight && ledger.simulateTransaction) {
        // As a cluster's preflight: the status cache first (a transaction that landed is not run again), then the run.
        const signature = toSignature(encodeBase58(parseWireTransaction(wire).signatures[0]!));
        if ((await ledger.getSignatureStatuses([signature]))[0]) throw preflightFailure('AlreadyProcessed', []);
        const preflight = await ledger.simulateTransaction(wire, {
          sigVerify: true,
          replaceRecentBlockhash: false,
          commitment: blockhashCommitmentOf(c.preflightCommitment),
        });
        if (preflight.err === 'SignatureFailure') throw new JsonRpcFailure(-32003, 'Transaction signature verification failure');
        if (preflight.err !== null) throw preflightFailure(preflight.err, preflight.logs, Number(preflight.unitsConsumed));
      }
      try {
        return await ledger.sendTransaction(wire, { skipPreflight, commitment: 'processed' });
      } catch (e) {
        // Without preflight a cluster hands the transaction on and returns its signature: it lands with its error,
        // or the leader drops it. Undecodable bytes are refused all the same.
        if (skipPreflight && e instanceof TransactionFailedError && e.code !== LedgerErrorCode.InvalidTransaction) {
          return e.signature ?? encodeBase58(parseWireTransaction(wire).signatures[0]!);
        }
        throw e;
      }
    },
    simulateTransaction: async (p) => {
      const c = config(p, 1);
      const wire = decodeWire(stringParam(p, 0, 'transaction'), c.encoding);
      if (c.sigVerify === true && c.replaceRecentBlockhash === true) {
        throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
      }
      if (!ledger.simulateTransaction) throw methodNotFound();
      const ctx = await context(c);
      const accounts = readSimulationAccounts(c, parseWireTransaction(wire).message);
      const r = await ledger.simulateTransaction(wire, {
        sigVerify: c.sigVerify === true,
        replaceRecentBlockhash: c.replaceRecentBlockhash === true,
        commitment: blockhashCommitmentOf(c.commitment),
      });
      return {
        context: ctx,
        value: {
          err: r.err,
          logs: r.logs,
          accounts: await simulationAccounts(ledger, accounts, r),
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
      if (!Array.isArray(sigs)) throw malformedParams('invalid type: expected a sequence of signatures');
      if (sigs.length > 256) throw invalidParams('Too many inputs provided; max 256');
      const list = sigs.map(signatureString);
      const c = config(p, 1);
      if (c.searchTransactionHistory !== undefined && c.searchTransactionHistory !== null && typeof c.searchTransactionHistory !== 'boolean') {
        throw malformedParams('invalid type: searchTransactionHistory must be a boolean');
      }
      const ctx = await context({}, 'processed');
      const statuses = await ledger.getSignatureStatuses(list);
      // Without the history search a node answers from its status cache: only the last STATUS_CACHE_SLOTS slots.
      const oldest = c.searchTransactionHistory === true ? 0n : ctx.slot - BigInt(STATUS_CACHE_SLOTS);
      return {
        context: ctx,
        value: statuses.map((s) =>
          s === null || s.slot < oldest
            ? null
            : { slot: s.slot, confirmations: s.confirmations, err: s.err ?? null, status: statusField(s.err), confirmationStatus: s.confirmationStatus },
        ),
      };
    },
    getSignaturesForAddress: async (p) => {
      const address = addressParam(p, 0);
      const c = config(p, 1);
      const commitment = confirmedCommitmentOf(c);
      await context(c);
      const limit = c.limit === undefined || c.limit === null ? 1000 : Number(u64Param(c.limit, 'limit'));
      if (limit < 1 || limit > 1000) throw invalidParams('Invalid limit; max 1000');
      const before = c.before === undefined || c.before === null ? undefined : signatureString(c.before);
      const until = c.until === undefined || c.until === null ? undefined : signatureString(c.until);
      const entries = (await ledger.getSignaturesForAddress(address, {
        limit,
        before,
        until,
        commitment: commitment === 'finalized' ? 'finalized' : 'confirmed',
      })) as AddressSignatureWithMemo[];
      const out: unknown[] = [];
      for (const e of entries) {
        // Ledgers that ignore `until` or `commitment` are held to them here.
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
      const encoding = transactionEncoding(c);
      const commitment = confirmedCommitmentOf(c);
      const maxVersion = maxVersionOf(c);
      const tx = (await ledger.getTransaction(signature)) as DetailedLedgerTransaction | null;
      if (tx === null || COMMITMENT_RANK[tx.confirmationStatus] < COMMITMENT_RANK[commitment]) return null;
      const { transaction, meta, version } = encodeTransaction(tx, encoding, maxVersion);
      const out: Record<string, unknown> = { slot: tx.slot, blockTime: tx.blockTime, transaction, meta };
      if (version !== undefined) out.version = version;
      return out;
    },
  };

  return methods;
}
