/**
 * The `jsonParsed` encoding: what gets parsed (System, Memo) and what stays partially decoded
 * (precompiles, undecodable data, too few accounts, memo that is not UTF-8), as Solana's RPC does.
 */
import { address } from '@solana/kit';
import { getAllocateInstruction, getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import { SECP256R1_PROGRAM_ADDRESS, SYSTEM_PROGRAM_ADDRESS } from '../constants';
import { decodeBase58, encodeBase58 } from '../internal/base58';
import type { WireInstruction, WireMessage } from '../internal/wire';
import { accountKeysOf, parsedInstructionJson, parsedTransactionJson } from './json-rpc-parsed';

const PAYER = 'BPFLoaderUpgradeab1e11111111111111111111111';
const TO = 'SysvarRent111111111111111111111111111111111';
const MEMO = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const keys = [PAYER, TO, SYSTEM_PROGRAM_ADDRESS, MEMO, SECP256R1_PROGRAM_ADDRESS];

function message(instructions: WireInstruction[]): WireMessage {
  return {
    version: 'legacy',
    header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 3 },
    accountKeys: keys.map(decodeBase58),
    recentBlockhash: new Uint8Array(32),
    instructions,
    addressTableLookups: [],
  };
}

const ix = (programIdIndex: number, accounts: number[], data: Uint8Array): WireInstruction => ({ programIdIndex, accounts: new Uint8Array(accounts), data });
const parsedKeys = accountKeysOf(message([ix(2, [0, 1], new Uint8Array())]), null);

describe('jsonParsed instructions', () => {
  test('a System transfer carries Agave’s type and info fields', () => {
    const data = getTransferSolInstruction({ source: { address: address(PAYER) } as never, destination: address(TO), amount: 42n }).data;
    expect(parsedInstructionJson(ix(2, [0, 1], new Uint8Array(data)), parsedKeys)).toEqual({
      program: 'system',
      programId: SYSTEM_PROGRAM_ADDRESS,
      parsed: { type: 'transfer', info: { source: PAYER, destination: TO, lamports: 42n } },
      stackHeight: null,
    });
  });

  test('createAccount and allocate use Solana’s names (newAccount, owner, space)', () => {
    const create = getCreateAccountInstruction({
      payer: { address: address(PAYER) } as never,
      newAccount: { address: address(TO) } as never,
      lamports: 1n,
      space: 8n,
      programAddress: address(MEMO),
    }).data;
    expect(parsedInstructionJson(ix(2, [0, 1], new Uint8Array(create)), parsedKeys)).toMatchObject({
      parsed: { type: 'createAccount', info: { source: PAYER, newAccount: TO, lamports: 1n, space: 8n, owner: MEMO } },
    });
    const allocate = getAllocateInstruction({ newAccount: { address: address(TO) } as never, space: 16n }).data;
    expect(parsedInstructionJson(ix(2, [1], new Uint8Array(allocate)), parsedKeys)).toMatchObject({ parsed: { type: 'allocate', info: { account: TO, space: 16n } } });
  });

  test('a System instruction with too few accounts or unknown data is partially decoded', () => {
    const data = new Uint8Array(getTransferSolInstruction({ source: { address: address(PAYER) } as never, destination: address(TO), amount: 1n }).data);
    expect(parsedInstructionJson(ix(2, [0], data), parsedKeys)).toEqual({ programId: SYSTEM_PROGRAM_ADDRESS, accounts: [PAYER], data: encodeBase58(data), stackHeight: null });
    expect(parsedInstructionJson(ix(2, [0, 1], new Uint8Array([99, 0, 0, 0])), parsedKeys)).not.toHaveProperty('parsed');
  });

  test('a memo is its UTF-8 text; bytes that are not UTF-8 stay partially decoded', () => {
    expect(parsedInstructionJson(ix(3, [0], Buffer.from('accepted ✓')), parsedKeys)).toEqual({ program: 'spl-memo', programId: MEMO, parsed: 'accepted ✓', stackHeight: null });
    expect(parsedInstructionJson(ix(3, [0], new Uint8Array([0xff])), parsedKeys)).toEqual({ programId: MEMO, accounts: [PAYER], data: encodeBase58(new Uint8Array([0xff])), stackHeight: null });
  });

  test('the secp256r1 precompile is partially decoded, as the real RPC answers it', () => {
    const data = new Uint8Array([1, 0, 16, 0]);
    expect(parsedInstructionJson(ix(4, [], data), parsedKeys)).toEqual({ programId: SECP256R1_PROGRAM_ADDRESS, accounts: [], data: encodeBase58(data), stackHeight: null });
  });
});

describe('jsonParsed account keys', () => {
  test('flags follow the header, programs are not writable, loaded keys come from the lookup table', () => {
    const keysOf = accountKeysOf(message([ix(2, [0, 1], new Uint8Array())]), { writable: [MEMO], readonly: [TO] });
    expect(keysOf.map((k) => [k.pubkey, k.signer, k.writable, k.source])).toEqual([
      [PAYER, true, true, 'transaction'],
      [TO, false, true, 'transaction'],
      [SYSTEM_PROGRAM_ADDRESS, false, false, 'transaction'],
      [MEMO, false, false, 'transaction'],
      [SECP256R1_PROGRAM_ADDRESS, false, false, 'transaction'],
      [MEMO, false, true, 'lookupTable'],
      [TO, false, false, 'lookupTable'],
    ]);
    const tx = parsedTransactionJson(message([]), [new Uint8Array(64)], null) as { message: Record<string, unknown> };
    expect(Object.keys(tx.message)).toEqual(['accountKeys', 'recentBlockhash', 'instructions']);
  });
});
