/**
 * The evidence transactions against a real Solana runtime (LiteSVM, in process): the Ed25519
 * precompile accepts our instruction layout and refuses a forged signature; the Memo program accepts
 * our records and requires the co-signers.
 */
import { getTransactionDecoder, lamports } from '@solana/kit';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { acceptanceIdOf, buildAcceptanceMessage } from './acceptance-message';
import { filledSeed, keyFromSeed, signerFromSeed } from './testing/keys';
import {
  SHARD_ACCOUNT_SPACE,
  buildAcceptanceTransaction,
  buildMemberTransaction,
  buildOrganizationTransaction,
  buildShardTransaction,
  nonceAuthorityInitialized,
  parseEvidenceTransaction,
  type SignedEvidenceTransaction,
} from './transactions';

function send(svm: LiteSVM, tx: SignedEvidenceTransaction) {
  // litesvm's kit build takes a kit Transaction; the decoder gives exactly that.
  return svm.sendTransaction(getTransactionDecoder().decode(tx.wire) as Parameters<LiteSVM['sendTransaction']>[0]);
}

describe('evidence transactions on the Solana runtime (LiteSVM)', () => {
  let svm: LiteSVM;
  beforeEach(() => {
    svm = new LiteSVM();
  });

  async function acceptance(tamper: boolean) {
    const relayer = await signerFromSeed(filledSeed(0x0b));
    svm.airdrop(relayer.address, lamports(1_000_000_000n));
    const signer = keyFromSeed(filledSeed(0x0f));
    const version = keyFromSeed(filledSeed(0x0e)).address;
    const message = buildAcceptanceMessage({
      protocol: 'svc/1',
      requestDomain: 'app.example.com',
      chainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
      organization: keyFromSeed(filledSeed(0x0c)).address,
      document: keyFromSeed(filledSeed(0x0d)).address,
      versionAddress: version,
      versionNumber: 1,
      contentHash: '1'.repeat(64),
      fingerprint: '2'.repeat(64),
      signer: signer.address,
      nonce: '0'.repeat(32),
      issuedAt: '2026-11-22T10:00:00Z',
      expiresAt: '2026-11-22T10:10:00Z',
    });
    const signature = signer.sign(new TextEncoder().encode(message));
    if (tamper) signature[5]! ^= 1;
    const tx = await buildAcceptanceTransaction({
      feePayer: relayer,
      signer: signer.address,
      signature,
      message,
      acceptanceId: acceptanceIdOf(message),
      versionAddress: version,
      lifetime: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: 1000n },
    });
    return send(svm, tx);
  }

  it('lands an acceptance with a valid signature and charges two signatures (10,000 lamports)', async () => {
    const result = await acceptance(false);
    expect(result).not.toBeInstanceOf(FailedTransactionMetadata);
    const relayer = await signerFromSeed(filledSeed(0x0b));
    expect(svm.getBalance(relayer.address)).toBe(1_000_000_000n - 10_000n);
  });

  it('refuses an acceptance whose signature does not verify', async () => {
    const result = await acceptance(true);
    expect(result).toBeInstanceOf(FailedTransactionMetadata);
    expect(String((result as FailedTransactionMetadata).err())).toMatch(/InstructionError.*index: 0/);
  });

  it('lands a co-signed organization memo', async () => {
    const authority = await signerFromSeed(filledSeed(0x0a));
    svm.airdrop(authority.address, lamports(1_000_000_000n));
    const organization = await signerFromSeed(filledSeed(0x0c));
    const tx = await buildOrganizationTransaction({
      authority,
      organization,
      name: 'Acme',
      domain: 'acme.example',
      lifetime: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: 1000n },
    });
    const result = send(svm, tx);
    expect(result).not.toBeInstanceOf(FailedTransactionMetadata);
    expect((result as Exclude<typeof result, FailedTransactionMetadata>).logs().join('\n')).toContain('svc/1 org {"domain":"acme.example","name":"Acme"}');
  });

  it('lands a member record signed by the authority alone', async () => {
    const authority = await signerFromSeed(filledSeed(0x0a));
    svm.airdrop(authority.address, lamports(1_000_000_000n));
    const tx = await buildMemberTransaction({
      authority,
      organization: keyFromSeed(filledSeed(0x0c)).address,
      member: keyFromSeed(filledSeed(0x10)).address,
      roles: ['publisher'],
      active: true,
      lifetime: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: 1000n },
    });
    const result = send(svm, tx);
    expect(result).not.toBeInstanceOf(FailedTransactionMetadata);
    const memo = parseEvidenceTransaction(tx.wire).memos[0]!;
    expect(memo.record).toMatchObject({ kind: 'member', roles: ['publisher'], active: true });
    expect(memo.signerAccounts).toEqual([authority.address]);
  });

  it('lands a shard: a durable-nonce account whose nonce authority is the operator, with its co-signed record', async () => {
    const authority = await signerFromSeed(filledSeed(0x0a));
    svm.airdrop(authority.address, lamports(1_000_000_000n));
    const shard = await signerFromSeed(filledSeed(0x11));
    const operator = keyFromSeed(filledSeed(0x0b)).address;
    const rent = svm.minimumBalanceForRentExemption(BigInt(SHARD_ACCOUNT_SPACE));
    const tx = await buildShardTransaction({
      authority,
      shard,
      organization: keyFromSeed(filledSeed(0x0c)).address,
      operator,
      lamports: rent + 50_000_000n,
      lifetime: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: 1000n },
    });
    const result = send(svm, tx);
    expect(result).not.toBeInstanceOf(FailedTransactionMetadata);
    expect(svm.getBalance(shard.address)).toBe(rent + 50_000_000n);
    const parsed = parseEvidenceTransaction(tx.wire);
    expect(nonceAuthorityInitialized(parsed, shard.address)).toBe(operator);
    expect(nonceAuthorityInitialized(parsed, authority.address)).toBeNull();
    expect(parsed.memos[0]!.signerAccounts).toEqual([shard.address, authority.address]);
  });
});
