import { Injectable } from '@nestjs/common';
import { acceptanceDecider, challengeDecider, streams, type EventOf } from '@svc/domain';
import { reactionContext } from '../infrastructure/command-context';
import { Decisions } from '../shared/decisions.service';
import type { StoredDomainEvent } from '../shared/stored-events';
import type { Processor } from './processor';

type Relayed = EventOf<'AcceptanceRelayed'>;

/**
 * Closes the challenge of a relayed acceptance (`AcceptanceChallengeCompleted`), so that its status reads
 * `completed`. A challenge whose relay the ledger refused stays open (the signer may submit it again). Until the
 * completion is recorded, a second submission of the challenge is refused by the acceptance's own stream
 * (`challenge_not_open`), so the delay is never a window for reuse.
 */
@Injectable()
export class CompleteChallengeWhenAcceptanceRelayed implements Processor<Relayed> {
  readonly name = 'complete-challenge';
  readonly eventTypes = ['AcceptanceRelayed'] as const satisfies readonly Relayed['type'][];
  readonly concurrency = 64;

  constructor(private readonly decisions: Decisions) {}

  key(event: StoredDomainEvent<Relayed>): string {
    return event.streamId;
  }

  async handle(event: StoredDomainEvent<Relayed>): Promise<void> {
    const { state } = await this.decisions.load(event.streamId, acceptanceDecider, { cached: true });
    const submitted = state.submitted;
    if (!submitted || submitted.acceptanceId !== event.data.acceptanceId) return;
    await this.decisions.handle(
      streams.challenge(submitted.challengeId),
      challengeDecider,
      { kind: 'CompleteChallenge', acceptanceId: submitted.acceptanceId },
      reactionContext(event, 'service:challenges'),
    );
  }
}
