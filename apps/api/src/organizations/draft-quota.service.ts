import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import type { DraftQuota } from '@svc/domain';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type ContentDoc, type DraftDoc } from '@svc/projections';

/** Reads an organization's draft quota usage from the drafts and contents read models (docs/api.md "Quotas"). */
@Injectable()
export class DraftQuotaReader {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Open drafts of the organization and the bytes of their distinct sources, with the configured limits. */
  async usage(organizationId: string): Promise<DraftQuota> {
    const open = await this.readStore
      .collection<DraftDoc>(COLLECTIONS.drafts)
      .find({ organizationId, status: { $in: ['open', 'prepared'] } });
    const hashes = [...new Set(open.map((d) => d.contentHash))];
    const contents = hashes.length === 0 ? [] : await this.readStore.collection<ContentDoc>(COLLECTIONS.contents).find({ _id: { $in: hashes } });
    return {
      openDrafts: open.length,
      bytesInUse: contents.reduce((sum, c) => sum + c.byteLength, 0),
      maxOpenDrafts: this.config.draftsOpenPerOrganization,
      maxBytes: this.config.draftBytesPerOrganization,
    };
  }
}
