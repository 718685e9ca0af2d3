import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@svc/domain';
import { buildReceipt, verifyReceipt, type AcceptanceReceiptV1, type VerificationReport } from '@svc/evidence';
import { LEDGER, type Ledger } from '@svc/ledger';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type AcceptanceDoc, type ContentDoc, type DocumentDoc, type OrganizationDoc, type VersionDoc } from '@svc/projections';
import { NetworkService } from '@svc/application';

/**
 * Builds the self-contained receipt of an acceptance (`svc-receipt-v1`) from the read models and checks it
 * with the same verifier anyone can run (`svc verify`), against the ledger.
 */
@Injectable()
export class ReceiptService {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(LEDGER) private readonly ledger: Ledger,
    private readonly network: NetworkService,
  ) {}

  /** A relayed acceptance by id. @throws DomainError not_found */
  async acceptance(acceptanceId: string): Promise<AcceptanceDoc> {
    const acceptance = await this.readStore.collection<AcceptanceDoc>(COLLECTIONS.acceptances).findOne({ _id: acceptanceId });
    if (!acceptance || acceptance.status !== 'confirmed') throw new DomainError('not_found', 'acceptance not found');
    return acceptance;
  }

  /** @throws DomainError not_found */
  async receipt(acceptanceId: string): Promise<AcceptanceReceiptV1> {
    const a = await this.acceptance(acceptanceId);
    const [version, org, doc] = await Promise.all([
      this.readStore.collection<VersionDoc>(COLLECTIONS.versions).findOne({ _id: a.versionAddress }),
      this.readStore.collection<OrganizationDoc>(COLLECTIONS.organizations).findOne({ _id: a.organizationId }),
      this.readStore.collection<DocumentDoc>(COLLECTIONS.documents).findOne({ _id: a.documentId }),
    ]);
    if (!version || !org || !doc) throw new DomainError('not_found', 'acceptance not found');
    const content = await this.readStore.collection<ContentDoc>(COLLECTIONS.contents).findOne({ _id: version.contentHash });
    if (!content) throw new DomainError('not_found', 'document text not found');
    const net = this.network.network;
    return buildReceipt({
      network: { chainId: net.chainId, label: net.label, programId: net.programId },
      transaction: { signature: a.transactionSignature, slot: a.slot ?? 0, blockTime: a.blockTime },
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
    });
  }

  /** The receipt and the service's own verification report, made now against the ledger. */
  async receiptWithReport(acceptanceId: string): Promise<{ receipt: AcceptanceReceiptV1; report: VerificationReport }> {
    const receipt = await this.receipt(acceptanceId);
    const report = await verifyReceipt(receipt, this.ledger);
    return { receipt, report };
  }
}
