/**
 * Node and schedule methods of the ledger's JSON-RPC endpoint, shaped as Agave answers them for a
 * one-node cluster: getEpochSchedule, getIdentity, getSlotLeader, getSlotLeaders, getClusterNodes,
 * minimumLedgerSlot, getHighestSnapshotSlot, getRecentPerformanceSamples and
 * getRecentPrioritizationFees. Each answers -32601 when the ledger lacks what it needs
 * ({@link LedgerInspector}).
 */
import type { Ledger } from '../ledger.port';
import type { LedgerInspector } from '../ledger-inspector';
import type { RpcContextOf } from './json-rpc-accounts';
import { invalidParams, JsonRpcFailure, malformedParams, methodNotFound } from './json-rpc-errors';
import { addressString, config, u64Param, type Params } from './json-rpc-params';

/** Largest getSlotLeaders limit (Agave's MAX_GET_SLOT_LEADERS). */
const MAX_GET_SLOT_LEADERS = 5_000;
/** Largest getRecentPerformanceSamples limit (Agave's MAX_RPC_PERFORMANCE_SAMPLES). */
const MAX_PERFORMANCE_SAMPLES = 720;
/** Most addresses of getRecentPrioritizationFees (Agave's MAX_TX_ACCOUNT_LOCKS). */
const MAX_PRIORITIZATION_FEE_ADDRESSES = 128;

export interface NodeRpcMethodOptions {
  /** Version reported as the node's `version`. */
  apiVersion: string;
  context: RpcContextOf;
}

/** Where the call arrived, for getClusterNodes' `rpc` (`host:port`, null when unknown). */
export interface NodeCallContext {
  localAddress?: string | null;
}

/** The node methods, by JSON-RPC method name (see the file comment). */
export function createNodeRpcMethods(
  ledger: Ledger & LedgerInspector,
  options: NodeRpcMethodOptions,
): Record<string, (params: Params, call: NodeCallContext) => Promise<unknown>> {
  const { apiVersion, context } = options;
  const identity = async (): Promise<string> => {
    if (!ledger.getIdentity) throw methodNotFound();
    return ledger.getIdentity();
  };

  return {
    /** `{slotsPerEpoch, leaderScheduleSlotOffset, warmup, firstNormalEpoch, firstNormalSlot}` (slots, epochs). */
    getEpochSchedule: async () => {
      if (!ledger.getEpochSchedule) throw methodNotFound();
      return ledger.getEpochSchedule();
    },
    /** `{identity: <base58>}`. */
    getIdentity: async () => ({ identity: await identity() }),
    /** The leader of the slot at the request's commitment: the node itself. */
    getSlotLeader: async (p) => {
      await context(config(p, 0));
      return identity();
    },
    /**
     * `[start slot, limit]` → `limit` base58 leaders (1 ≤ limit ≤ 5,000).
     * @throws JsonRpcFailure -32602 `Invalid limit; max 5000`, `Invalid slot range: leader schedule for epoch <n> is unavailable`.
     */
    getSlotLeaders: async (p) => {
      const start = u64Param(p[0], 'start slot');
      const limit = u64Param(p[1], 'limit');
      if (limit > BigInt(MAX_GET_SLOT_LEADERS)) throw invalidParams(`Invalid limit; max ${MAX_GET_SLOT_LEADERS}`);
      if (!ledger.getSlotLeaders) throw methodNotFound();
      return ledger.getSlotLeaders(start, Number(limit));
    },
    /**
     * The one node: `{pubkey, gossip, tvu, tpu, tpuQuic, tpuForwards, tpuForwardsQuic, tpuVote,
     * serveRepair, rpc, pubsub, version, featureSet, shredVersion}`; the sockets a validator has
     * and this node does not are null, `rpc` is the address the call arrived at.
     */
    getClusterNodes: async (_p, call) => [
      {
        pubkey: await identity(),
        gossip: null,
        tvu: null,
        tpu: null,
        tpuQuic: null,
        tpuForwards: null,
        tpuForwardsQuic: null,
        tpuVote: null,
        serveRepair: null,
        rpc: call.localAddress ?? null,
        pubsub: null,
        version: apiVersion,
        featureSet: 0,
        shredVersion: 0,
      },
    ],
    /** Lowest slot the ledger has: 0 (it keeps every slot since genesis). */
    minimumLedgerSlot: async () => {
      if (!ledger.getBlock) throw methodNotFound();
      return 0n;
    },
    /** Agave's answer without snapshots: -32008 `No snapshot` (the ledger's state snapshots are not cluster snapshots). */
    getHighestSnapshotSlot: async () => {
      throw new JsonRpcFailure(-32008, 'No snapshot');
    },
    /**
     * `[limit?]` (default and max 720) → `[{slot, numTransactions, numNonVoteTransactions, numSlots, samplePeriodSecs}]`, newest first.
     * @throws JsonRpcFailure -32602 `Invalid limit; max 720`.
     */
    getRecentPerformanceSamples: async (p) => {
      const limit = p[0] === undefined || p[0] === null ? MAX_PERFORMANCE_SAMPLES : Number(u64Param(p[0], 'limit'));
      if (limit > MAX_PERFORMANCE_SAMPLES) throw invalidParams(`Invalid limit; max ${MAX_PERFORMANCE_SAMPLES}`);
      if (!ledger.getRecentPerformanceSamples) throw methodNotFound();
      return ledger.getRecentPerformanceSamples(limit);
    },
    /**
     * `[addresses?]` (at most 128) → `[{slot, prioritizationFee}]` for the recent slots, oldest
     * first, fees in micro-lamports per compute unit.
     * @throws JsonRpcFailure -32602 `Too many inputs provided; max 128`, `Invalid param: WrongSize`.
     */
    getRecentPrioritizationFees: async (p) => {
      const list = p[0] === undefined || p[0] === null ? [] : p[0];
      if (!Array.isArray(list)) throw malformedParams('invalid type: expected a sequence of addresses');
      if (list.length > MAX_PRIORITIZATION_FEE_ADDRESSES) throw invalidParams(`Too many inputs provided; max ${MAX_PRIORITIZATION_FEE_ADDRESSES}`);
      const addresses = list.map((a) => addressString(a));
      if (!ledger.getRecentPrioritizationFees) throw methodNotFound();
      return ledger.getRecentPrioritizationFees(addresses);
    },
  };
}
