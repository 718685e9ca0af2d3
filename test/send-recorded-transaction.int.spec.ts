/**
 * Sending a recorded transaction (the relay's send step, docs/architecture.md "Relay") against the embedded ledger,
 * when the node answers an error that is no verdict on the transaction (JSON-RPC -32603 internal error, as a rate
 * limiter in front of a node may answer): the transaction may have landed, so it is looked up, never recorded as
 * refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { sendRecordedTransaction } from '../libs/application/src/processors/send-recorded-transaction';
import { EmbeddedLedger } from '../libs/ledger/src/embedded/embedded-ledger';
import { LedgerError, LedgerErrorCode, type Ledger } from '../libs/ledger/src';
import { buildTransaction, memoInstruction } from '../libs/ledger/src/testing/test-transactions';

let dataDir: string;
let ledger: EmbeddedLedger;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'send-recorded-'));
  ledger = await EmbeddedLedger.open({ dataDir, slotMs: 20, synchronous: 'normal' });
});

afterAll(async () => {
  await ledger.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The embedded ledger, except that sending answers a JSON-RPC internal error (after sending, when `deliver`). */
function internalErrorOnSend(deliver: boolean): Ledger {
  const faulty = Object.create(ledger) as Ledger;
  faulty.sendTransaction = async (wire, options) => {
    if (deliver) await ledger.sendTransaction(wire, options);
    throw new LedgerError(LedgerErrorCode.RpcError, 'Internal error: rate limit of 300 requests per minute exceeded', { rpcCode: -32603 });
  };
  return faulty;
}

async function recordedMemo(text: string): Promise<{ transactionSignature: string; transactionWire: string }> {
  const payer = await generateKeyPairSigner();
  await ledger.requestAirdrop(payer.address, 1_000_000_000n);
  const tx = await buildTransaction(await ledger.getLatestBlockhash(), payer, [memoInstruction({ memo: text })]);
  return { transactionSignature: tx.signature, transactionWire: Buffer.from(tx.wire).toString('base64') };
}

describe('sendRecordedTransaction on a JSON-RPC error that is no verdict', () => {
  it('reports a transaction that landed all the same as landed', async () => {
    const recorded = await recordedMemo('landed despite the error');
    expect(await sendRecordedTransaction(internalErrorOnSend(true), recorded)).toBe('landed');
    const [status] = await ledger.getSignatureStatuses([recorded.transactionSignature as never]);
    expect(status).not.toBeNull();
  });

  it('throws (the processor sends the same bytes again later) when it did not land, and never reports a refusal', async () => {
    const recorded = await recordedMemo('not delivered');
    await expect(sendRecordedTransaction(internalErrorOnSend(false), recorded)).rejects.toMatchObject({ code: LedgerErrorCode.RpcError });
    // Sent again through a healthy node, the same bytes land once.
    expect(await sendRecordedTransaction(ledger, recorded)).toBe('landed');
    expect(await sendRecordedTransaction(ledger, recorded)).toBe('landed');
  });
});
