import { ED25519_PROGRAM_ADDRESS } from './constants';
import { buildEd25519Instruction, parseEd25519Instruction } from './ed25519-instruction';
import { Ed25519InstructionError } from './errors';

const publicKey = new Uint8Array(32).map((_, i) => i);
const signature = new Uint8Array(64).map((_, i) => 100 + i);
const message = new TextEncoder().encode('hello');

describe('Ed25519 precompile instruction', () => {
  it('uses the precompile, no accounts and the Solana layout', () => {
    const ix = buildEd25519Instruction({ publicKey, signature, message });
    expect(ix.programAddress).toBe(ED25519_PROGRAM_ADDRESS);
    expect((ix as { accounts?: unknown }).accounts).toBeUndefined();
    const header = Buffer.from(ix.data.subarray(0, 16)).toString('hex');
    // count 1, padding, sig@48 (0x30), this ix, key@16 (0x10), this ix, msg@112 (0x70), size 5, this ix
    expect(header).toBe('01' + '00' + '3000' + 'ffff' + '1000' + 'ffff' + '7000' + '0500' + 'ffff');
    expect(ix.data.length).toBe(112 + 5);
    expect(Buffer.from(ix.data.subarray(16, 48))).toEqual(Buffer.from(publicKey));
    expect(Buffer.from(ix.data.subarray(48, 112))).toEqual(Buffer.from(signature));
    expect(Buffer.from(ix.data.subarray(112))).toEqual(Buffer.from(message));
  });

  it('round-trips', () => {
    const [entry, ...rest] = parseEd25519Instruction(buildEd25519Instruction({ publicKey, signature, message }).data);
    expect(rest).toHaveLength(0);
    expect(entry).toEqual({ publicKey, signature, message });
  });

  it('parses several same-instruction signatures', () => {
    // Two entries sharing one key and message, with different signature offsets.
    const data = new Uint8Array(2 + 28 + 32 + 64 + 64 + 5);
    const view = new DataView(data.buffer);
    data[0] = 2;
    const keyAt = 30, sig1 = 62, sig2 = 126, msgAt = 190;
    [[sig1], [sig2]].forEach(([sigAt], i) => {
      const o = 2 + 14 * i;
      [sigAt!, 0xffff, keyAt, 0xffff, msgAt, 5, 0xffff].forEach((v, k) => view.setUint16(o + 2 * k, v, true));
    });
    data.set(publicKey, keyAt);
    data.set(signature, sig1);
    data.set(signature.map((b) => 255 - b), sig2);
    data.set(message, msgAt);
    const entries = parseEd25519Instruction(data);
    expect(entries).toHaveLength(2);
    expect(entries[1]!.signature[0]).toBe(155);
  });

  it('rejects offsets into other instructions, truncation and bad sizes', () => {
    const data = buildEd25519Instruction({ publicKey, signature, message }).data;
    const otherIx = data.slice();
    new DataView(otherIx.buffer).setUint16(4, 0, true);
    expect(() => parseEd25519Instruction(otherIx)).toThrow(Ed25519InstructionError);
    expect(() => parseEd25519Instruction(data.slice(0, 1))).toThrow(Ed25519InstructionError);
    expect(() => parseEd25519Instruction(data.slice(0, 10))).toThrow(Ed25519InstructionError);
    expect(() => parseEd25519Instruction(data.slice(0, 114))).toThrow(/outside/);
    const none = data.slice();
    none[0] = 0;
    expect(() => parseEd25519Instruction(none)).toThrow(/no signature/);
    expect(() => buildEd25519Instruction({ publicKey: publicKey.slice(1), signature, message })).toThrow(Ed25519InstructionError);
    expect(() => buildEd25519Instruction({ publicKey, signature: signature.slice(1), message })).toThrow(Ed25519InstructionError);
    expect(() => buildEd25519Instruction({ publicKey, signature, message: new Uint8Array(0xffff) })).toThrow(Ed25519InstructionError);
  });
});
