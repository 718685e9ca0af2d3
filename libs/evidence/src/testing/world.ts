/**
 * Test support (not exported from the package index): a complete, self-signed evidence world —
 * organization, document and version created on a fake in-memory ledger, one relayed acceptance and
 * its receipt. The fake ledger implements the three reads the verifier uses.
 */
import type { AddressSignature, LedgerTransaction } from '@svc/ledger';
import { acceptanceIdOf, buildAcceptanceMessage, type AcceptanceMessageFields } from '../acceptance-message';
import { asSignature, bytesToBase58 } from '../base58';
import { MEMO_PROGRAM_ADDRESS } from '../constants';
import { canonicalContent, contentHash, versionFingerprint } from '../content';
import { batchFeeShare, batchInclusionProof, batchTree, type BatchLeafEvidence } from '../batch';
import { buildReceipt, buildReceiptV2, type AcceptanceReceiptV1, type AcceptanceReceiptV2 } from '../receipt';
import {
  buildAcceptanceTransaction,
  buildBatchAnchorTransaction,
  buildDocumentTransaction,
  buildOrganizationTransaction,
  buildPublicationTransaction,
  parseEvidenceTransaction,
  type SignedEvidenceTransaction,
} from '../transactions';
import type { LedgerReader } from '../verifier';
import { filledSeed, keyFromSeed, signerFromSeed } from './keys';

/** An in-memory ledger holding a fixed set of transactions. */
export class FakeLedger implements LedgerReader {
  readonly transactions = new Map<string, LedgerTransaction>();
  /** When set, every read rejects with this error (an unreachable ledger). */
  failWith: Error | null = null;

  constructor(readonly genesisHash: string) {}

  add(tx: SignedEvidenceTransaction, meta: Partial<LedgerTransaction> & { slot: bigint }): LedgerTransaction {
    const record: LedgerTransaction = {
      signature: asSignature(tx.signature),
      blockTime: null,
      wire: tx.wire,
      err: null,
      fee: 5000n,
      logMessages: [],
      confirmationStatus: 'finalized',
      ...meta,
    };
    this.transactions.set(tx.signature, record);
    return record;
  }

  async getGenesisHash(): Promise<string> {
    if (this.failWith) throw this.failWith;
    return this.genesisHash;
  }

  async getTransaction(signature: string): Promise<LedgerTransaction | null> {
    if (this.failWith) throw this.failWith;
    return this.transactions.get(signature) ?? null;
  }

  async getSignaturesForAddress(address: string, options: { limit?: number; before?: string } = {}): Promise<AddressSignature[]> {
    if (this.failWith) throw this.failWith;
    const touching = [...this.transactions.values()]
      .filter((tx) => {
        const p = parseEvidenceTransaction(tx.wire);
        return p.signers.includes(address) || p.instructions.some((ix) => ix.accounts.includes(address) || ix.programAddress === address);
      })
      .sort((a, b) => Number(b.slot - a.slot));
    let start = 0;
    if (options.before) start = touching.findIndex((t) => t.signature === options.before) + 1;
    return touching.slice(start, start + (options.limit ?? 1000)).map((t) => ({
      signature: t.signature,
      slot: t.slot,
      blockTime: t.blockTime,
      err: t.err,
      confirmationStatus: t.confirmationStatus,
    }));
  }
}

export const WORLD_DOCUMENT_TEXT = '# Terms\r\n\r\nBe excellent to each other.  \r\n';
export const WORLD_ISSUED_AT = '2026-11-22T10:00:00Z';
export const WORLD_EXPIRES_AT = '2026-11-22T10:10:00Z';
/** Block time of the acceptance transaction: one minute into the window. */
export const WORLD_ACCEPTANCE_BLOCK_TIME = Date.parse('2026-11-22T10:01:00Z') / 1000;

export interface World {
  ledger: FakeLedger;
  genesisHash: string;
  chainId: string;
  receipt: AcceptanceReceiptV1;
  message: string;
  messageFields: AcceptanceMessageFields;
  signature: Uint8Array;
  signer: ReturnType<typeof keyFromSeed>;
  transactions: { organization: SignedEvidenceTransaction; document: SignedEvidenceTransaction; version: SignedEvidenceTransaction; acceptance: SignedEvidenceTransaction };
  addresses: { authority: string; relayer: string; organization: string; document: string; version: string };
  lifetime: { blockhash: string; lastValidBlockHeight: bigint };
}

/** Builds the world. `authorityForVersion` lets a test publish the version with another key (an impostor). */
export async function buildWorld(options: { versionAuthoritySeed?: number } = {}): Promise<World> {
  const authority = await signerFromSeed(filledSeed(0x0a));
  const relayer = await signerFromSeed(filledSeed(0x0b));
  const organization = await signerFromSeed(filledSeed(0x0c));
  const document = await signerFromSeed(filledSeed(0x0d));
  const version = await signerFromSeed(filledSeed(0x0e));
  const versionAuthority = options.versionAuthoritySeed ? await signerFromSeed(filledSeed(options.versionAuthoritySeed)) : authority;
  const signer = keyFromSeed(filledSeed(0x0f));
  const genesisHash = bytesToBase58(filledSeed(0x42));
  const chainId = `solana:${genesisHash.slice(0, 32)}`;
  const lifetime = { blockhash: bytesToBase58(filledSeed(0x33)), lastValidBlockHeight: 1000n };

  const hash = contentHash(canonicalContent(WORLD_DOCUMENT_TEXT));
  const versionFields = { number: 1, label: 'v1', title: 'Terms of Service', contentHash: hash, effectiveAt: null };
  const fingerprint = versionFingerprint({ organization: organization.address, document: document.address, ...versionFields });

  const orgTx = await buildOrganizationTransaction({ authority, organization, name: 'Acme', domain: 'acme.example', lifetime });
  const docTx = await buildDocumentTransaction({ authority, document, organization: organization.address, slug: 'terms', title: 'Terms of Service', lifetime });
  const verTx = await buildPublicationTransaction({ authority: versionAuthority, version, document: document.address, ...versionFields, fingerprint, lifetime });

  const messageFields: AcceptanceMessageFields = {
    protocol: 'svc/1',
    requestDomain: 'shop.acme.example',
    chainId,
    organization: organization.address,
    document: document.address,
    versionAddress: version.address,
    versionNumber: 1,
    contentHash: hash,
    fingerprint,
    signer: signer.address,
    nonce: '00112233445566778899aabbccddeeff',
    issuedAt: WORLD_ISSUED_AT,
    expiresAt: WORLD_EXPIRES_AT,
  };
  const message = buildAcceptanceMessage(messageFields);
  const signature = signer.sign(new TextEncoder().encode(message));
  const acceptanceId = acceptanceIdOf(message);
  const accTx = await buildAcceptanceTransaction({
    feePayer: relayer,
    signer: signer.address,
    signature,
    message,
    acceptanceId,
    versionAddress: version.address,
    lifetime,
  });

  const ledger = new FakeLedger(genesisHash);
  const t0 = Date.parse('2026-11-01T00:00:00Z') / 1000;
  ledger.add(orgTx, { slot: 100n, blockTime: t0 });
  ledger.add(docTx, { slot: 110n, blockTime: t0 + 10 });
  ledger.add(verTx, { slot: 120n, blockTime: t0 + 20 });
  ledger.add(accTx, { slot: 5000n, blockTime: WORLD_ACCEPTANCE_BLOCK_TIME, fee: 10000n });

  const receipt = buildReceipt({
    network: { chainId, label: 'localnet', programId: MEMO_PROGRAM_ADDRESS },
    transaction: { signature: accTx.signature, slot: 5000, blockTime: WORLD_ACCEPTANCE_BLOCK_TIME },
    acceptance: { signer: signer.address, signerType: 'wallet', message, signature: bytesToBase58(signature), requestDomain: 'shop.acme.example' },
    organization: { address: organization.address, name: 'Acme' },
    document: { address: document.address, slug: 'terms', title: 'Terms of Service' },
    version: { address: version.address, ...versionFields, fingerprint, publicationSignature: verTx.signature },
    documentText: WORLD_DOCUMENT_TEXT,
    fees: { payer: relayer.address, lamports: 10000, sponsor: 'svc', reimbursedLamports: null },
    issuedAt: '2026-11-22T10:02:00.000Z',
  });

  return {
    ledger,
    genesisHash,
    chainId,
    receipt,
    message,
    messageFields,
    signature,
    signer,
    transactions: { organization: orgTx, document: docTx, version: verTx, acceptance: accTx },
    addresses: { authority: authority.address, relayer: relayer.address, organization: organization.address, document: document.address, version: version.address },
    lifetime,
  };
}

/** A batched world: the acceptance of {@link buildWorld} as leaf 3 of a 5-leaf batch anchored at slot 5000. */
export interface BatchedWorld extends World {
  receiptV2: AcceptanceReceiptV2;
  anchor: SignedEvidenceTransaction;
  leafHashes: string[];
}

/** Builds {@link World}, then a batch holding its acceptance among four other leaves, anchored by the relayer. */
export async function buildBatchedWorld(): Promise<BatchedWorld> {
  const world = await buildWorld();
  const relayer = await signerFromSeed(filledSeed(0x0b));
  const own: BatchLeafEvidence = {
    acceptanceId: world.receipt.acceptanceId,
    message: world.message,
    signature: world.receipt.acceptance.signature,
    signer: world.signer.address,
    versionAddress: world.addresses.version,
  };
  const others = [1, 2, 3, 4].map((n): BatchLeafEvidence => {
    const message = world.message.replace('nonce: 0', `nonce: ${n}`);
    return { ...own, message, acceptanceId: acceptanceIdOf(message) };
  });
  const leaves = [others[0]!, others[1]!, others[2]!, own, others[3]!];
  const { leafHashes, root } = batchTree(leaves);
  const anchor = await buildBatchAnchorTransaction({ operator: relayer, lane: 0, sequence: 7, size: leaves.length, root, lifetime: world.lifetime });
  world.ledger.transactions.delete(world.transactions.acceptance.signature);
  world.ledger.add(anchor, { slot: 5000n, blockTime: WORLD_ACCEPTANCE_BLOCK_TIME, fee: 5000n });
  const { format: _format, acceptanceId: _id, ...fields } = world.receipt;
  const receiptV2 = buildReceiptV2({
    ...fields,
    transaction: { signature: anchor.signature, slot: 5000, blockTime: WORLD_ACCEPTANCE_BLOCK_TIME },
    fees: { ...fields.fees, lamports: batchFeeShare(5000, leaves.length, 3) },
    batch: { lane: 0, sequence: 7, size: leaves.length, root, leafIndex: 3, leafHash: leafHashes[3]!, proof: batchInclusionProof(leafHashes, 3) },
  });
  return { ...world, receiptV2, anchor, leafHashes };
}
