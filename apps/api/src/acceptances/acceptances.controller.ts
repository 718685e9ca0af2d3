import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiHeader, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { acceptanceDecider, challengeDecider, DomainError, streams, type AcceptanceChallengeIssuedData } from '@svc/domain';
import { ApiErrors, UuidParam } from '@svc/http';
import { CLOCK, commandContext, Decisions, hashSecret, safeEqual, type Clock } from '@svc/application';
import { ChallengeRequest, SubmitRequest } from './acceptances.dto';
import { IssueAcceptanceChallenge, type ChallengeResult } from './challenge.handlers';
import { SubmitAcceptance, receiptUrlOf, type SubmitResult } from './submit.handler';
import { ChallengeResponse, ChallengeStatusResponse, SubmitResponse } from './signing.responses';

/** Signing an acceptance (spec §4.4): public endpoints used by the signer's browser. */
@ApiTags('acceptance signing')
@Controller('v1/acceptance/challenges')
export class AcceptanceSigningController {
  constructor(
    private readonly commands: CommandBus,
    private readonly decisions: Decisions,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Issues the message to sign for the document's current version. The requesting site is the Origin header.
   * Returns `{challengeId, message, nonce, issuedAt, expiresAt, clientBinding, protocol, signerType, feeSponsor,
   * evidenceMode, organization, document, version}`.
   */
  @Post()
  @HttpCode(200)
  @ApiHeader({ name: 'origin', required: true, description: 'The site asking for the signature' })
  @ApiOkResponse({ type: ChallengeResponse })
  @ApiErrors(
    'invalid_request',
    'invalid_address',
    'invalid_signer',
    'unsupported_signer',
    'invalid_origin',
    'passkey_required',
    'sponsorship_unavailable',
    'forbidden',
    'not_found',
    'chain_state',
    'no_published_version',
    'already_accepted',
    'too_many_open_challenges',
  )
  challenge(@Body() body: ChallengeRequest, @Headers('origin') origin: string | undefined, @Req() req: FastifyRequest): Promise<ChallengeResult> {
    return this.commands.execute(
      new IssueAcceptanceChallenge({ ...body, signerType: body.signerType ?? 'wallet' }, origin, commandContext(`signer:${body.signer}`, req.id, this.clock.now())),
    );
  }

  /**
   * Submits the signature; the service verifies it over the exact message and relays the acceptance to the
   * ledger. Returns `{acceptanceId, transactionSignature, slot, status, evidenceMode, signerType, fee, receiptUrl}`.
   */
  @Post(':challengeId/submit')
  @HttpCode(200)
  @ApiOkResponse({ type: SubmitResponse })
  @ApiErrors(
    'invalid_request',
    'invalid_signature',
    'forbidden',
    'not_found',
    'challenge_not_open',
    'challenge_expired',
    'version_superseded',
    'already_accepted',
    'relay_failed',
  )
  submit(@Param('challengeId', UuidParam('challengeId')) challengeId: string, @Body() body: SubmitRequest, @Req() req: FastifyRequest): Promise<SubmitResult> {
    return this.commands.execute(
      new SubmitAcceptance(challengeId, body.clientBinding, body.signature, body.passkeyAssertion !== undefined, commandContext(`challenge:${challengeId}`, req.id, this.clock.now())),
    );
  }

  /**
   * Status of a challenge for the browser holding its binding (header `x-client-binding`):
   * `{challengeId, status: "open"|"accepted"|"expired", expiresAt, acceptanceId|null, receiptUrl|null}`.
   * Errors: 400 missing_binding, 403 forbidden (wrong binding), 404 not_found.
   */
  @Get(':challengeId')
  @ApiHeader({ name: 'x-client-binding', required: true })
  @ApiOkResponse({ type: ChallengeStatusResponse })
  @ApiErrors('invalid_request', 'missing_binding', 'forbidden', 'not_found')
  async status(@Param('challengeId', UuidParam('challengeId')) challengeId: string, @Headers('x-client-binding') binding: string | undefined) {
    if (!binding) throw new DomainError('missing_binding', 'x-client-binding: header required');
    const { issued, completedBy } = (await this.decisions.load(streams.challenge(challengeId), challengeDecider)).state;
    if (!issued) throw new DomainError('not_found', 'challenge not found');
    if (!safeEqual(hashSecret(binding), issued.clientBindingHash)) throw new DomainError('forbidden', 'x-client-binding does not match this challenge');
    const acceptanceId = completedBy ?? (await this.acceptedThrough(issued));
    const status = acceptanceId ? 'accepted' : Date.parse(issued.expiresAt) <= this.clock.now().getTime() ? 'expired' : 'open';
    return {
      challengeId,
      status,
      signer: issued.signer,
      versionAddress: issued.versionAddress,
      issuedAt: issued.issuedAt,
      expiresAt: issued.expiresAt,
      acceptanceId,
      receiptUrl: acceptanceId ? receiptUrlOf(this.config.publicBaseUrl, acceptanceId) : null,
    };
  }

  /**
   * The acceptance recorded through a challenge: the signer's acceptance of the challenge's version, submitted with
   * this challenge and either relayed, or batched (answered `pending_batch`: recorded, its anchoring to come); else
   * null (docs/architecture.md "Streams"). A direct acceptance whose relay has not answered yet is not accepted.
   */
  private async acceptedThrough(issued: AcceptanceChallengeIssuedData): Promise<string | null> {
    const { state } = await this.decisions.load(streams.acceptance(issued.versionAddress, issued.signer), acceptanceDecider);
    const recorded = state.status === 'relayed' || (state.status === 'submitted' && state.submitted?.evidenceMode === 'MERKLE_BATCHED');
    return recorded && state.submitted?.challengeId === issued.challengeId ? state.submitted.acceptanceId : null;
  }
}
