import {
  address,
  appendTransactionMessageInstructions,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  AccountRole,
  type Blockhash,
  type Instruction,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS, MEMO_PROGRAM_ADDRESS } from '../constants';
import { computeMessageFee, extractMemo, parseWireMessage, parseWireTransaction, WireFormatError } from './wire';

const BLOCKHASH = 'GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi' as Blockhash;

/** kit's compiled message for versions legacy and 0 (kit 8 also knows version 1). */
interface KitMessage {
  version: 'legacy' | 0;
  header: { numSignerAccounts: number; numReadonlySignerAccounts: number; numReadonlyNonSignerAccounts: number };
  staticAccounts: string[];
  lifetimeToken: string;
  instructions: { programAddressIndex: number; accountIndices?: number[]; data?: Uint8Array }[];
  addressTableLookups?: { lookupTableAddress: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
}
const decodeKitMessage = (bytes: Parameters<ReturnType<typeof getCompiledTransactionMessageDecoder>['decode']>[0]): KitMessage =>
  getCompiledTransactionMessageDecoder().decode(bytes) as unknown as KitMessage;
const b58 = getBase58Decoder();

async function signed(instructions: Instruction[], version: 0 | 'legacy', lookups?: Record<string, string[]>) {
  const payer = await generateKeyPairSigner();
  let message = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH, lastValidBlockHeight: 0n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  if (lookups && version === 0) {
    message = compressTransactionMessageUsingAddressLookupTables(
      message as never,
      Object.fromEntries(Object.entries(lookups).map(([k, v]) => [address(k), v.map((a) => address(a))])),
    ) as typeof message;
  }
  const tx = await signTransactionMessageWithSigners(message);
  return { payer, wire: new Uint8Array(getTransactionEncoder().encode(tx)) };
}

function memo(text: string): Instruction {
  return { programAddress: address(MEMO_PROGRAM_ADDRESS), data: new TextEncoder().encode(text) };
}

describe('wire parser', () => {
  test.each([['legacy' as const], [0 as const]])('agrees with kit decoders (%s)', async (version) => {
    const other = await generateKeyPairSigner();
    const { payer, wire } = await signed(
      [getTransferSolInstruction({ source: (await generateKeyPairSigner()), destination: other.address, amount: 5n }), memo('hi')],
      version,
    );
    const ours = parseWireTransaction(wire);
    const kitTx = getTransactionDecoder().decode(wire);
    const kitMsg = decodeKitMessage(kitTx.messageBytes);
    expect(Buffer.from(ours.messageBytes).equals(Buffer.from(kitTx.messageBytes))).toBe(true);
    expect(ours.message.version).toBe(kitMsg.version);
    expect(ours.message.header).toEqual({
      numRequiredSignatures: kitMsg.header.numSignerAccounts,
      numReadonlySignedAccounts: kitMsg.header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: kitMsg.header.numReadonlyNonSignerAccounts,
    });
    expect(ours.message.accountKeys.map((k) => b58.decode(k))).toEqual(kitMsg.staticAccounts);
    expect(ours.message.accountKeys[0] && b58.decode(ours.message.accountKeys[0])).toBe(payer.address);
    expect(b58.decode(ours.message.recentBlockhash)).toBe(kitMsg.lifetimeToken);
    expect(ours.message.instructions.map((i) => ({ p: i.programIdIndex, a: [...i.accounts], d: [...i.data] }))).toEqual(
      kitMsg.instructions.map((i) => ({ p: i.programAddressIndex, a: [...(i.accountIndices ?? [])], d: [...(i.data ?? [])] })),
    );
    expect(ours.signatures.map((s) => b58.decode(s))).toEqual(Object.values(kitTx.signatures).map((s) => (s ? b58.decode(s) : null)));
    expect(extractMemo(ours.message)).toBe('[2] hi');
  });

  test('reads v0 address table lookups', async () => {
    const table = (await generateKeyPairSigner()).address;
    const loadedW = (await generateKeyPairSigner()).address;
    const loadedR = (await generateKeyPairSigner()).address;
    const ix: Instruction = {
      programAddress: address(MEMO_PROGRAM_ADDRESS),
      accounts: [
        { address: loadedW, role: AccountRole.WRITABLE },
        { address: loadedR, role: AccountRole.READONLY },
      ],
      data: new Uint8Array([1]),
    };
    const { wire } = await signed([ix], 0, { [table]: [loadedW, loadedR] });
    const ours = parseWireTransaction(wire);
    const kitMsg = decodeKitMessage(getTransactionDecoder().decode(wire).messageBytes);
    expect(ours.message.addressTableLookups).toHaveLength(1);
    expect(b58.decode(ours.message.addressTableLookups[0]!.accountKey)).toBe(kitMsg.addressTableLookups![0]!.lookupTableAddress);
    expect([...ours.message.addressTableLookups[0]!.writableIndexes]).toEqual(kitMsg.addressTableLookups![0]!.writableIndexes);
    expect([...ours.message.addressTableLookups[0]!.readonlyIndexes]).toEqual(kitMsg.addressTableLookups![0]!.readonlyIndexes);
  });

  test('fees: signatures, precompile signatures, priority fee', async () => {
    const plain = parseWireTransaction((await signed([memo('x')], 0)).wire).message;
    expect(computeMessageFee(plain)).toBe(5_000n);
    const ed = { programAddress: address('Ed25519SigVerify111111111111111111111111111'), data: new Uint8Array([2, 0]) };
    expect(computeMessageFee(parseWireTransaction((await signed([ed], 0)).wire).message)).toBe(15_000n);
    const price = new Uint8Array(9);
    price[0] = 3;
    new DataView(price.buffer).setBigUint64(1, 1_000_000n, true);
    const limit = new Uint8Array(5);
    limit[0] = 2;
    new DataView(limit.buffer).setUint32(1, 10_000, true);
    const cb = (data: Uint8Array): Instruction => ({ programAddress: address(COMPUTE_BUDGET_PROGRAM_ADDRESS), data });
    // Values measured on LiteSVM: 20,000 with an explicit 10k CU limit; 216,000 with the default limit.
    expect(computeMessageFee(parseWireTransaction((await signed([cb(price), cb(limit), ed, memo('x')], 0)).wire).message)).toBe(25_000n);
    const one = { ...ed, data: new Uint8Array([1, 0]) };
    expect(computeMessageFee(parseWireTransaction((await signed([cb(price), one, memo('x')], 0)).wire).message)).toBe(216_000n);
  });

  test('rejects malformed bytes', async () => {
    const { wire } = await signed([memo('x')], 0);
    expect(() => parseWireTransaction(wire.subarray(0, wire.length - 1))).toThrow(WireFormatError);
    expect(() => parseWireTransaction(new Uint8Array([...wire, 0]))).toThrow(/trailing/);
    expect(() => parseWireTransaction(new Uint8Array([0]))).toThrow(WireFormatError);
    const message = parseWireTransaction(wire).messageBytes;
    expect(parseWireMessage(message).accountKeys).toHaveLength(2);
    const v1 = new Uint8Array(message);
    v1[0] = 0x81;
    expect(() => parseWireMessage(v1)).toThrow(/version 1/);
  });
});
