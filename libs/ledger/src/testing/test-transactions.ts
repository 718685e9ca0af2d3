/**
 * Test helpers: kit-built transactions for the ledger specs. Not part of the public API.
 */
import type { KeyObject } from 'node:crypto';
import {
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getAddMemoInstruction } from '@solana-program/memo';
import { ED25519_PROGRAM_ADDRESS, MEMO_PROGRAM_ADDRESS } from '../constants';
import type { LatestBlockhash } from '../ledger.port';

export interface BuiltTransaction {
  wire: Uint8Array;
  signature: string;
  messageBytes: Uint8Array;
}

/** Signs a v0 transaction paying from `feePayer` with the given lifetime. */
export async function buildTransaction(
  lifetime: LatestBlockhash,
  feePayer: KeyPairSigner,
  instructions: Instruction[],
  version: 0 | 'legacy' = 0,
): Promise<BuiltTransaction> {
  const message = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: lifetime.blockhash as Blockhash, lastValidBlockHeight: lifetime.lastValidBlockHeight },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const tx = await signTransactionMessageWithSigners(message);
  return {
    wire: new Uint8Array(Buffer.from(getBase64EncodedWireTransaction(tx), 'base64')),
    signature: getSignatureFromTransaction(tx),
    messageBytes: new Uint8Array(tx.messageBytes),
  };
}

/**
 * SPL Memo instruction for the classic Memo program (MemoSq4g…). @solana-program/memo 0.15
 * defaults to another program id (Memo4c2p…) that LiteSVM does not ship, hence the override.
 */
export function memoInstruction(input: Parameters<typeof getAddMemoInstruction>[0]): Instruction {
  return getAddMemoInstruction(input, { programAddress: address(MEMO_PROGRAM_ADDRESS) });
}

export function rawPublicKey(key: KeyObject): Uint8Array {
  return new Uint8Array(key.export({ format: 'der', type: 'spki' }).subarray(12));
}

/** Ed25519 precompile instruction with one signature, all offsets into itself (index 0xFFFF). */
export function ed25519Instruction(publicKey: Uint8Array, signature: Uint8Array, message: Uint8Array): Instruction {
  const header = 2 + 14;
  const pkOffset = header;
  const sigOffset = pkOffset + 32;
  const msgOffset = sigOffset + 64;
  const data = new Uint8Array(msgOffset + message.length);
  const view = new DataView(data.buffer);
  data[0] = 1; // number of signatures
  data[1] = 0; // padding
  view.setUint16(2, sigOffset, true); // signature offset
  view.setUint16(4, 0xffff, true); // signature instruction index: this instruction
  view.setUint16(6, pkOffset, true); // public key offset
  view.setUint16(8, 0xffff, true);
  view.setUint16(10, msgOffset, true); // message offset
  view.setUint16(12, message.length, true); // message size
  view.setUint16(14, 0xffff, true);
  data.set(publicKey, pkOffset);
  data.set(signature, sigOffset);
  data.set(message, msgOffset);
  return { programAddress: address(ED25519_PROGRAM_ADDRESS), data };
}

/** Polls `probe` every 25 ms until it returns a truthy value, failing after `timeoutMs`. */
export async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined | null | false>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
