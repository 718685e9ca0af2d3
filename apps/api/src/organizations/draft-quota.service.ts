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

  /**
   * The quota a draft's new source is judged by: the organization's open drafts and the bytes of their distinct
   * sources, leaving out the draft being edited (`editing`: its current source is the one replaced, so it does not
   * count), with the configured limits; and the bytes the source adds (none when another open draft holds the same
   * source: a source is counted once).
   */
  async forSource(organizationId: string, source: { hash: string; byteLength: number }, editing?: string): Promise<{ usage: DraftQuota; addedBytes: number }> {
    const open = (await this.readStore.collection<DraftDoc>(COLLECTIONS.drafts).find({ organizationId, status: { $in: ['open', 'prepared'] } })).filter(
      (d) => d.draftId !== editing,
    );
    const hashes = [...new Set(open.map((d) => d.contentHash))];
    const contents = hashes.length === 0 ? [] : await this.readStore.collection<ContentDoc>(COLLECTIONS.contents).find({ _id: { $in: hashes } });
    const usage = {
      openDrafts: open.length,
      bytesInUse: contents.reduce((sum, c) => sum + c.byteLength, 0),
      maxOpenDrafts: this.config.draftsOpenPerOrganization,
      maxBytes: this.config.draftBytesPerOrganization,
    };
    return { usage, addedBytes: hashes.includes(source.hash) ? 0 : source.byteLength };
  }
}
