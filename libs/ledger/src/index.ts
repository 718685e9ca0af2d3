/**
 * `@svc/ledger`: the ledger port and its adapters.
 */
import type { Ledger } from './ledger.port';
import { EmbeddedLedger } from './embedded/embedded-ledger';
import { RpcLedger } from './rpc/rpc-ledger';

export * from './ledger.port';
export * from './ledger-inspector';
export * from './ledger-error';
export * from './errors';
export {
  MEMO_PROGRAM_ADDRESS,
  MEMO_V1_PROGRAM_ADDRESS,
  ED25519_PROGRAM_ADDRESS,
  SECP256K1_PROGRAM_ADDRESS,
  SECP256R1_PROGRAM_ADDRESS,
  SYSTEM_PROGRAM_ADDRESS,
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  LAMPORTS_PER_SIGNATURE,
  MAX_PROCESSING_AGE,
  FINALITY_DEPTH,
  PACKET_DATA_SIZE,
  type LedgerLogger,
} from './constants';
export { isAddressText, isSignatureText, toAddress, toSignature } from './internal/base58';
export { EmbeddedLedger, type EmbeddedLedgerOptions, type EmbeddedLedgerTransaction } from './embedded/embedded-ledger';
export { RpcLedger, type RpcLedgerOptions } from './rpc/rpc-ledger';
export { registerLedgerJsonRpc, type LedgerJsonRpcOptions } from './rpc/json-rpc-server';
export { registerLedgerPubSub, type LedgerPubSubOptions } from './rpc/pubsub-server';
export {
  AirdropGuard,
  callsPerMinutePerClient,
  DEFAULT_AIRDROP_LIMITS,
  FixedWindowCounter,
  type AirdropLimits,
  type CallAllowance,
} from './rpc/rpc-limits';
export { generateKeypairFile, loadKeypairSigner, loadOrCreateKeypairSigner, readKeypairSeed } from './keypair-file';

export interface CreateLedgerConfig {
  /** Solana JSON-RPC URL; when set, the ledger is that cluster. */
  ledgerRpcUrl?: string;
  /** Service data directory; the embedded ledger lives in `<dataDir>/ledger/`. */
  dataDir: string;
  /** Embedded ledger slot duration in ms (default 400). */
  slotMs?: number;
  /** Embedded journal durability (default `full`: fsync per commit; `normal`: survives process crashes only). */
  ledgerSynchronous?: 'full' | 'normal';
}

/**
 * The configured ledger: an {@link RpcLedger} when `ledgerRpcUrl` is set, otherwise the
 * {@link EmbeddedLedger} in `<dataDir>/ledger/`.
 */
export async function createLedger(config: CreateLedgerConfig): Promise<Ledger> {
  if (config.ledgerRpcUrl !== undefined && config.ledgerRpcUrl.trim() !== '') {
    return new RpcLedger({ url: config.ledgerRpcUrl.trim() });
  }
  return EmbeddedLedger.open({ dataDir: config.dataDir, slotMs: config.slotMs, synchronous: config.ledgerSynchronous });
}
