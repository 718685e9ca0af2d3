import { Inject, Injectable } from '@nestjs/common';
import { DomainError, documentDecider, organizationDecider, streams, type DocumentState, type OrganizationFacts } from '@svc/domain';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type DocumentDoc, type OrganizationDoc } from '@svc/projections';
import { Decisions } from './decisions.service';

/**
 * Facts about organizations and documents folded from their own streams (the write side), for decisions that
 * span streams: membership and roles, a document's organization and current version.
 */
@Injectable()
export class OrganizationFactsReader {
  constructor(
    private readonly decisions: Decisions,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /**
   * The address behind a dashboard id. Ids and addresses are bound once, when the object is synced, and never
   * change, so the read model may answer; everything else is folded from the streams.
   * @throws DomainError not_found (404) when the id is unknown.
   */
  async organizationAddress(organizationId: string): Promise<string> {
    const org = await this.readStore.collection<OrganizationDoc>(COLLECTIONS.organizations).findOne({ _id: organizationId });
    if (!org) throw new DomainError('not_found', 'organization not found');
    return org.address;
  }

  /** @throws DomainError not_found (404) when the id is unknown. */
  async documentAddress(documentId: string): Promise<string> {
    const doc = await this.readStore.collection<DocumentDoc>(COLLECTIONS.documents).findOne({ _id: documentId });
    if (!doc) throw new DomainError('not_found', 'document not found');
    return doc.address;
  }

  /** The organization at `address` as its stream says, or null when it was never synced. */
  async organization(address: string): Promise<OrganizationFacts | null> {
    return (await this.decisions.load(streams.organization(address), organizationDecider)).state;
  }

  /** The document at `address` as its stream says, or null when it was never synced. */
  async document(address: string): Promise<DocumentState | null> {
    return (await this.decisions.load(streams.document(address), documentDecider)).state;
  }

  /**
   * A document and its organization, both from their streams.
   * @throws DomainError not_found (404) when the document is unknown.
   */
  async documentWithOrganization(address: string): Promise<{ document: DocumentState; organization: OrganizationFacts | null }> {
    const document = await this.document(address);
    if (!document) throw new DomainError('not_found', 'document not found');
    return { document, organization: await this.organization(document.organization) };
  }
}
