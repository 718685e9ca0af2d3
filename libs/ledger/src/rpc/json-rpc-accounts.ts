/**
 * Account reads of the ledger's JSON-RPC endpoint, shaped as Agave answers them: getAccountInfo,
 * getMultipleAccounts, getTokenAccountsByOwner / getTokenAccountsByDelegate, and the `accounts`
 * of simulateTransaction (each account's state after the simulated execution).
 *
 * Encodings: `binary` (Solana's legacy form: `data` is a plain base58 string), `base58` (`[text,
 * "base58"]`), both for data up to 128 bytes, else -32600 as Agave; `base64`, and `jsonParsed`, which
 * falls back to `base64` as Agave does for an account no parser knows (the ledger holds no SPL Token,
 * stake or vote state to parse). `base64+zstd` is refused (-32602). Without an `encoding`,
 * getAccountInfo and accountSubscribe answer `binary` and getMultipleAccounts `base64`, as Agave does
 * (`rpc.rs`, `rpc_pubsub.rs`) and as @solana/kit's typings expect. `dataSlice` `{offset, length}`
 * (bytes) cuts the data before encoding; `space` stays the full length.
 */
import type { Commitment } from '../ledger.port';
import type { LedgerAccountInfo, LedgerInspector, SimulationResult } from '../ledger-inspector';
import type { Ledger } from '../ledger.port';
import { encodeBase58 } from '../internal/base58';
import type { WireMessage } from '../internal/wire';
import { invalidParams, invalidRequest, malformedParams, methodNotFound } from './json-rpc-errors';
import { addressParam, addressString, commitmentOf, config, u64Param, type Params } from './json-rpc-params';

export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'jsonParsed';

/** `{slot, apiVersion}` of a request at its commitment, after its `minContextSlot` check (json-rpc-methods.ts). */
export type RpcContextOf = (c: Record<string, unknown>, commitment?: Commitment) => Promise<{ slot: bigint; apiVersion: string }>;

/** Largest getMultipleAccounts request (Agave's MAX_MULTIPLE_ACCOUNTS). */
export const MAX_MULTIPLE_ACCOUNTS = 100;

/** Largest base58 account data Agave encodes (MAX_BASE58_BYTES). */
const MAX_BASE58_BYTES = 128;

/** SPL Token and Token-2022, the programs Agave's token-account queries recognise. */
const TOKEN_PROGRAMS = new Set(['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb']);

/**
 * The `encoding` of an account read (`fallback` when absent: each method has Agave's own default).
 * @throws JsonRpcFailure -32602 `unsupported encoding: base64+zstd`, or `Invalid params: unknown
 *   variant …` for a value Solana does not know.
 */
export function accountEncodingOf(c: Record<string, unknown>, fallback: AccountEncoding): AccountEncoding {
  const e = c.encoding ?? fallback;
  if (e === 'base64+zstd') throw invalidParams('unsupported encoding: base64+zstd');
  if (e !== 'binary' && e !== 'base58' && e !== 'base64' && e !== 'jsonParsed') {
    throw malformedParams(`unknown variant \`${String(e)}\`, expected one of \`binary\`, \`base58\`, \`base64\`, \`jsonParsed\`, \`base64+zstd\``);
  }
  return e;
}

/** `dataSlice` `{offset, length}` in bytes, or null. @throws JsonRpcFailure -32602 when they are not u64. */
export function dataSliceOf(c: Record<string, unknown>): { offset: number; length: number } | null {
  const slice = c.dataSlice as { offset?: unknown; length?: unknown } | undefined | null;
  if (slice === undefined || slice === null) return null;
  return { offset: Number(u64Param(slice.offset, 'dataSlice.offset')), length: Number(u64Param(slice.length, 'dataSlice.length')) };
}

/**
 * An account's `data` in `encoding`: a plain base58 string (`binary`), `[text, "base58"]` or `[text, "base64"]`
 * (`jsonParsed` falls back to base64: no parser knows this ledger's accounts).
 * @param oversize what base58 data over 128 bytes gets: `refuse` (-32600, as Agave's reads) or `mark` (the text
 *   `error: data too large for bs58 encoding`, as Agave's subscriptions send it).
 * @throws JsonRpcFailure -32600 for `refuse` and base58 data over 128 bytes.
 */
export function encodeAccountData(data: Uint8Array, encoding: AccountEncoding, oversize: 'refuse' | 'mark'): string | [string, string] {
  if (encoding === 'binary' || encoding === 'base58') {
    let text: string;
    if (data.length <= MAX_BASE58_BYTES) text = encodeBase58(data);
    else if (oversize === 'mark') text = 'error: data too large for bs58 encoding';
    else throw invalidRequest(`Encoded binary (base 58) data should be less than ${MAX_BASE58_BYTES} bytes, please use Base64 encoding.`);
    return encoding === 'binary' ? text : [text, 'base58'];
  }
  return [Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64'), 'base64'];
}

/**
 * Agave's UiAccount: `{data, executable, lamports, owner, rentEpoch, space}` (data as {@link encodeAccountData};
 * lamports, rentEpoch u64; space in bytes, before any slice).
 * @throws JsonRpcFailure -32600 for base58 data over 128 bytes (after the slice), as Agave.
 */
export function encodeAccount(info: LedgerAccountInfo, encoding: AccountEncoding, slice: { offset: number; length: number } | null): Record<string, unknown> {
  let data = info.data;
  if (slice !== null) data = data.subarray(Math.min(slice.offset, data.length), Math.min(slice.offset + slice.length, data.length));
  const encoded = encodeAccountData(data, encoding, 'refuse');
  return { data: encoded, executable: info.executable, lamports: info.lamports, owner: info.owner, rentEpoch: info.rentEpoch, space: info.data.length };
}

/** Number of account keys of a message, static and loaded from lookup tables. */
export function accountKeyCount(message: WireMessage): number {
  return message.accountKeys.length + message.addressTableLookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0);
}

/**
 * The `accounts` of a simulateTransaction answer for its `{encoding, addresses}` config (null when
 * the config has none): each address's state after the simulated execution, in `encoding`
 * (default base64); null for an account that does not exist afterwards. All null when the
 * simulation failed, as Agave; also when the ledger cannot tell the post-execution state.
 * Call {@link readSimulationAccounts} first for the checks.
 */
export async function simulationAccounts(
  ledger: LedgerInspector,
  request: { encoding: AccountEncoding; addresses: string[] } | null,
  result: SimulationResult,
): Promise<(Record<string, unknown> | null)[] | null> {
  if (request === null) return null;
  const post = result.postAccounts;
  if (result.err !== null || post === undefined) return request.addresses.map(() => null);
  const out: (Record<string, unknown> | null)[] = [];
  for (const address of request.addresses) {
    const after = post.get(address) ?? (ledger.getAccountInfo ? await ledger.getAccountInfo(address) : null);
    out.push(after === null || after.lamports === 0n ? null : encodeAccount(after, request.encoding, null));
  }
  return out;
}

/**
 * Reads simulateTransaction's `accounts` config: `{encoding?, addresses}`.
 * @throws JsonRpcFailure -32602 `base58 encoding not supported`, `Too many accounts provided; max
 *   <account keys of the transaction>`, `Invalid param: WrongSize` for a bad address (Agave's
 *   wording), `Invalid params: …` when it is not such an object.
 */
export function readSimulationAccounts(c: Record<string, unknown>, message: WireMessage): { encoding: AccountEncoding; addresses: string[] } | null {
  const accounts = c.accounts as { encoding?: unknown; addresses?: unknown } | undefined | null;
  if (accounts === undefined || accounts === null) return null;
  if (typeof accounts !== 'object' || !Array.isArray(accounts.addresses))
    throw malformedParams('invalid type: accounts must be {"addresses": [<address>], "encoding"?}');
  if (accounts.encoding === 'base58' || accounts.encoding === 'binary') throw invalidParams('base58 encoding not supported');
  const encoding = accountEncodingOf({ encoding: accounts.encoding }, 'base64');
  const max = accountKeyCount(message);
  if (accounts.addresses.length > max) throw invalidParams(`Too many accounts provided; max ${max}`);
  return { encoding, addresses: accounts.addresses.map((a) => addressString(a)) };
}

/**
 * getAccountInfo, getMultipleAccounts, getTokenAccountsByOwner and getTokenAccountsByDelegate over
 * `ledger` (-32601 when it cannot read accounts).
 */
export function createAccountRpcMethods(ledger: Ledger & LedgerInspector, context: RpcContextOf): Record<string, (params: Params) => Promise<unknown>> {
  const read = (address: string, commitment: Commitment): Promise<LedgerAccountInfo | null> => {
    if (!ledger.getAccountInfo) throw methodNotFound();
    return ledger.getAccountInfo(address, commitment);
  };

  /**
   * getTokenAccountsByOwner / ByDelegate: `[address, {mint} | {programId}, config]`. No SPL Token
   * program runs on the ledger, so no token account can exist: a valid filter answers `[]`.
   * @throws JsonRpcFailure -32602 `Invalid param: unrecognized Token program id`, `Invalid param:
   *   could not find mint`, `Invalid param: not a Token mint` (Agave's checks of the filter).
   */
  const tokenAccounts = async (p: Params): Promise<unknown> => {
    addressParam(p, 0);
    const filter = p[1] as { mint?: unknown; programId?: unknown } | null | undefined;
    const c = config(p, 2);
    accountEncodingOf(c, 'base64');
    dataSliceOf(c);
    const hasMint = filter !== null && typeof filter === 'object' && 'mint' in filter;
    const hasProgram = filter !== null && typeof filter === 'object' && 'programId' in filter;
    if (hasMint === hasProgram) throw malformedParams('invalid type: expected {"mint": <address>} or {"programId": <address>}');
    const ctx = await context(c);
    if (hasProgram) {
      if (!TOKEN_PROGRAMS.has(addressString(filter!.programId, 'programId'))) throw invalidParams('Invalid param: unrecognized Token program id');
    } else {
      const mint = await read(addressString(filter!.mint, 'mint'), commitmentOf(c));
      if (mint === null) throw invalidParams('Invalid param: could not find mint');
      if (!TOKEN_PROGRAMS.has(mint.owner)) throw invalidParams('Invalid param: not a Token mint');
    }
    return { context: ctx, value: [] };
  };

  return {
    getAccountInfo: async (p) => {
      const address = addressParam(p, 0);
      const c = config(p, 1);
      const encoding = accountEncodingOf(c, 'binary');
      const slice = dataSliceOf(c);
      if (!ledger.getAccountInfo) throw methodNotFound();
      const ctx = await context(c);
      const info = await read(address, commitmentOf(c));
      return { context: ctx, value: info === null ? null : encodeAccount(info, encoding, slice) };
    },
    getMultipleAccounts: async (p) => {
      const keys = p[0];
      if (!Array.isArray(keys)) throw malformedParams('invalid type: expected a sequence of addresses');
      if (keys.length > MAX_MULTIPLE_ACCOUNTS) throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
      const addresses = keys.map((k) => addressString(k));
      const c = config(p, 1);
      const encoding = accountEncodingOf(c, 'base64');
      const slice = dataSliceOf(c);
      if (!ledger.getAccountInfo) throw methodNotFound();
      const ctx = await context(c);
      const commitment = commitmentOf(c);
      const value: (Record<string, unknown> | null)[] = [];
      for (const address of addresses) {
        const info = await read(address, commitment);
        value.push(info === null ? null : encodeAccount(info, encoding, slice));
      }
      return { context: ctx, value };
    },
    getTokenAccountsByOwner: tokenAccounts,
    getTokenAccountsByDelegate: tokenAccounts,
  };
}
