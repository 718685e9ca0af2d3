/**
 * Ledger port contract, run against:
 *  (a) EmbeddedLedger directly;
 *  (b) RpcLedger → registerLedgerJsonRpc on a real Fastify server → EmbeddedLedger
 *      (how wallets and the verifier use it);
 *  (c) RpcLedger → process.env.LEDGER_RPC_URL (an external cluster), when set.
 */
import { toSignature } from './internal/base58';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  appendTransactionMessageInstruction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Blockhash,
  type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { EmbeddedLedger, LedgerErrorCode, registerLedgerJsonRpc, RpcLedger, TransactionFailedError, type Ledger } from './index';
import { buildTransaction, ed25519Instruction, memoInstruction, rawPublicKey, waitFor } from './testing/test-transactions';

const SLOT_MS = 20;
const SOL = 1_000_000_000n;

interface Harness {
  ledger: Ledger;
  /** Closes and reopens the ledger on the same data; absent when the target cannot restart. */
  restart?: () => Promise<Ledger>;
  close: () => Promise<void>;
  /** Slots are SLOT_MS long (fast finality and blockhash expiry). */
  fastSlots: boolean;
  /** Per-test timeout in ms. */
  timeout: number;
  /** Lamports to airdrop to the test payer. */
  funding: bigint;
}

// ------------------------------------------------------------------ helpers

async function expectRejected(promise: Promise<unknown>): Promise<TransactionFailedError> {
  try {
    await promise;
  } catch (e) {
    expect(e).toBeInstanceOf(TransactionFailedError);
    return e as TransactionFailedError;
  }
  throw new Error('expected the transaction to be rejected');
}

/** Wire bytes of `messageBytes` signed by `signer` alone (for messages kit refuses to compile). */
async function signRaw(signer: KeyPairSigner, messageBytes: Uint8Array): Promise<Uint8Array> {
  const signature = new Uint8Array(await crypto.subtle.sign('Ed25519', signer.keyPair.privateKey, messageBytes));
  return new Uint8Array([1, ...signature, ...messageBytes]);
}

// ------------------------------------------------------------------ the contract

function ledgerContract(name: string, open: () => Promise<Harness>): void {
  describe(name, () => {
    let h: Harness;
    let ledger: Ledger;
    let payer: KeyPairSigner;
    const evidenceKey = generateKeyPairSync('ed25519');
    // Filled as the cases run, checked again after a restart.
    const landed: string[] = [];
    let cosigner: KeyPairSigner;
    let recipient: KeyPairSigner;

    beforeAll(async () => {
      h = await open();
      ledger = h.ledger;
      payer = await generateKeyPairSigner();
      await ledger.requestAirdrop(payer.address, h.funding);
    }, 180_000);

    afterAll(async () => {
      await h?.close();
    });

    const t = (title: string, fn: () => Promise<void>, fastOnly = false): void => {
      test(title, async () => {
        if (fastOnly && !h.fastSlots) return;
        await fn();
      }, 180_000);
    };

    t('airdrop credits the balance', async () => {
      const who = await generateKeyPairSigner();
      expect(await ledger.getBalance(who.address)).toBe(0n);
      const signature = await ledger.requestAirdrop(who.address, SOL / 2n);
      expect(await ledger.getBalance(who.address)).toBe(SOL / 2n);
      const [status] = await ledger.getSignatureStatuses([signature]);
      expect(status).not.toBeNull();
      expect(status!.err).toBeNull();
      expect(await ledger.getBalance(payer.address)).toBe(h.funding);
    });

    t('a System transfer built with kit lands and pays 5,000 lamports', async () => {
      recipient = await generateKeyPairSigner();
      const before = await ledger.getBalance(payer.address);
      const amount = 2_000_000n;
      const lifetime = await ledger.getLatestBlockhash();
      const message = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(payer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: lifetime.blockhash as Blockhash, lastValidBlockHeight: lifetime.lastValidBlockHeight }, m),
        (m) => appendTransactionMessageInstruction(getTransferSolInstruction({ source: payer, destination: recipient.address, amount: lamports(amount) }), m),
      );
      const tx = await signTransactionMessageWithSigners(message);
      const wire = new Uint8Array(Buffer.from(getBase64EncodedWireTransaction(tx), 'base64'));
      const signature = await ledger.sendTransaction(wire);
      expect(signature).toBe(getSignatureFromTransaction(tx));
      landed.push(signature);
      expect(await ledger.getBalance(recipient.address)).toBe(amount);
      expect(await ledger.getBalance(payer.address)).toBe(before - amount - 5_000n);
      const read = await ledger.getTransaction(signature);
      expect(read).not.toBeNull();
      expect(read!.fee).toBe(5_000n);
      expect(read!.err).toBeNull();
      expect(read!.slot).toBeGreaterThan(0n);
      expect(typeof read!.blockTime).toBe('number');
      expect(Math.abs(read!.blockTime! - Date.now() / 1000)).toBeLessThan(120);

      // Its duplicate is refused and changes nothing.
      const balance = await ledger.getBalance(payer.address);
      const dup = await expectRejected(ledger.sendTransaction(wire));
      expect(dup.code).toBe(LedgerErrorCode.AlreadyProcessed);
      expect(dup.err).toBe('AlreadyProcessed');
      expect(dup.landed).toBe(false);
      expect(await ledger.getBalance(payer.address)).toBe(balance);
    });

    t('a Memo co-signed by a fresh key pair lands and is found by address; its wire bytes round-trip', async () => {
      cosigner = await generateKeyPairSigner();
      const memo = memoInstruction({ memo: `contract test ${Date.now()}`, signers: [cosigner] });
      const built = await buildTransaction(await ledger.getLatestBlockhash(), payer, [memo]);
      const signature = await ledger.sendTransaction(built.wire);
      expect(signature).toBe(built.signature);
      landed.push(signature);

      const history = await ledger.getSignaturesForAddress(cosigner.address);
      expect(history.map((e) => e.signature)).toEqual([signature]);
      expect(history[0]!.err).toBeNull();
      expect((await ledger.getSignaturesForAddress(payer.address, { limit: 1 }))[0]!.signature).toBe(signature);

      const read = await ledger.getTransaction(signature);
      expect(read).not.toBeNull();
      expect(Buffer.from(read!.wire).equals(Buffer.from(built.wire))).toBe(true);
      const decoded = getTransactionDecoder().decode(read!.wire);
      expect(new Uint8Array(decoded.messageBytes)).toEqual(built.messageBytes);
      const compiled = getCompiledTransactionMessageDecoder().decode(decoded.messageBytes);
      expect(compiled.staticAccounts).toContain(cosigner.address);
      expect(read!.logMessages.join('\n')).toContain('contract test');
    });

    t('an Ed25519 precompile instruction with a valid signature lands for 10,000 lamports; a forged one is refused and not recorded', async () => {
      const statement = Buffer.from(`I accept document sha256:${'ab'.repeat(32)} at ${Date.now()}`);
      const signature = sign(null, statement, evidenceKey.privateKey);
      const pub = rawPublicKey(evidenceKey.publicKey);
      const memo = memoInstruction({ memo: 'evidence' });

      const before = await ledger.getBalance(payer.address);
      const ok = await buildTransaction(await ledger.getLatestBlockhash(), payer, [ed25519Instruction(pub, signature, statement), memo]);
      const sig = await ledger.sendTransaction(ok.wire);
      landed.push(sig);
      expect((await ledger.getTransaction(sig))!.fee).toBe(10_000n);
      expect(await ledger.getBalance(payer.address)).toBe(before - 10_000n);

      const forgedSig = new Uint8Array(signature);
      forgedSig[7]! ^= 0x01;
      const balance = await ledger.getBalance(payer.address);
      const forged = await buildTransaction(await ledger.getLatestBlockhash(), payer, [ed25519Instruction(pub, forgedSig, statement), memo]);
      const error = await expectRejected(ledger.sendTransaction(forged.wire));
      expect(error.code).toBe(LedgerErrorCode.SignatureVerificationFailed);
      expect(error.instructionIndex).toBe(0);
      expect(error.landed).toBe(false);
      expect(error.err).toEqual({ InstructionError: [0, { Custom: 2 }] });
      expect(await ledger.getSignatureStatuses([toSignature(forged.signature)])).toEqual([null]);
      expect(await ledger.getTransaction(toSignature(forged.signature))).toBeNull();
      expect(await ledger.getBalance(payer.address)).toBe(balance);
      expect((await ledger.getSignaturesForAddress(payer.address, { limit: 1 }))[0]!.signature).toBe(sig);
    });

    t('signature statuses go from confirmed to finalized as slots advance', async () => {
      const built = await buildTransaction(await ledger.getLatestBlockhash(), payer, [memoInstruction({ memo: 'finality' })]);
      const signature = await ledger.sendTransaction(built.wire);
      landed.push(signature);
      const [first] = await ledger.getSignatureStatuses([signature]);
      expect(first).not.toBeNull();
      expect(first!.err).toBeNull();
      if (first!.confirmationStatus === 'confirmed') {
        expect(first!.confirmations).toEqual(expect.any(Number));
      }
      const final = await waitFor('finalized', h.timeout, async () => {
        const [s] = await ledger.getSignatureStatuses([signature]);
        return s?.confirmationStatus === 'finalized' ? s : null;
      });
      expect(final.confirmations).toBeNull();
      expect(final.slot).toBe(first!.slot);
      expect((await ledger.getTransaction(signature))!.confirmationStatus).toBe('finalized');
    });

    t(
      'a blockhash past its validity is refused',
      async () => {
        const old = await ledger.getLatestBlockhash();
        const unknown = { blockhash: 'GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi', lastValidBlockHeight: old.lastValidBlockHeight };
        const bogus = await buildTransaction(unknown, payer, [memoInstruction({ memo: 'unknown blockhash' })]);
        const refused = await expectRejected(ledger.sendTransaction(bogus.wire));
        expect(refused.code).toBe(LedgerErrorCode.BlockhashNotFound);
        expect(refused.err).toBe('BlockhashNotFound');

        await waitFor('block height past lastValidBlockHeight', h.timeout, async () => (await ledger.getBlockHeight()) > old.lastValidBlockHeight);
        const balance = await ledger.getBalance(payer.address);
        const stale = await buildTransaction(old, payer, [memoInstruction({ memo: 'stale' })]);
        const expired = await expectRejected(ledger.sendTransaction(stale.wire));
        expect(expired.code).toBe(LedgerErrorCode.BlockhashNotFound);
        expect(expired.err).toBe('BlockhashNotFound');
        expect(await ledger.getSignatureStatuses([toSignature(stale.signature)])).toEqual([null]);
        expect(await ledger.getBalance(payer.address)).toBe(balance);
      },
      true,
    );

    t('a fee payer that cannot pay is refused: AccountNotFound when never funded, InsufficientFunds when short', async () => {
      const lifetime = await ledger.getLatestBlockhash();
      const ghost = await generateKeyPairSigner();
      const never = await buildTransaction(lifetime, ghost, [memoInstruction({ memo: 'unfunded' })]);
      const missing = await expectRejected(ledger.sendTransaction(never.wire));
      expect(missing.code).toBe(LedgerErrorCode.AccountNotFound);
      expect(missing.landed).toBe(false);
      expect(await ledger.getSignatureStatuses([toSignature(never.signature)])).toEqual([null]);

      // Exactly rent exempt: paying 5,000 lamports would leave it below the minimum.
      const poor = await generateKeyPairSigner();
      const minimum = await ledger.getMinimumBalanceForRentExemption(0);
      await ledger.requestAirdrop(poor.address, minimum);
      const short = await buildTransaction(await ledger.getLatestBlockhash(), poor, [memoInstruction({ memo: 'short' })]);
      const error = await expectRejected(ledger.sendTransaction(short.wire));
      expect(error.code).toBe(LedgerErrorCode.InsufficientFunds);
      expect(error.landed).toBe(false);
      expect(await ledger.getBalance(poor.address)).toBe(minimum);
      expect(await ledger.getSignatureStatuses([toSignature(short.signature)])).toEqual([null]);
    });

    t('malformed or badly signed bytes are refused: InvalidTransaction, SignatureVerificationFailed', async () => {
      const junk = await expectRejected(ledger.sendTransaction(new Uint8Array([1, 2, 3])));
      expect(junk.code).toBe(LedgerErrorCode.InvalidTransaction);

      const built = await buildTransaction(await ledger.getLatestBlockhash(), payer, [memoInstruction({ memo: 'sanitize' })], 'legacy');
      // Legacy layout: [1][signature 64][header 3][1 key count][keys 32·n][blockhash 32][1 ix count][programIdIndex]…
      const message = new Uint8Array(built.messageBytes);
      const keyCount = message[3]!;
      message[3 + 1 + 32 * keyCount + 32 + 1] = 200; // programIdIndex out of range, validly signed
      const insane = await expectRejected(ledger.sendTransaction(await signRaw(payer, message)));
      expect(insane.code).toBe(LedgerErrorCode.InvalidTransaction);

      const tampered = new Uint8Array(built.wire);
      tampered[10]! ^= 0x01;
      const forged = await expectRejected(ledger.sendTransaction(tampered));
      expect(forged.code).toBe(LedgerErrorCode.SignatureVerificationFailed);
      expect(forged.instructionIndex).toBeNull();
    });

    t('fees: getFeeForMessage counts transaction and precompile signatures', async () => {
      const statement = Buffer.from('fee check');
      const ix = ed25519Instruction(rawPublicKey(evidenceKey.publicKey), sign(null, statement, evidenceKey.privateKey), statement);
      const lifetime = await ledger.getLatestBlockhash();
      const one = await buildTransaction(lifetime, payer, [memoInstruction({ memo: 'x' })]);
      const two = await buildTransaction(lifetime, payer, [ix]);
      const b64 = (m: Uint8Array): string => Buffer.from(m).toString('base64');
      expect(await ledger.getFeeForMessage(b64(one.messageBytes))).toBe(5_000n);
      expect(await ledger.getFeeForMessage(b64(two.messageBytes))).toBe(10_000n);
      expect(await ledger.getMinimumBalanceForRentExemption(0)).toBe(890_880n);
      expect(await ledger.health()).toEqual({ up: true });
    });

    t('restart: state, history and genesis survive; new transactions still land', async () => {
      if (!h.restart) return;
      const genesis = await ledger.getGenesisHash();
      const slot = await ledger.getSlot();
      const balances = await Promise.all([payer, recipient, cosigner].map((s) => ledger.getBalance(s.address)));
      const txs = await Promise.all(landed.map((s) => ledger.getTransaction(toSignature(s))));
      const history = await ledger.getSignaturesForAddress(payer.address);
      const cosignerHistory = await ledger.getSignaturesForAddress(cosigner.address);

      ledger = await h.restart();

      expect(await ledger.getGenesisHash()).toBe(genesis);
      expect(await ledger.getSlot()).toBeGreaterThan(slot);
      expect(await Promise.all([payer, recipient, cosigner].map((s) => ledger.getBalance(s.address)))).toEqual(balances);
      const after = await Promise.all(landed.map((s) => ledger.getTransaction(toSignature(s))));
      expect(after.map((x) => [x?.signature, x?.slot, x?.blockTime, x?.fee, x?.err, Buffer.from(x!.wire).toString('hex')])).toEqual(
        txs.map((x) => [x?.signature, x?.slot, x?.blockTime, x?.fee, x?.err, Buffer.from(x!.wire).toString('hex')]),
      );
      const strip = (l: { signature: string; slot: bigint; err: unknown; blockTime: number | null }[]) =>
        l.map(({ signature, slot: s, err, blockTime }) => ({ signature, slot: s, err, blockTime }));
      expect(strip(await ledger.getSignaturesForAddress(payer.address))).toEqual(strip(history));
      expect(strip(await ledger.getSignaturesForAddress(cosigner.address))).toEqual(strip(cosignerHistory));

      const built = await buildTransaction(await ledger.getLatestBlockhash(), payer, [memoInstruction({ memo: 'after restart', signers: [cosigner] })]);
      const before = await ledger.getBalance(payer.address);
      const signature = await ledger.sendTransaction(built.wire);
      expect(await ledger.getBalance(payer.address)).toBe(before - 10_000n); // payer + cosigner signatures
      expect((await ledger.getSignaturesForAddress(cosigner.address))[0]!.signature).toBe(signature);
      // The pre-restart duplicates are still refused.
      const dup = await ledger.getTransaction(toSignature(landed[0]!));
      expect((await expectRejected(ledger.sendTransaction(dup!.wire))).err).toEqual(expect.anything());
    });
  });
}

// ------------------------------------------------------------------ targets

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-contract-'));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

ledgerContract('EmbeddedLedger (direct)', async () => {
  const dataDir = tempDir();
  let ledger = await EmbeddedLedger.open({ dataDir, slotMs: SLOT_MS, synchronous: 'normal' });
  return {
    get ledger() {
      return ledger;
    },
    restart: async () => {
      await ledger.close();
      ledger = await EmbeddedLedger.open({ dataDir, slotMs: SLOT_MS, synchronous: 'normal' });
      return ledger;
    },
    close: () => ledger.close(),
    fastSlots: true,
    timeout: 20_000,
    funding: 10n * SOL,
  };
});

async function serve(dataDir: string): Promise<{ embedded: EmbeddedLedger; app: FastifyInstance; rpc: RpcLedger }> {
  const embedded = await EmbeddedLedger.open({ dataDir, slotMs: SLOT_MS, synchronous: 'normal' });
  const app = Fastify();
  registerLedgerJsonRpc(app, embedded, { path: '/rpc', airdrop: { maxLamports: 10n * SOL, perMinute: 100 } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const rpc = new RpcLedger({ url: `http://127.0.0.1:${port}/rpc`, maxPollIntervalMs: 50 });
  return { embedded, app, rpc };
}

ledgerContract('RpcLedger → JSON-RPC endpoint → EmbeddedLedger', async () => {
  const dataDir = tempDir();
  let s = await serve(dataDir);
  const stop = async (): Promise<void> => {
    await s.rpc.close();
    await s.app.close();
    await s.embedded.close();
  };
  return {
    get ledger() {
      return s.rpc;
    },
    restart: async () => {
      await stop();
      s = await serve(dataDir);
      return s.rpc;
    },
    close: stop,
    fastSlots: true,
    timeout: 20_000,
    funding: 10n * SOL,
  };
});

const externalUrl = process.env.LEDGER_RPC_URL;
if (externalUrl) {
  ledgerContract(`RpcLedger → ${externalUrl}`, async () => {
    const rpc = new RpcLedger({ url: externalUrl });
    return { ledger: rpc, close: () => rpc.close(), fastSlots: false, timeout: 120_000, funding: SOL };
  });
} else {
  describe.skip('RpcLedger → external cluster (skipped: LEDGER_RPC_URL is not set)', () => {
    test('runs the ledger contract against LEDGER_RPC_URL', () => undefined);
  });
}
