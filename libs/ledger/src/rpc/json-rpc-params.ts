/**
 * Parameter readers and result encoders of the ledger's JSON-RPC endpoint, following Solana's RPC
 * (positional params, an optional configuration object, base58/base64 transaction encodings).
 * Each reader throws -32602 {@link invalidParams} naming what is wrong.
 */
import type { Address, Commitment, Signature } from '../ledger.port';
import { decodeBase58, encodeBase58, isAddressText, isSignatureText } from '../internal/base58';
import { parseWireTransaction, type WireMessage } from '../internal/wire';
import { invalidParams, JsonRpcFailure } from './json-rpc-errors';

export type Params = unknown[];

export const COMMITMENT_RANK: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };

/** The configuration object at `index` (empty when absent). */
export function config(params: Params, index: number): Record<string, unknown> {
  const c = params[index];
  if (c === undefined || c === null) return {};
  if (typeof c !== 'object' || Array.isArray(c)) throw invalidParams(`expected a configuration object at position ${index}`);
  return c as Record<string, unknown>;
}

export function stringParam(params: Params, index: number, what: string): string {
  const v = params[index];
  if (typeof v !== 'string') throw invalidParams(`${what} must be a string`);
  return v;
}

/** A base58 32-byte address at `index`. */
export function addressParam(params: Params, index: number): Address {
  const v = stringParam(params, index, 'address');
  if (!isAddressText(v)) throw invalidParams('Invalid param: WrongSize');
  return v;
}

/** A base58 64-byte signature. */
export function signatureString(v: unknown): Signature {
  if (typeof v !== 'string' || !isSignatureText(v)) throw invalidParams('Invalid param: not a base58 signature');
  return v;
}

/** A non-negative integer (JSON number or bigint) as bigint. */
export function u64Param(v: unknown, what: string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'bigint' && v >= 0n) return v;
  throw invalidParams(`${what} must be a non-negative integer`);
}

/** `commitment` of a configuration object; `fallback` when absent (Solana's default is `finalized`). */
export function commitmentOf(c: Record<string, unknown>, fallback: Commitment = 'finalized'): Commitment {
  const v = c.commitment ?? fallback;
  if (v === 'processed' || v === 'confirmed' || v === 'finalized') return v;
  throw invalidParams(`unknown commitment ${String(v)}`);
}

/** Transaction bytes from their base58 (default) or base64 text, checked to be a decodable transaction. */
export function decodeWire(encoded: string, encoding: unknown): Uint8Array {
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

/** Solana's legacy `status` field: `{Ok: null}` or `{Err: err}`. */
export function statusField(err: unknown): Record<string, unknown> {
  return err === null || err === undefined ? { Ok: null } : { Err: err };
}

/** The `json` encoding of a transaction (`{signatures, message}`). */
export function messageJson(message: WireMessage, signatures: Uint8Array[]): Record<string, unknown> {
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
  if (message.version === 0) out.addressTableLookups = addressTableLookupsJson(message);
  return { signatures: signatures.map(encodeBase58), message: out };
}

/** A v0 message's `addressTableLookups` as Solana's RPC writes them. */
export function addressTableLookupsJson(message: WireMessage): Record<string, unknown>[] {
  return message.addressTableLookups.map((l) => ({
    accountKey: encodeBase58(l.accountKey),
    writableIndexes: [...l.writableIndexes],
    readonlyIndexes: [...l.readonlyIndexes],
  }));
}

/** The `id` of a JSON-RPC request (null when absent or not a string/number). */
export function requestIdOf(request: unknown): string | number | null {
  const id = (request as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * Reads one JSON-RPC 2.0 request: its method, its params (an array; none = empty) and whether it
 * is a notification (no `id` member).
 * @throws JsonRpcFailure -32600 when it is not a request, -32602 when params is not an array.
 */
export function readRequest(request: unknown): { method: string; params: Params; notification: boolean } {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) throw new JsonRpcFailure(-32600, 'Invalid request');
  const r = request as { jsonrpc?: unknown; method?: unknown; params?: unknown };
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') throw new JsonRpcFailure(-32600, 'Invalid request');
  const params = r.params === undefined || r.params === null ? [] : r.params;
  if (!Array.isArray(params)) throw invalidParams('params must be an array');
  return { method: r.method, params, notification: !('id' in r) };
}
