import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedLedger } from './index';
import * as kit from '@solana/kit';
test('debug', async () => {
  const l = await EmbeddedLedger.open({ dataDir: mkdtempSync(join(tmpdir(), 'dbg-')), slotMs: 20 });
  const payer = await kit.generateKeyPairSigner();
  await l.requestAirdrop(payer.address, 10n ** 10n);
  const svm = (l as any).driver.svm;
  const mk = async (s: string) => { const lt = await l.getLatestBlockhash(); return kit.signTransactionMessageWithSigners(kit.pipe(kit.createTransactionMessage({ version: 0 }), m => kit.setTransactionMessageFeePayerSigner(payer, m), m => kit.setTransactionMessageLifetimeUsingBlockhash({ blockhash: lt.blockhash as kit.Blockhash, lastValidBlockHeight: 0n }, m), m => kit.appendTransactionMessageInstructions([{ programAddress: kit.address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'), data: new TextEncoder().encode(s) }], m))); };
  const w = (tx: any) => new Uint8Array(kit.getTransactionEncoder().encode(tx));
  console.log('inner direct', svm.inner.sendVersionedTransaction(w(await mk('a'))).toString().slice(0, 120));
  try { console.log('ledger', await l.sendTransaction(w(await mk('b')))); } catch (e) { console.log('ledger err', e); }
  await new Promise(r => setTimeout(r, 100));
  console.log('inner direct after', svm.inner.sendVersionedTransaction(w(await mk('c'))).toString().slice(0, 120));
  console.log(svm.getClock().toString());
  await l.close();
});
