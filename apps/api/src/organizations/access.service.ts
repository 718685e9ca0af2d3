import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@svc/domain';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type DocumentDoc, type DraftDoc, type MembershipDoc, type OrganizationDoc } from '@svc/projections';

/**
 * Looks up dashboard resources for a signed-in wallet. Another organization's resource reads as
 * not found (spec §5: "Other organizations' resources give 404").
 */
@Injectable()
export class DashboardAccess {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  get organizations() {
    return this.readStore.collection<OrganizationDoc>(COLLECTIONS.organizations);
  }
  get documents() {
    return this.readStore.collection<DocumentDoc>(COLLECTIONS.documents);
  }
  get memberships() {
    return this.readStore.collection<MembershipDoc>(COLLECTIONS.memberships);
  }
  get drafts() {
    return this.readStore.collection<DraftDoc>(COLLECTIONS.drafts);
  }

  isMember(org: OrganizationDoc, wallet: string): boolean {
    return org.members.some((m) => m.address === wallet);
  }

  /** @throws DomainError not_found */
  async organization(organizationId: string, wallet: string): Promise<OrganizationDoc> {
    const org = await this.organizations.findOne({ _id: organizationId });
    if (!org || !this.isMember(org, wallet)) throw new DomainError('not_found', 'organization not found');
    return org;
  }

  /** @throws DomainError not_found */
  async document(documentId: string, wallet: string): Promise<{ document: DocumentDoc; organization: OrganizationDoc }> {
    const document = await this.documents.findOne({ _id: documentId });
    if (!document) throw new DomainError('not_found', 'document not found');
    const organization = await this.organization(document.organizationId, wallet);
    return { document, organization };
  }

  /** @throws DomainError not_found */
  async draft(draftId: string, wallet: string): Promise<{ draft: DraftDoc; document: DocumentDoc; organization: OrganizationDoc }> {
    const draft = await this.drafts.findOne({ _id: draftId });
    if (!draft) throw new DomainError('not_found', 'draft not found');
    const { document, organization } = await this.document(draft.documentId, wallet);
    return { draft, document, organization };
  }
}
