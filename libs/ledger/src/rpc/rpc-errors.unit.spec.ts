import { getSolanaErrorFromJsonRpcError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, SolanaError } from '@solana/kit';
import { LedgerError, LedgerErrorCode } from '../ledger-error';
import type { WireMessage } from '../internal/wire';
import { ledgerErrorFromRpc, RAW_TRANSACTION_ERROR, type SendingContext } from './rpc-errors';

const message: WireMessage = {
  version: 'legacy',
  header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 0 },
  accountKeys: [],
  recentBlockhash: new Uint8Array(32),
  instructions: [],
  addressTableLookups: [],
};
const sending: SendingContext = { signature: '1'.repeat(64), message };

/** What kit throws for a JSON-RPC error response (with the raw err our transport keeps). */
const fromServer = (code: number, text: string, data?: Record<string, unknown>): unknown =>
  getSolanaErrorFromJsonRpcError({ code, message: text, data: data && 'err' in data ? { ...data, [RAW_TRANSACTION_ERROR]: data.err } : data });

describe('ledgerErrorFromRpc', () => {
  test.each([
    ['preflight BlockhashNotFound', fromServer(-32002, 'Transaction simulation failed', { err: 'BlockhashNotFound', logs: [] }), LedgerErrorCode.BlockhashNotFound],
    ['preflight AlreadyProcessed', fromServer(-32002, 'Transaction simulation failed', { err: 'AlreadyProcessed', logs: [] }), LedgerErrorCode.AlreadyProcessed],
    ['preflight InsufficientFundsForFee', fromServer(-32002, 'Transaction simulation failed', { err: 'InsufficientFundsForFee', logs: [] }), LedgerErrorCode.InsufficientFunds],
    ['preflight AccountNotFound', fromServer(-32002, 'Transaction simulation failed', { err: 'AccountNotFound', logs: [] }), LedgerErrorCode.AccountNotFound],
    ['signature verification', fromServer(-32003, 'Transaction signature verification failure'), LedgerErrorCode.SignatureVerificationFailed],
    ['precompile verification', fromServer(-32006, 'Transaction precompile verification failure'), LedgerErrorCode.SignatureVerificationFailed],
    ['invalid params while sending', fromServer(-32602, 'invalid transaction'), LedgerErrorCode.InvalidTransaction],
    ['node unhealthy', fromServer(-32005, 'Node is unhealthy'), LedgerErrorCode.Unavailable],
    ['fetch failure', new TypeError('fetch failed'), LedgerErrorCode.Unavailable],
    ['HTTP 503', new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, { headers: new Headers(), message: 'Service Unavailable', statusCode: 503 }), LedgerErrorCode.Unavailable],
  ])('%s', (_name, thrown, code) => {
    const e = ledgerErrorFromRpc(thrown, sending);
    expect(e).toBeInstanceOf(LedgerError);
    expect(e.code).toBe(code);
  });

  test('a preflight InstructionError keeps its index, logs and Solana JSON', () => {
    const e = ledgerErrorFromRpc(fromServer(-32002, 'x', { err: { InstructionError: [1, { Custom: 1 }] }, logs: ['Program log: no'] }), sending);
    expect(e).toMatchObject({ code: LedgerErrorCode.InstructionError, instructionIndex: 1, logs: ['Program log: no'], err: { InstructionError: [1, { Custom: 1 }] }, landed: false });
  });

  test('other JSON-RPC errors keep their numeric code; HTTP 429 is Unavailable with rpcCode 429; -32602 outside sending is InvalidInput', () => {
    expect(ledgerErrorFromRpc(fromServer(-32601, 'Method not found'))).toMatchObject({ code: LedgerErrorCode.RpcError, rpcCode: -32601 });
    const limited = new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, { headers: new Headers(), message: 'Too Many Requests', statusCode: 429 });
    expect(ledgerErrorFromRpc(limited)).toMatchObject({ code: LedgerErrorCode.Unavailable, rpcCode: 429 });
    expect(ledgerErrorFromRpc(fromServer(-32602, 'Invalid params'))).toMatchObject({ code: LedgerErrorCode.InvalidInput, rpcCode: -32602 });
  });
});
