import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@svc/domain';
import {
  batchInclusionProof,
  batchTree,
  buildReceipt,
  buildReceiptV2,
  verifyReceipt,
  VerifierMemo,
  type AcceptanceReceipt,
  type AcceptanceReceiptInput,
  type VerificationReport,
} from '@svc/evidence';
import { LEDGER, type Ledger } from '@svc/ledger';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type AcceptanceDoc, type BatchDoc, type ContentDoc, type DocumentDoc, type OrganizationDoc, type VersionDoc } from '@svc/projections';
import { NetworkService } from '@svc/application';
import { LRUCache } from 'lru-cache';

/**
 * Builds the self-contained receipt of an acceptance from the read models (`svc-receipt-v1`, or `svc-receipt/2` with
 * the leaf's inclusion proof for a batched one, docs/protocol.md §8.1) and checks it with the same verifier anyone
 * can run (`svc verify`), against the ledger.
 */
@Injectable()
export class ReceiptService {
  /**
   * What a receipt is made of besides the acceptance itself never changes once recorded (a version, its text, the
   * document's address, slug and title, the organization's address and name, a batch's leaves), so it is kept once
   * read: only the acceptance record, whose commitment moves, is read for every receipt.
   */
  private readonly versions = new LRUCache<string, VersionDoc>({ max: 4096 });
  private readonly organizations = new LRUCache<string, Pick<OrganizationDoc, 'address' | 'name'>>({ max: 4096 });
  private readonly documents = new LRUCache<string, DocumentDoc>({ max: 4096 });
  /** Document texts, bounded by their total size (UTF-16 code units, about 64 MiB). */
  private readonly contents = new LRUCache<string, ContentDoc>({ maxSize: 32 * 1024 * 1024, sizeCalculation: (c) => Math.max(1, c.text.length) });
  private readonly batchLeaves = new LRUCache<string, readonly string[]>({ max: 256 });
  /** Records of finalized acceptances: no event changes an acceptance once finalized (docs/architecture.md "Streams"). */
  private readonly finalizedAcceptances = new LRUCache<string, AcceptanceDoc>({ max: 16_384 });
  /** What the live report need not read or hash twice (finalized transactions, creations, content hashes). */
  private readonly verifierMemo = new VerifierMemo();

  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(LEDGER) private readonly ledger: Ledger,
    private readonly network: NetworkService,
  ) {}

  /**
   * A recorded acceptance by id: relayed, or batched and waiting for its batch (`transactionSignature` null). The
   * record is shared, not copied: callers must not change it.
   * @throws DomainError not_found (404)
   */
  async acceptance(acceptanceId: string): Promise<AcceptanceDoc> {
    const kept = this.finalizedAcceptances.get(acceptanceId);
    if (kept) return kept;
    const acceptance = await this.readStore.collection<AcceptanceDoc>(COLLECTIONS.acceptances).findOne({ _id: acceptanceId });
    if (!acceptance || !(acceptance.status === 'confirmed' || pendingBatch(acceptance))) throw new DomainError('not_found', 'acceptance not found');
    if (acceptance.commitment === 'finalized') this.finalizedAcceptances.set(acceptanceId, acceptance);
    return acceptance;
  }

  /**
   * @throws DomainError not_found (404); pending_batch (409) for a batched acceptance whose batch is not anchored yet
   *   (spec §7: it closes within 10 seconds).
   */
  async receipt(acceptanceId: string): Promise<AcceptanceReceipt> {
    const a = await this.acceptance(acceptanceId);
    if (pendingBatch(a)) throw new DomainError('pending_batch', 'the acceptance awaits the anchoring of its batch (within about 10 seconds); ask again then');
    const [version, org, doc] = await Promise.all([
      this.immutable(this.versions, a.versionAddress, () => this.readStore.collection<VersionDoc>(COLLECTIONS.versions).findOne({ _id: a.versionAddress })),
      this.immutable(this.organizations, a.organizationId, async () => {
        const o = await this.readStore.collection<OrganizationDoc>(COLLECTIONS.organizations).findOne({ _id: a.organizationId });
        return o && { address: o.address, name: o.name };
      }),
      this.immutable(this.documents, a.documentId, () => this.readStore.collection<DocumentDoc>(COLLECTIONS.documents).findOne({ _id: a.documentId })),
    ]);
    if (!version || !org || !doc) throw new DomainError('not_found', 'acceptance not found');
    const content = await this.immutable(this.contents, version.contentHash, () => this.readStore.collection<ContentDoc>(COLLECTIONS.contents).findOne({ _id: version.contentHash }));
    if (!content) throw new DomainError('not_found', 'document text not found');
    const net = this.network.network;
    const input: AcceptanceReceiptInput = {
      network: { chainId: net.chainId, label: net.label, programId: net.programId },
      transaction: { signature: a.transactionSignature ?? '', slot: a.slot ?? 0, blockTime: a.blockTime },
      acceptance: { signer: a.signer, signerType: 'wallet', message: a.message, signature: a.signature, requestDomain: a.requestDomain },
      organization: { address: org.address, name: org.name },
      document: { address: doc.address, slug: doc.slug, title: doc.title },
      version: {
        address: version.address,
        number: version.number,
        label: version.label,
        title: version.title,
        contentHash: version.contentHash,
        fingerprint: version.fingerprint,
        effectiveAt: version.effectiveAt,
        publicationSignature: version.transactionSignature,
      },
      documentText: content.text,
      fees: { payer: a.feePayer, lamports: a.feeLamports ?? 0, sponsor: a.feeSponsor === 'organization' ? 'organization' : 'svc', reimbursedLamports: null },
      issuedAt: new Date().toISOString(),
    };
    if (a.batch === null) return buildReceipt(input);
    const batchRoot = a.batch.root;
    const leafHashes = await this.immutable(this.batchLeaves, batchRoot, async () => {
      const batch = await this.readStore.collection<BatchDoc>(COLLECTIONS.batches).findOne({ _id: batchRoot });
      return batch && batchTree(batch.leaves).leafHashes;
    });
    if (!leafHashes) throw new DomainError('pending_batch', 'the batch of the acceptance is being recorded; ask again in a moment');
    const { lane, sequence, size, root, leafIndex } = a.batch;
    return buildReceiptV2({ ...input, batch: { lane, sequence, size, root, leafIndex, leafHash: leafHashes[leafIndex]!, proof: batchInclusionProof(leafHashes, leafIndex) } });
  }

  /** A record that never changes once it exists: from `cache`, else read (and kept when found). */
  private async immutable<V extends object>(cache: LRUCache<string, V>, key: string, read: () => Promise<V | null>): Promise<V | null> {
    const hit = cache.get(key);
    if (hit) return hit;
    const found = await read();
    if (found) cache.set(key, found);
    return found;
  }

  /** The receipt and the service's own verification report, made now against the ledger. */
  async receiptWithReport(acceptanceId: string): Promise<{ receipt: AcceptanceReceipt; report: VerificationReport }> {
    const receipt = await this.receipt(acceptanceId);
    const report = await verifyReceipt(receipt, this.ledger, { memo: this.verifierMemo });
    return { receipt, report };
  }
}

/** Whether a batched acceptance waits for its batch to be anchored. */
export function pendingBatch(a: AcceptanceDoc): boolean {
  return a.status === 'submitted' && a.evidenceMode === 'MERKLE_BATCHED';
}
