import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { apiKeyDecider, DomainError, streams, type ApiKeyCreatedData, type ApiKeyScope } from '@svc/domain';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type ApiKeyDoc } from '@svc/projections';
import { CLOCK, type Clock, type CommandContext, Decisions, EventLog, faultPoint, hashSecret, OrganizationFactsReader } from '@svc/application';
import { signatureFresh } from '../auth/fresh-signature.guard';
import type { DashboardSession } from '../auth/session.guard';
import { API_KEY_SHOWN_PREFIX_LENGTH, newApiKey } from './api-key-format';

/** Input of `POST /v1/organizations/{orgId}/api-keys` after edge validation (spec §4.10). */
export interface ApiKeyInput {
  name: string;
  scopes: ApiKeyScope[];
  /** 1 to 730 days; absent: the key never expires. */
  expiresInDays?: number;
}

/** An API key as the dashboard shows it (docs/api.md "API keys"); never the key itself. */
export interface ApiKeyView {
  id: string;
  name: string;
  scopes: ApiKeyScope[];
  /** The network prefix and first characters of the key, to recognise it. */
  prefix: string;
  status: 'active' | 'revoked' | 'expired';
  createdAt: string;
  createdBy: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

export function apiKeyView(doc: ApiKeyDoc, now: Date): ApiKeyView {
  const status = doc.revokedAt !== null ? 'revoked' : doc.expiresAt !== null && Date.parse(doc.expiresAt) <= now.getTime() ? 'expired' : 'active';
  return {
    id: doc.keyId,
    name: doc.name,
    scopes: doc.scopes,
    prefix: doc.keyPrefix,
    status,
    createdAt: doc.createdAt,
    createdBy: doc.createdBy,
    expiresAt: doc.expiresAt,
    revokedAt: doc.revokedAt,
  };
}

/** Creates an API key; the result carries the key itself, shown this once. */
export class CreateApiKey extends Command<{ apiKey: ApiKeyView; key: string | null }> {
  constructor(
    readonly organizationId: string,
    readonly input: ApiKeyInput,
    readonly session: DashboardSession,
    readonly ctx: CommandContext,
    /** The new key's id: named by the request's Idempotency-Key run when it has one (`createdIdOf`). */
    readonly keyId: string = randomUUID(),
  ) {
    super();
  }
}

/** Revokes an API key (idempotent); answers once every replica refuses the key. */
export class RevokeApiKey extends Command<{ apiKey: ApiKeyView }> {
  constructor(
    readonly organizationId: string,
    readonly keyId: string,
    readonly session: DashboardSession,
    readonly ctx: CommandContext,
  ) {
    super();
  }
}

const DAY_MS = 86_400_000;

@CommandHandler(CreateApiKey)
export class CreateApiKeyHandler implements ICommandHandler<CreateApiKey, { apiKey: ApiKeyView; key: string | null }> {
  constructor(
    private readonly decisions: Decisions,
    private readonly log: EventLog,
    private readonly facts: OrganizationFactsReader,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The organization's members and roles come from its stream; the key from 32 random bytes. A key already recorded
   * under the command's id (a retry, with the same Idempotency-Key, of a request whose process died after recording
   * it and before answering) is answered again with `key: null`, as a replay is (only its hash was stored), rather
   * than made twice.
   * @throws DomainError not_found (404: unknown organization or not a member), forbidden (403: neither owner nor
   *   admin), reauthentication_required (403: no wallet signature within the fresh-signature window).
   */
  async execute({ organizationId, input, session, ctx, keyId }: CreateApiKey): Promise<{ apiKey: ApiKeyView; key: string | null }> {
    const organization = await this.facts.organization(await this.facts.organizationAddress(organizationId));
    if (!organization) throw new DomainError('not_found', 'organization not found');
    const fresh = signatureFresh(session, this.clock.now(), this.config.freshSignatureSeconds);
    const earlier = (await this.decisions.load(streams.apiKey(keyId), apiKeyDecider)).state;
    if (earlier.created) {
      // Judged as a creation (the caller's role now), which records nothing more.
      const more = apiKeyDecider.decide({ kind: 'CreateApiKey', organization, wallet: session.address, key: earlier.created, signatureFresh: fresh }, earlier);
      if (more.length > 0) throw new DomainError('internal_error', 'a recorded API key would be recorded again');
      await this.log.settledAtHead();
      const recorded = await this.readStore.collection<ApiKeyDoc>(COLLECTIONS.apiKeys).findOne({ _id: keyId });
      // A 5xx is not stored and keeps the key's run: a later retry finds the API key again once its read model shows it.
      if (!recorded) throw new DomainError('internal_error', 'the recorded API key is not in its read model yet');
      return { apiKey: apiKeyView(recorded, ctx.now), key: null };
    }
    const key = newApiKey(this.config.cluster);
    const created: ApiKeyCreatedData = {
      keyId,
      organizationId,
      organization: organization.address,
      name: input.name,
      scopes: [...new Set(input.scopes)],
      keyPrefix: key.slice(0, API_KEY_SHOWN_PREFIX_LENGTH),
      keyHash: hashSecret(key),
      createdAt: ctx.now.toISOString(),
      expiresAt: input.expiresInDays === undefined ? null : new Date(ctx.now.getTime() + input.expiresInDays * DAY_MS).toISOString(),
      createdBy: session.address,
    };
    const { appended } = await this.decisions.handle(
      streams.apiKey(keyId),
      apiKeyDecider,
      { kind: 'CreateApiKey', organization, wallet: session.address, key: created, signatureFresh: fresh },
      ctx,
      { expectNew: true },
    );
    faultPoint('api-key:after-create');
    await this.log.settledAfter(appended);
    const doc = await this.readStore.collection<ApiKeyDoc>(COLLECTIONS.apiKeys).findOne({ _id: keyId });
    if (!doc) throw new DomainError('internal_error', 'the new API key is not in its read model');
    return { apiKey: apiKeyView(doc, ctx.now), key };
  }
}

@CommandHandler(RevokeApiKey)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKey, { apiKey: ApiKeyView }> {
  constructor(
    private readonly decisions: Decisions,
    private readonly log: EventLog,
    private readonly facts: OrganizationFactsReader,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /**
   * Waits until the API keys read model holds the revocation, which every replica's ApiKeyGuard reads.
   * @throws DomainError not_found (404: unknown organization, not a member, or no such key in it), forbidden (403:
   *   neither owner nor admin).
   */
  async execute({ organizationId, keyId, session, ctx }: RevokeApiKey): Promise<{ apiKey: ApiKeyView }> {
    const organization = await this.facts.organization(await this.facts.organizationAddress(organizationId));
    if (!organization) throw new DomainError('not_found', 'organization not found');
    const { appended } = await this.decisions.handle(streams.apiKey(keyId), apiKeyDecider, { kind: 'RevokeApiKey', organization, wallet: session.address, now: ctx.now.toISOString() }, ctx);
    await this.log.settledAfter(appended);
    const doc = await this.readStore.collection<ApiKeyDoc>(COLLECTIONS.apiKeys).findOne({ _id: keyId });
    if (!doc) throw new DomainError('not_found', 'API key not found');
    return { apiKey: apiKeyView(doc, ctx.now) };
  }
}

export const ApiKeyHandlers = [CreateApiKeyHandler, RevokeApiKeyHandler];
