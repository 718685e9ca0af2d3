/**
 * {@link Ledger} over Solana JSON-RPC through `@solana/kit` — a real cluster (devnet, a
 * provider) or our own endpoint ({@link registerLedgerJsonRpc} over an EmbeddedLedger).
 * Every failure is a {@link LedgerError} with a {@link LedgerErrorCode} (see rpc-errors.ts and
 * libs/ledger/README.md, "Errors").
 */
import { setMaxListeners } from 'node:events';
import {
  createDefaultRpcTransport,
  createSolanaRpcFromTransport,
  isSolanaError,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR,
  type Address,
  type Base64EncodedWireTransaction,
  type Blockhash,
  type Commitment as KitCommitment,
  type Lamports,
  type Rpc,
  type RpcTransport,
  type Signature,
  type SolanaRpcApi,
  type TransactionMessageBytesBase64,
} from '@solana/kit';
import {
  TransactionFailedError,
  type AddressSignature,
  type Commitment,
  type LatestBlockhash,
  type Ledger,
  type LedgerHealth,
  type SendOptions,
  type SignaturesForAddressOptions,
  type SignatureStatus,
} from '../ledger.port';
import type {
  AddressSignatureWithMemo,
  DetailedLedgerTransaction,
  LedgerAccountInfo,
  LedgerInspector,
  SimulateOptions,
  SimulationResult,
} from '../ledger-inspector';
import type { LedgerLogger } from '../constants';
import { LedgerInputError } from '../errors';
import { LedgerError, LedgerErrorCode } from '../ledger-error';
import { encodeBase58, isSignatureText, toSignature } from '../internal/base58';
import { transactionFailure } from '../internal/tx-error';
import { parseWireTransaction, type WireTransaction } from '../internal/wire';
import { bigintsToNumbers } from './json';
import { ledgerErrorFromRpc, RAW_TRANSACTION_ERROR, type SendingContext } from './rpc-errors';

export interface RpcLedgerOptions {
  /** HTTP(S) URL of the JSON-RPC endpoint. */
  url: string;
  /** Commitment of reads and the default for sendTransaction (default `confirmed`). */
  commitment?: Commitment;
  /** Upper bound of one status-polling interval, in ms (default 1,000; first poll is immediate). */
  maxPollIntervalMs?: number;
  /** Re-send an unconfirmed transaction this often, in ms (default 2,000). */
  resendIntervalMs?: number;
  /** Give up waiting for a confirmation after this many ms (default 120,000). */
  timeoutMs?: number;
  /**
   * Calls answered HTTP 429 (the endpoint's request budget) are sent again this many times, after the answer's
   * `retry-after` (seconds; else 1, 2, 4… s), each wait at most `maxWaitMs` (default 10,000); default 0: a 429 is
   * an `Unavailable` error at once. For a short-lived client of a public endpoint (`svc verify`).
   */
  rateLimitRetries?: { attempts: number; maxWaitMs?: number };
  /**
   * Abandon one HTTP request when no answer has come within this many ms (an integer from 1 to 2^31 - 1, else the
   * constructor throws RangeError; default 30,000): the call fails
   * `Unavailable` ("no answer within … s") rather than waiting as long as the HTTP stack would (minutes). A call
   * sent again after an HTTP 429 gets its own time.
   */
  requestTimeoutMs?: number;
  logger?: LedgerLogger;
}

/** How long to wait before sending a call the endpoint refused with HTTP 429 again: its `retry-after`, else backoff. */
function rateLimitWait(headers: Headers | undefined, attempt: number, maxWaitMs: number): number {
  const raw = headers?.get('retry-after')?.trim();
  const given = raw ? Number(raw) : Number.NaN;
  const ms = Number.isFinite(given) && given >= 0 ? given * 1000 : 1000 * 2 ** (attempt - 1);
  return Math.min(ms, maxWaitMs);
}

const RANK: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new LedgerError(LedgerErrorCode.Unavailable, 'RpcLedger closed'));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(new LedgerError(LedgerErrorCode.Unavailable, 'RpcLedger closed'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

function toCommitment(v: unknown): Commitment {
  return v === 'processed' || v === 'confirmed' || v === 'finalized' ? v : 'finalized';
}

/**
 * Why a getTransaction answer (as kit reads it: JSON integers as bigints) is not one, or null. Nothing is coerced: a
 * slot, block time or fee written as a string, a missing status `meta` (the outcome is unknown) or bytes that are not
 * base64 make the answer unusable rather than evidence.
 */
function malformedTransactionAnswer(tx: unknown): string | null {
  const t = tx as { slot?: unknown; blockTime?: unknown; meta?: { fee?: unknown; err?: unknown } | null; transaction?: unknown } | null;
  if (typeof t !== 'object' || t === null) return 'the result is not an object';
  if (typeof t.slot !== 'bigint' || t.slot < 0n) return `slot ${String(t.slot)} is not a non-negative integer`;
  if (t.blockTime !== null && typeof t.blockTime !== 'bigint') return `blockTime ${String(t.blockTime)} is neither null nor an integer`;
  if (typeof t.meta !== 'object' || t.meta === null) return 'the transaction status (meta) is missing';
  if (typeof t.meta.fee !== 'bigint' || t.meta.fee < 0n) return `fee ${String(t.meta.fee)} is not a non-negative integer`;
  if (!('err' in t.meta)) return 'the transaction status has no err';
  const wire = t.transaction;
  if (!Array.isArray(wire) || typeof wire[0] !== 'string' || wire[1] !== 'base64' || !/^[A-Za-z0-9+/]*={0,2}$/.test(wire[0])) return 'the transaction is not base64 bytes';
  return null;
}

/**
 * Ledger adapter for any Solana JSON-RPC endpoint. Stateless apart from a genesis-hash cache;
 * `close()` aborts pending confirmation waits.
 */
export class RpcLedger implements Ledger, LedgerInspector {
  private readonly rpc: Rpc<SolanaRpcApi>;
  private readonly commitment: Commitment;
  private readonly maxPollMs: number;
  private readonly resendMs: number;
  private readonly timeoutMs: number;
  private readonly abort = new AbortController();
  private genesisHash: string | null = null;

  /** @param options the endpoint URL, or full options. */
  constructor(options: string | RpcLedgerOptions) {
    if (typeof options === 'string') options = { url: options };
    const http = createDefaultRpcTransport({ url: options.url });
    const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs < 1 || requestTimeoutMs > 2 ** 31 - 1) {
      throw new RangeError(`requestTimeoutMs must be an integer from 1 to ${2 ** 31 - 1}, got ${requestTimeoutMs}`);
    }
    const plain = (async (config: Parameters<RpcTransport>[0]) => {
      const timer = AbortSignal.timeout(requestTimeoutMs);
      try {
        return await http({ ...config, signal: config.signal ? AbortSignal.any([config.signal, timer]) : timer });
      } catch (e) {
        if (!timer.aborted || config.signal?.aborted) throw e;
        throw new LedgerError(LedgerErrorCode.Unavailable, `ledger RPC sent no answer within ${requestTimeoutMs / 1000} s`, { cause: e });
      }
    }) as RpcTransport;
    const retries = options.rateLimitRetries;
    const base = !retries
      ? plain
      : ((async (config: Parameters<RpcTransport>[0]) => {
          for (let attempt = 1; ; attempt++) {
            try {
              return await plain(config);
            } catch (e) {
              if (attempt > retries.attempts || !isSolanaError(e, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR) || e.context.statusCode !== 429) throw e;
              await sleep(rateLimitWait(e.context.headers, attempt, retries.maxWaitMs ?? 10_000), this.signal);
            }
          }
        }) as RpcTransport);
    // Keep the raw transaction error of a failed preflight: kit turns `data.err` into a nested
    // SolanaError, but the port exposes the runtime's error as Solana JSON.
    const transport = (async (config: Parameters<RpcTransport>[0]) => {
      const response = (await base(config)) as unknown;
      const r = response as { error?: { data?: Record<string, unknown> } } | null;
      const data = r?.error?.data;
      if (data && typeof data === 'object' && 'err' in data) data[RAW_TRANSACTION_ERROR] = data.err;
      return response;
    }) as RpcTransport;
    this.rpc = createSolanaRpcFromTransport(transport);
    this.commitment = options.commitment ?? 'confirmed';
    this.maxPollMs = options.maxPollIntervalMs ?? 1_000;
    this.resendMs = options.resendIntervalMs ?? 2_000;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    // Every request in flight listens to the one closing signal: a busy relay has more than Node's default of 10.
    setMaxListeners(0, this.abort.signal);
  }

  private get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Sends one kit request; whatever it throws becomes a {@link LedgerError} (rpc-errors.ts). */
  private async call<T>(request: { send(options: { abortSignal: AbortSignal }): Promise<T> }, sending?: SendingContext): Promise<T> {
    try {
      return await request.send({ abortSignal: this.signal });
    } catch (e) {
      throw ledgerErrorFromRpc(e, sending);
    }
  }

  async getGenesisHash(): Promise<string> {
    if (this.genesisHash === null) this.genesisHash = await this.call(this.rpc.getGenesisHash());
    return this.genesisHash;
  }

  async getLatestBlockhash(commitment?: Commitment): Promise<LatestBlockhash> {
    const { value } = await this.call(this.rpc.getLatestBlockhash({ commitment: commitment ?? this.commitment }));
    return { blockhash: value.blockhash, lastValidBlockHeight: value.lastValidBlockHeight };
  }

  async getSlot(commitment?: Commitment): Promise<bigint> {
    return this.call(this.rpc.getSlot({ commitment: commitment ?? this.commitment }));
  }

  async getBlockHeight(commitment?: Commitment): Promise<bigint> {
    return this.call(this.rpc.getBlockHeight({ commitment: commitment ?? this.commitment }));
  }

  async health(): Promise<LedgerHealth> {
    try {
      const answer = await this.call(this.rpc.getHealth());
      return answer === 'ok' ? { up: true } : { up: false, code: LedgerErrorCode.Unavailable, message: `getHealth answered ${JSON.stringify(answer)}` };
    } catch (e) {
      // The adapter's messages name the failure (HTTP status, transport error, the node's own words), never the URL.
      return e instanceof LedgerError ? { up: false, code: e.code, message: e.message } : { up: false, code: LedgerErrorCode.Unavailable, message: 'ledger RPC unreachable' };
    }
  }

  /** Aborts pending waits. Idempotent. */
  async close(): Promise<void> {
    this.abort.abort();
  }

  /**
   * Sends base64 wire bytes (with preflight unless `skipPreflight`), then polls signature
   * statuses until `options.commitment` (default: the adapter's, `confirmed`), re-sending
   * every `resendIntervalMs` while the transaction is not visible.
   * @throws TransactionFailedError on a failed preflight (code of its TransactionError), on a landed
   *   transaction with an error (`landed: true`), when its blockhash expires before it lands
   *   (`BlockhashNotFound`), or for undecodable bytes (`InvalidTransaction`).
   * @throws LedgerError `Timeout` when no confirmation comes within `timeoutMs`; `Unavailable` on transport failures.
   */
  async sendTransaction(wire: Uint8Array, options?: SendOptions): Promise<Signature> {
    let tx: WireTransaction;
    try {
      tx = parseWireTransaction(wire);
    } catch (e) {
      throw new TransactionFailedError(LedgerErrorCode.InvalidTransaction, `Invalid transaction: ${(e as Error).message}`, { err: 'SanitizeFailure' });
    }
    const signature = toSignature(encodeBase58(tx.signatures[0]!));
    const sending: SendingContext = { signature, message: tx.message };
    const blockhash = encodeBase58(tx.message.recentBlockhash);
    const wanted = options?.commitment ?? this.commitment;
    const encoded = Buffer.from(wire).toString('base64') as Base64EncodedWireTransaction;
    const send = (skipPreflight: boolean) =>
      this.call(
        this.rpc.sendTransaction(encoded, {
          encoding: 'base64',
          skipPreflight,
          preflightCommitment: this.commitment as KitCommitment,
          maxRetries: 0n,
        }),
        sending,
      );
    await send(options?.skipPreflight === true);
    const deadline = Date.now() + this.timeoutMs;
    let lastSend = Date.now();
    let delay = 0;
    for (;;) {
      if (delay > 0) await sleep(delay, this.signal);
      const status = (await this.getSignatureStatuses([signature]))[0] ?? null;
      if (status !== null) {
        if (status.err !== null && status.err !== undefined) {
          const logs = await this.getTransaction(signature)
            .then((t) => t?.logMessages ?? [])
            .catch(() => []);
          throw transactionFailure(status.err, { message: tx.message, logs, signature, landed: true, prefix: 'Transaction failed: ' });
        }
        if (RANK[status.confirmationStatus] >= RANK[wanted]) return signature;
      } else {
        const valid = await this.isBlockhashValid(blockhash);
        if (!valid) {
          const last = (await this.getSignatureStatuses([signature]))[0];
          if (last === null || last === undefined) {
            throw new TransactionFailedError(LedgerErrorCode.BlockhashNotFound, 'Transaction expired: its blockhash is no longer valid', {
              err: 'BlockhashNotFound',
              signature,
            });
          }
          continue;
        }
        if (Date.now() - lastSend >= this.resendMs) {
          lastSend = Date.now();
          await send(true).catch(() => undefined);
        }
      }
      if (Date.now() > deadline) {
        throw new LedgerError(LedgerErrorCode.Timeout, `Timed out waiting for ${signature} to reach ${wanted}`, { signature });
      }
      delay = delay === 0 ? 100 : Math.min(delay * 2, this.maxPollMs);
    }
  }

  /** Landed transaction (base64 wire bytes decoded) with its meta; null when unknown. */
  async getTransaction(signature: Signature): Promise<DetailedLedgerTransaction | null> {
    if (!isSignatureText(signature)) throw new LedgerInputError(`Invalid signature: ${signature}`);
    const [tx, statuses] = await Promise.all([
      this.call(
        this.rpc.getTransaction(signature, {
          encoding: 'base64',
          commitment: this.commitment === 'processed' ? 'confirmed' : this.commitment,
          maxSupportedTransactionVersion: 0,
        }),
      ),
      this.getSignatureStatuses([signature]),
    ]);
    if (tx === null) return null;
    const malformed = malformedTransactionAnswer(tx);
    if (malformed !== null) throw new LedgerError(LedgerErrorCode.RpcError, `the ledger's answer to getTransaction is malformed: ${malformed}`);
    const meta = tx.meta!;
    const loaded = meta.loadedAddresses;
    return {
      signature,
      slot: tx.slot,
      blockTime: tx.blockTime === null ? null : Number(tx.blockTime),
      wire: new Uint8Array(Buffer.from(tx.transaction[0], 'base64')),
      err: bigintsToNumbers(meta.err ?? null),
      fee: meta.fee,
      logMessages: [...(meta.logMessages ?? [])],
      confirmationStatus: statuses[0]?.confirmationStatus ?? 'finalized',
      computeUnitsConsumed: meta.computeUnitsConsumed,
      loadedAddresses: loaded ? { writable: [...loaded.writable], readonly: [...loaded.readonly] } : null,
    };
  }

  /** Statuses (searching the whole history), in request order; null for unknown signatures. */
  async getSignatureStatuses(signatures: readonly string[]): Promise<(SignatureStatus | null)[]> {
    const out: (SignatureStatus | null)[] = [];
    for (let i = 0; i < signatures.length; i += 256) {
      const chunk = signatures.slice(i, i + 256) as Signature[];
      const { value } = await this.call(this.rpc.getSignatureStatuses(chunk, { searchTransactionHistory: true }));
      for (const s of value) {
        out.push(
          s === null
            ? null
            : {
                slot: s.slot,
                confirmations: s.confirmations === null ? null : Number(s.confirmations),
                err: bigintsToNumbers(s.err ?? null),
                confirmationStatus: toCommitment(s.confirmationStatus),
              },
        );
      }
    }
    return out;
  }

  /** Newest first; `limit` 1..1000. Entries carry the RPC's `memo`. */
  async getSignaturesForAddress(address: string, options?: SignaturesForAddressOptions): Promise<AddressSignatureWithMemo[]> {
    const list = await this.call(
      this.rpc.getSignaturesForAddress(address as Address, {
        commitment: options?.commitment ?? (this.commitment === 'finalized' ? 'finalized' : 'confirmed'),
        limit: options?.limit,
        before: options?.before as Signature | undefined,
        until: options?.until as Signature | undefined,
      }),
    );
    return list.map(
      (e): AddressSignature & { memo: string | null } => ({
        signature: e.signature,
        slot: e.slot,
        blockTime: e.blockTime === null ? null : Number(e.blockTime),
        err: bigintsToNumbers(e.err ?? null),
        confirmationStatus: toCommitment(e.confirmationStatus),
        memo: e.memo,
      }),
    );
  }

  async getBalance(address: string, commitment?: Commitment): Promise<bigint> {
    const { value } = await this.call(this.rpc.getBalance(address as Address, { commitment: commitment ?? this.commitment }));
    return value;
  }

  /**
   * Requests an airdrop (test clusters only) and waits until it is confirmed.
   * @throws LedgerError `Unavailable` with `rpcCode` 429 when the endpoint refuses it for now (airdrop limits), `InvalidInput`
   *   over its per-request cap, `Timeout`, `Unavailable`.
   */
  async requestAirdrop(address: Address, lamports: bigint): Promise<Signature> {
    const signature = await this.call(this.rpc.requestAirdrop(address, lamports as Lamports, { commitment: this.commitment }));
    const deadline = Date.now() + this.timeoutMs;
    let delay = 0;
    for (;;) {
      if (delay > 0) await sleep(delay, this.signal);
      const status = (await this.getSignatureStatuses([signature]))[0];
      if (status) {
        if (status.err !== null && status.err !== undefined) {
          throw transactionFailure(status.err, { message: null, signature, landed: true, prefix: 'Airdrop failed: ' });
        }
        if (RANK[status.confirmationStatus] >= RANK[this.commitment]) return signature;
      }
      if (Date.now() > deadline) throw new LedgerError(LedgerErrorCode.Timeout, `Timed out waiting for airdrop ${signature}`, { signature });
      delay = delay === 0 ? 100 : Math.min(delay * 2, this.maxPollMs);
    }
  }

  async getFeeForMessage(messageBase64: string, commitment?: Commitment): Promise<bigint | null> {
    const { value } = await this.call(this.rpc.getFeeForMessage(messageBase64 as TransactionMessageBytesBase64, { commitment: commitment ?? this.commitment }));
    return value === null ? null : BigInt(value);
  }

  async getMinimumBalanceForRentExemption(bytes: number): Promise<bigint> {
    return this.call(this.rpc.getMinimumBalanceForRentExemption(BigInt(bytes), { commitment: this.commitment }));
  }

  // ---------------------------------------------------------------- LedgerInspector

  async getAccountInfo(address: string, commitment?: Commitment): Promise<LedgerAccountInfo | null> {
    const { value } = await this.call(this.rpc.getAccountInfo(address as Address, { encoding: 'base64', commitment: commitment ?? this.commitment }));
    if (value === null) return null;
    return {
      lamports: value.lamports,
      owner: value.owner,
      data: new Uint8Array(Buffer.from(value.data[0], 'base64')),
      executable: value.executable,
      rentEpoch: (value as { rentEpoch?: bigint }).rentEpoch ?? 0n,
    };
  }

  /** Null when the node has no block for the slot. */
  async getBlockTime(slot: bigint): Promise<number | null> {
    try {
      const t = await this.call(this.rpc.getBlockTime(slot));
      return t === null ? null : Number(t);
    } catch (e) {
      // Block not available, slot skipped, cleaned up or outside long-term storage.
      if (e instanceof LedgerError && e.rpcCode !== null && [-32004, -32007, -32009, -32001].includes(e.rpcCode)) return null;
      throw e;
    }
  }

  async isBlockhashValid(blockhash: string, commitment: Commitment = 'processed'): Promise<boolean> {
    const { value } = await this.call(this.rpc.isBlockhashValid(blockhash as Blockhash, { commitment }));
    return value;
  }

  async simulateTransaction(wire: Uint8Array, options?: SimulateOptions): Promise<SimulationResult> {
    const encoded = Buffer.from(wire).toString('base64') as Base64EncodedWireTransaction;
    const commitment = options?.commitment ?? this.commitment;
    const config = options?.replaceRecentBlockhash
      ? ({ encoding: 'base64', replaceRecentBlockhash: true, commitment } as const)
      : ({ encoding: 'base64', sigVerify: options?.sigVerify === true, commitment } as const);
    const { value } = await this.call(this.rpc.simulateTransaction(encoded, config as never));
    const v = value as {
      err: unknown;
      logs: string[] | null;
      unitsConsumed?: bigint;
      fee?: bigint | null;
      replacementBlockhash: { blockhash: string; lastValidBlockHeight: bigint } | null;
    };
    return {
      err: bigintsToNumbers(v.err ?? null),
      logs: v.logs ?? [],
      unitsConsumed: v.unitsConsumed ?? 0n,
      fee: v.fee ?? null,
      replacementBlockhash: v.replacementBlockhash ?? null,
    };
  }
}
