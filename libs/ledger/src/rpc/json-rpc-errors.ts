/**
 * JSON-RPC errors of the ledger endpoint, in the shapes a Solana validator answers with, so stock
 * clients (kit, web3.js, wallets) see the usual errors (libs/ledger/README.md, "Errors"):
 * -32700 parse error, -32600 invalid request, -32601 method not found, -32602 invalid params,
 * -32603 internal, -32002 preflight failure (`data: {err, logs, …}`), -32003 signature
 * verification failure, -32004 block not available, -32005 unhealthy, -32008 no snapshot, -32015 unsupported
 * transaction version, -32016 min context slot not reached; 429 refused airdrop or rate limit.
 */
import { LedgerError, LedgerErrorCode } from '../ledger-error';
import { describeTransactionError } from '../internal/tx-error';

/** One JSON-RPC error object: `{code, message, data?}`. */
export class JsonRpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  /** The `error` member of a JSON-RPC response. */
  toJson(): Record<string, unknown> {
    const body: Record<string, unknown> = { code: this.code, message: this.message };
    if (this.data !== undefined) body.data = this.data;
    return body;
  }
}

/**
 * -32602 with exactly `message`, as Agave's RPC answers a parameter it refuses after reading it
 * (`Invalid param: WrongSize`, `Invalid limit; max 1000`, `Too many inputs provided; max 256`).
 */
export const invalidParams = (message: string): JsonRpcFailure => new JsonRpcFailure(-32602, message);

/**
 * -32602 `Invalid params: <details>`: a parameter of the wrong JSON type or an unknown enum value,
 * worded as Agave's RPC words its deserialization failures (`Invalid params: invalid type: …`).
 */
export const malformedParams = (details: string): JsonRpcFailure => new JsonRpcFailure(-32602, `Invalid params: ${details}`);

/** -32600 `Invalid request` (or Agave's wording of a refused request, e.g. base58 data over 128 bytes). */
export const invalidRequest = (message = 'Invalid request'): JsonRpcFailure => new JsonRpcFailure(-32600, message);

/** -32601, also for methods the ledger adapter lacks. */
export const methodNotFound = (): JsonRpcFailure => new JsonRpcFailure(-32601, 'Method not found');

/** -32002 "Transaction simulation failed" with the preflight result shape, carrying `err` and `logs`. */
export function preflightFailure(err: unknown, logs: readonly string[], unitsConsumed = 0): JsonRpcFailure {
  return new JsonRpcFailure(-32002, `Transaction simulation failed: ${describeTransactionError(err)}`, {
    err: err ?? null,
    logs: [...logs],
    accounts: null,
    unitsConsumed,
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
}

/**
 * The JSON-RPC error for anything a method threw, by {@link LedgerErrorCode}:
 * a transaction signature failure is -32003; malformed transactions and bad arguments -32602;
 * other transaction failures (blockhash, duplicate, funds, instruction and precompile errors)
 * -32002 with the runtime's `err`; `Unavailable` -32005; `RpcError` its own code; the rest -32603.
 */
export function toJsonRpcFailure(e: unknown): JsonRpcFailure {
  if (e instanceof JsonRpcFailure) return e;
  if (!(e instanceof LedgerError)) return new JsonRpcFailure(-32603, `Internal error: ${(e as Error)?.message ?? String(e)}`);
  switch (e.code) {
    case LedgerErrorCode.SignatureVerificationFailed:
      return e.instructionIndex === null ? new JsonRpcFailure(-32003, 'Transaction signature verification failure') : preflightFailure(e.err, e.logs);
    case LedgerErrorCode.InvalidTransaction:
      return invalidParams(`invalid transaction: ${e.message}`);
    case LedgerErrorCode.InvalidInput:
      return invalidParams(e.message);
    case LedgerErrorCode.BlockhashNotFound:
    case LedgerErrorCode.AlreadyProcessed:
    case LedgerErrorCode.InsufficientFunds:
    case LedgerErrorCode.AccountNotFound:
    case LedgerErrorCode.InstructionError:
    case LedgerErrorCode.TransactionFailed:
      return preflightFailure(e.err ?? e.code, e.logs);
    case LedgerErrorCode.Unavailable:
      return new JsonRpcFailure(-32005, `Node is unhealthy: ${e.message}`);
    case LedgerErrorCode.RpcError:
      return new JsonRpcFailure(e.rpcCode ?? -32603, e.message);
    case LedgerErrorCode.Timeout:
      return new JsonRpcFailure(-32603, `Internal error: ${e.message}`);
    default: {
      const unreachable: never = e.code;
      return new JsonRpcFailure(-32603, `Internal error: ${String(unreachable)}`);
    }
  }
}
