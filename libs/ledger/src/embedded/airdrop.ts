/**
 * Airdrops of the embedded ledger are real System transfers from the genesis faucet, so they have
 * signatures, history, and replay like any transaction. This builds one as legacy wire bytes.
 */
import { sign as edSign } from 'node:crypto';
import { getShortU16Encoder } from '@solana/kit';
import { MEMO_PROGRAM_ADDRESS } from '../constants';
import { decodeBase58 } from '../internal/base58';
import type { Faucet } from './genesis';
import { SYSTEM_PROGRAM_BYTES } from './svm-state';

const MEMO_PROGRAM_BYTES = decodeBase58(MEMO_PROGRAM_ADDRESS);

const shortU16 = getShortU16Encoder();
/** Solana's compact-u16 length prefix, as bytes. */
const compactU16 = (n: number): number[] => [...shortU16.encode(n)];

/**
 * Signed wire bytes of a faucet → `to` System transfer of `lamports` with recent blockhash
 * `blockhash` (base58). `nonce`, when given, adds a Memo `airdrop:<nonce>` so that a repeated
 * airdrop (same recipient, amount and blockhash) gets a signature of its own.
 */
export function buildAirdropWire(faucet: Faucet, to: Uint8Array, lamports: bigint, blockhash: string, nonce: string | null): Uint8Array {
  const data = Buffer.alloc(12);
  data.writeUInt32LE(2, 0); // SystemInstruction::Transfer
  data.writeBigUInt64LE(lamports, 4);
  const keys = [faucet.pubkey, to, SYSTEM_PROGRAM_BYTES];
  const ixs: number[][] = [[2, ...compactU16(2), 0, 1, ...compactU16(data.length), ...data]];
  if (nonce !== null) {
    keys.push(MEMO_PROGRAM_BYTES);
    const memo = Buffer.from(`airdrop:${nonce}`);
    ixs.push([3, ...compactU16(0), ...compactU16(memo.length), ...memo]);
  }
  const message = Buffer.from([
    1, // required signatures
    0, // readonly signed
    keys.length - 2, // readonly unsigned: system program (and memo)
    ...compactU16(keys.length),
    ...keys.flatMap((k) => [...k]),
    ...decodeBase58(blockhash),
    ...compactU16(ixs.length),
    ...ixs.flat(),
  ]);
  const signature = edSign(null, message, faucet.key);
  return new Uint8Array(Buffer.concat([Buffer.from(compactU16(1)), signature, message]));
}
