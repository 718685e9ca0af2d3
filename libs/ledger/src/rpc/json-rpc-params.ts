/**
 * Parameter readers and result encoders of the ledger's JSON-RPC endpoint, following Solana's RPC
 * (positional params, an optional configuration object, base58/base64 transaction encodings).
 * Each reader throws -32602 worded as Agave words it: {@link malformedParams} (`Invalid params: …`)
 * for a value of the wrong JSON type, {@link invalidParams} (`Invalid param: WrongSize`, …) for a
 * well-typed value it refuses.
 */
import type { Address, Commitment, Signature } from '../ledger.port';
import { decodeBase58, encodeBase58 } from '../internal/base58';
import { parseWireTransaction, type WireMessage } from '../internal/wire';
import { invalidParams, invalidRequest, malformedParams } from './json-rpc-errors';

export type Params = unknown[];

export const COMMITMENT_RANK: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };

/** The configuration object at `index` (empty when absent). */
export function config(params: Params, index: number): Record<string, unknown> {
  const c = params[index];
  if (c === undefined || c === null) return {};
  if (typeof c !== 'object' || Array.isArray(c)) throw malformedParams(`invalid type: expected a configuration object at position ${index}`);
  return c as Record<string, unknown>;
}

export function stringParam(params: Params, index: number, what: string): string {
  const v = params[index];
  if (typeof v !== 'string') throw malformedParams(`invalid type: ${what} must be a string`);
  return v;
}

/**
 * Checks base58 text of `size` bytes as Agave's `FromStr` of Pubkey / Hash (32 bytes, at most 44
 * characters) and Signature (64 bytes, at most 88) does.
 * @throws JsonRpcFailure -32602 `Invalid param: WrongSize` (too long, or not `size` bytes) or
 *   `Invalid param: Invalid` (not base58).
 */
export function base58Fixed(text: string, size: 32 | 64): Uint8Array {
  if (text.length > (size === 32 ? 44 : 88)) throw invalidParams('Invalid param: WrongSize');
  let bytes: Uint8Array;
  try {
    bytes = decodeBase58(text);
  } catch {
    throw invalidParams('Invalid param: Invalid');
  }
  if (bytes.length !== size) throw invalidParams('Invalid param: WrongSize');
  return bytes;
}

/** A base58 32-byte address text (`what` names it in a type error). @throws JsonRpcFailure -32602 as {@link base58Fixed}. */
export function addressString(v: unknown, what = 'address'): Address {
  if (typeof v !== 'string') throw malformedParams(`invalid type: ${what} must be a string`);
  base58Fixed(v, 32);
  return v as Address;
}

/** A base58 32-byte address at `index`. @throws JsonRpcFailure -32602 as {@link base58Fixed}. */
export function addressParam(params: Params, index: number): Address {
  return addressString(params[index]);
}

/** A base58 64-byte signature. @throws JsonRpcFailure -32602 as {@link base58Fixed}. */
export function signatureString(v: unknown): Signature {
  if (typeof v !== 'string') throw malformedParams('invalid type: signature must be a string');
  base58Fixed(v, 64);
  return v as Signature;
}

/** A non-negative integer (JSON number or bigint) as bigint. */
export function u64Param(v: unknown, what: string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'bigint' && v >= 0n) return v;
  throw malformedParams(`invalid type: ${what} must be a non-negative integer`);
}

/** `commitment` of a configuration object; `fallback` when absent (Solana's default is `finalized`). */
export function commitmentOf(c: Record<string, unknown>, fallback: Commitment = 'finalized'): Commitment {
  const v = c.commitment ?? fallback;
  if (v === 'processed' || v === 'confirmed' || v === 'finalized') return v;
  throw malformedParams(`unknown variant \`${String(v)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\``);
}

/** Transaction bytes from their base58 (default) or base64 text, checked to be a decodable transaction. */
export function decodeWire(encoded: string, encoding: unknown): Uint8Array {
  const enc = encoding ?? 'base58';
  let bytes: Uint8Array;
  if (enc === 'base64') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) throw invalidParams('invalid base64 encoding: InvalidByte');
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

/**
 * The `id` to answer a JSON-RPC request with: its own when it is a string, a number or null,
 * otherwise null (JSON-RPC 2.0 answers an unreadable request with id null).
 */
export function requestIdOf(request: unknown): string | number | null {
  const id = (request as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * Whether a JSON-RPC 2.0 request is a notification: an object with a `method` and no `id` member.
 * It gets no response object (nor an entry in a batch answer), even when it fails; anything that
 * is not a request object gets its -32600 answer.
 */
export function isNotification(request: unknown): boolean {
  return request !== null && typeof request === 'object' && !Array.isArray(request) && !('id' in request) && 'method' in request;
}

/**
 * Reads one JSON-RPC 2.0 request: its method, its params (an array; none = empty) and whether it
 * is a notification (no `id` member).
 * @throws JsonRpcFailure -32600 `Invalid request` when it is not a request object, `jsonrpc` is
 *   not "2.0", `method` is not a string or `id` is not a string, a number or null; -32602
 *   `Invalid params: …` when params is not an array.
 */
export function readRequest(request: unknown): { method: string; params: Params; notification: boolean } {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) throw invalidRequest();
  const r = request as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown };
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') throw invalidRequest();
  if ('id' in r && r.id !== null && typeof r.id !== 'string' && typeof r.id !== 'number') throw invalidRequest();
  const params = r.params === undefined || r.params === null ? [] : r.params;
  if (!Array.isArray(params)) throw malformedParams('invalid type: params must be an array');
  return { method: r.method, params, notification: !('id' in r) };
}
