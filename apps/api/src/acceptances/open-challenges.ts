import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError } from '@svc/domain';
import { SharedRateCounters } from '@svc/http';
import { READ_STORE, type ReadStore } from '@svc/read-store';

/**
 * The cap on open acceptance challenges (spec §7 `too_many_open_challenges`, §8 "the cap on open challenges"; the
 * choice is in docs/api.md "Signing an acceptance"): one signer may hold at most `OPEN_CHALLENGES_PER_SIGNER`
 * challenges of one document at once. A challenge counts as open for its whole validity window (`CHALLENGE_TTL_SECONDS`),
 * used or not, counted in fixed windows of that length in the read store's shared counters, so that every API replica
 * spends one budget (as the rate limits do). It bounds what a page or a script can make the service store for one
 * signer, which the per-address rate limits do not when the requests come from many addresses.
 */
@Injectable()
export class OpenChallengeCap implements OnModuleInit, OnApplicationShutdown {
  private readonly counters: SharedRateCounters;

  constructor(
    @Inject(READ_STORE) store: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.counters = new SharedRateCounters(store);
  }

  onModuleInit(): void {
    this.counters.start();
  }

  onApplicationShutdown(): void {
    this.counters.stop();
  }

  /**
   * Counts one more open challenge of `signer` for `document`.
   * @throws DomainError too_many_open_challenges (429, with `retry-after` in seconds: when the window ends) when the
   *   signer already holds the cap's number of challenges of the document.
   */
  async claim(signer: string, document: string): Promise<void> {
    const max = this.config.openChallengesPerSigner;
    const windowMs = this.config.challengeTtlSeconds * 1000;
    const count = await new Promise<{ current: number; ttl: number }>((resolve, reject) =>
      this.counters.incr(`open-challenges|${signer}|${document}`, windowMs, max, (err, c) => (err ? reject(err) : resolve(c))),
    );
    if (count.current > max) {
      throw new DomainError(
        'too_many_open_challenges',
        `this signer already has ${max} open challenges for this document; use one of them, or retry when they expire`,
        Math.max(1, Math.ceil(count.ttl / 1000)),
      );
    }
  }
}
