import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { acceptanceSessionDecider, DomainError, streams } from '@svc/domain';
import { isAddress, SLUG } from '@svc/http';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type DocumentDoc } from '@svc/projections';
import { type CommandContext, Decisions, hashSecret } from '@svc/application';
import type { AuthenticatedKey } from '../api-keys/api-key.guard';
import { newSessionToken } from './session-token';

/** Input of `POST /v1/acceptance-sessions` after edge validation (spec §4.5). */
export interface AcceptanceSessionInput {
  /** Document address (ADDR) or slug (SLUG) of the key's organization. */
  document?: string;
  externalUserRef?: string;
  /** 60 to 3600; default 900. */
  ttlSeconds?: number;
}

/** Response of `POST /v1/acceptance-sessions` (spec §2.4). */
export interface AcceptanceSessionResult {
  sessionToken: string;
  expiresAt: string;
}

export const DEFAULT_SESSION_TTL_SECONDS = 900;

/** Opens a single-use acceptance session for the key's organization. */
export class CreateAcceptanceSession extends Command<AcceptanceSessionResult> {
  constructor(
    readonly key: AuthenticatedKey,
    readonly input: AcceptanceSessionInput,
    readonly ctx: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(CreateAcceptanceSession)
export class CreateAcceptanceSessionHandler implements ICommandHandler<CreateAcceptanceSession, AcceptanceSessionResult> {
  constructor(
    private readonly decisions: Decisions,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /**
   * A document given by slug or address must belong to the key's organization (ids and addresses never change,
   * so the read model answers). The token is returned once; the stream keeps its SHA-256.
   * @throws DomainError not_found (404: no such document in the key's organization).
   */
  async execute({ key, input, ctx }: CreateAcceptanceSession): Promise<AcceptanceSessionResult> {
    let document: string | null = null;
    if (input.document !== undefined) {
      const documents = this.readStore.collection<DocumentDoc>(COLLECTIONS.documents);
      const given = input.document;
      // A text that is both a slug and an address (possible only with many leading `1`s) is tried both ways.
      const doc =
        (isAddress(given) ? await documents.findOne({ address: given, organizationId: key.organizationId }) : null) ??
        (SLUG.test(given) ? await documents.findOne({ slug: given, organizationId: key.organizationId }) : null);
      if (!doc) throw new DomainError('not_found', `document ${given} not found in this organization`);
      document = doc.address;
    }
    const acceptanceSessionId = randomUUID();
    const sessionToken = newSessionToken(acceptanceSessionId);
    const expiresAt = new Date(ctx.now.getTime() + (input.ttlSeconds ?? DEFAULT_SESSION_TTL_SECONDS) * 1000).toISOString();
    await this.decisions.handle(
      streams.acceptanceSession(acceptanceSessionId),
      acceptanceSessionDecider,
      {
        kind: 'CreateAcceptanceSession',
        session: {
          acceptanceSessionId,
          organizationId: key.organizationId,
          organization: key.organization,
          document,
          externalUserRef: input.externalUserRef ?? null,
          tokenHash: hashSecret(sessionToken),
          createdAt: ctx.now.toISOString(),
          expiresAt,
          keyId: key.keyId,
        },
      },
      ctx,
      { expectNew: true },
    );
    return { sessionToken, expiresAt };
  }
}

export const AcceptanceSessionHandlers = [CreateAcceptanceSessionHandler];
