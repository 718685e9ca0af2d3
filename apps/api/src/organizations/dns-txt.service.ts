import { Inject, Injectable } from '@nestjs/common';
import { Resolver } from 'node:dns/promises';
import { APP_CONFIG, type AppConfig } from '@svc/config';

/** Outcome of one TXT lookup: the values found, or why none could be read. */
export interface TxtLookup {
  /** Every TXT record at the name, each record's character-strings joined (RFC 1035 §3.3.14, RFC 7208 §3.3 style). */
  values: string[];
  /** Null when the resolver answered (records or none); otherwise the resolver's error code (`ETIMEOUT`, `ESERVFAIL`...). */
  error: string | null;
}

/** Resolver errors that mean "the name has no TXT record": the record is not published (yet). */
const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);

/**
 * TXT look-ups for domain verification (docs/api.md "Domains") through a `node:dns` resolver whose servers come from
 * `DNS_SERVERS` (default: the system's resolvers). Each look-up times out after 3 s with 2 tries.
 */
@Injectable()
export class DnsTxtLookup {
  private readonly resolver: Resolver;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.resolver = new Resolver({ timeout: 3000, tries: 2 });
    if (config.dnsServers) this.resolver.setServers(config.dnsServers);
  }

  /** The TXT values at `name`; never throws (a failed look-up is reported in `error`). */
  async txt(name: string): Promise<TxtLookup> {
    try {
      const records = await this.resolver.resolveTxt(name);
      return { values: records.map((chunks) => chunks.join('')), error: null };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      return { values: [], error: NO_RECORD.has(code) ? null : code };
    }
  }
}
