/**
 * Instructions for Solana's Ed25519 signature-verification precompile
 * (`Ed25519SigVerify111111111111111111111111111`). The runtime verifies every signature listed in
 * the instruction before the transaction executes and rejects the transaction if one fails.
 * Source: Solana docs, "Native programs: Ed25519 program"; agave `sdk/ed25519-program`.
 *
 * Data layout (all integers little-endian):
 * ```text
 * offset size  field
 *      0    1  num_signatures (u8) = 1
 *      1    1  padding (u8) = 0
 *      2    2  signature_offset (u16) = 48
 *      4    2  signature_instruction_index (u16) = 0xFFFF (this instruction)
 *      6    2  public_key_offset (u16) = 16
 *      8    2  public_key_instruction_index (u16) = 0xFFFF
 *     10    2  message_data_offset (u16) = 112
 *     12    2  message_data_size (u16)
 *     14    2  message_instruction_index (u16) = 0xFFFF
 *     16   32  public key
 *     48   64  signature
 *    112    n  message
 * ```
 */
import type { Address, Instruction, InstructionWithData } from '@solana/kit';
import { ED25519_PROGRAM_ADDRESS } from './constants';
import { Ed25519InstructionError } from './errors';

/** `u16::MAX`: the offsets refer to the instruction's own data. */
export const CURRENT_INSTRUCTION = 0xffff;
const OFFSETS_START = 2;
const OFFSETS_SIZE = 14;
const DATA_START = OFFSETS_START + OFFSETS_SIZE; // 16
const PUBLIC_KEY_SIZE = 32;
const SIGNATURE_SIZE = 64;

/** One signature checked by an Ed25519 precompile instruction. */
export interface Ed25519Entry {
  /** Raw 32-byte Ed25519 public key. */
  publicKey: Uint8Array;
  /** Raw 64-byte Ed25519 signature. */
  signature: Uint8Array;
  /** The exact bytes that were signed. */
  message: Uint8Array;
}

/** A kit instruction for the Ed25519 precompile: no accounts, data only. */
export type Ed25519Instruction = Instruction<typeof ED25519_PROGRAM_ADDRESS> & InstructionWithData<Uint8Array>;

/**
 * Builds an Ed25519 precompile instruction that checks one signature, with public key, signature and
 * message inside the instruction's own data (layout above).
 * @throws Ed25519InstructionError when the key is not 32 bytes, the signature not 64 bytes, or the
 *   message longer than 65,535 - 112 bytes.
 */
export function buildEd25519Instruction(entry: Ed25519Entry): Ed25519Instruction {
  const { publicKey, signature, message } = entry;
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== PUBLIC_KEY_SIZE) {
    throw new Ed25519InstructionError('public key must be 32 bytes');
  }
  if (!(signature instanceof Uint8Array) || signature.length !== SIGNATURE_SIZE) {
    throw new Ed25519InstructionError('signature must be 64 bytes');
  }
  const publicKeyOffset = DATA_START;
  const signatureOffset = publicKeyOffset + PUBLIC_KEY_SIZE;
  const messageOffset = signatureOffset + SIGNATURE_SIZE;
  if (!(message instanceof Uint8Array) || messageOffset + message.length > 0xffff) {
    throw new Ed25519InstructionError(`message must be bytes, at most ${0xffff - messageOffset} long`);
  }
  const data = new Uint8Array(messageOffset + message.length);
  const view = new DataView(data.buffer);
  data[0] = 1;
  data[1] = 0;
  view.setUint16(2, signatureOffset, true);
  view.setUint16(4, CURRENT_INSTRUCTION, true);
  view.setUint16(6, publicKeyOffset, true);
  view.setUint16(8, CURRENT_INSTRUCTION, true);
  view.setUint16(10, messageOffset, true);
  view.setUint16(12, message.length, true);
  view.setUint16(14, CURRENT_INSTRUCTION, true);
  data.set(publicKey, publicKeyOffset);
  data.set(signature, signatureOffset);
  data.set(message, messageOffset);
  return { programAddress: ED25519_PROGRAM_ADDRESS as Address<typeof ED25519_PROGRAM_ADDRESS>, data };
}

/**
 * Reads the signatures an Ed25519 precompile instruction checks. Only offsets into the instruction's
 * own data (instruction index 0xFFFF) are accepted, which is what this protocol produces.
 * @returns one entry per signature, in order; returned arrays are copies.
 * @throws Ed25519InstructionError on a truncated header, zero signatures, an instruction index other
 *   than 0xFFFF, or an offset/size outside the data.
 */
export function parseEd25519Instruction(data: Uint8Array): Ed25519Entry[] {
  if (!(data instanceof Uint8Array) || data.length < OFFSETS_START) throw new Ed25519InstructionError('instruction data is too short');
  const count = data[0]!;
  if (count === 0) throw new Ed25519InstructionError('instruction checks no signature');
  if (data.length < OFFSETS_START + count * OFFSETS_SIZE) throw new Ed25519InstructionError('instruction data is too short for its offsets');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const slice = (offset: number, size: number, what: string) => {
    if (offset + size > data.length) throw new Ed25519InstructionError(`${what} lies outside the instruction data`);
    return data.slice(offset, offset + size);
  };
  const entries: Ed25519Entry[] = [];
  for (let i = 0; i < count; i++) {
    const at = OFFSETS_START + i * OFFSETS_SIZE;
    const u16 = (k: number) => view.getUint16(at + 2 * k, true);
    const [signatureOffset, signatureIx, publicKeyOffset, publicKeyIx, messageOffset, messageSize, messageIx] = [0, 1, 2, 3, 4, 5, 6].map(u16) as [
      number, number, number, number, number, number, number,
    ];
    if (signatureIx !== CURRENT_INSTRUCTION || publicKeyIx !== CURRENT_INSTRUCTION || messageIx !== CURRENT_INSTRUCTION) {
      throw new Ed25519InstructionError('only offsets into the same instruction (index 0xFFFF) are supported');
    }
    entries.push({
      publicKey: slice(publicKeyOffset, PUBLIC_KEY_SIZE, 'public key'),
      signature: slice(signatureOffset, SIGNATURE_SIZE, 'signature'),
      message: slice(messageOffset, messageSize, 'message'),
    });
  }
  return entries;
}
