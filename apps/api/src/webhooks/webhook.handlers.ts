import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError, streams, webhookDecider, type OrganizationFacts, type SubscribableWebhookEventType, type WebhookCommand } from '@svc/domain';
import { EVENT_STORE, type EventStore } from '@svc/event-store';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type WebhookDoc } from '@svc/projections';
import {
  checkWebhookUrl,
  CLOCK,
  type Clock,
  type CommandContext,
  Decisions,
  EventLog,
  faultPoint,
  OrganizationFactsReader,
  QuotaTurns,
  webhookDeliveryId,
  webhookEventId,
  WebhookSecrets,
} from '@svc/application';
import { signatureFresh } from '../auth/fresh-signature.guard';
import type { DashboardSession } from '../auth/session.guard';

/** A webhook endpoint as the dashboard shows it (docs/api.md "Webhooks"); never its secret. */
export type WebhookView = { id: string } & Pick<WebhookDoc, 'url' | 'description' | 'events' | 'status' | 'secretPrefix' | 'createdAt' | 'createdBy' | 'updatedAt' | 'secretRotatedAt'>;

export function webhookView(doc: WebhookDoc): WebhookView {
  return {
    id: doc.webhookId,
    url: doc.url,
    description: doc.description,
    events: doc.events,
    status: doc.status,
    secretPrefix: doc.secretPrefix,
    createdAt: doc.createdAt,
    createdBy: doc.createdBy,
    updatedAt: doc.updatedAt,
    secretRotatedAt: doc.secretRotatedAt,
  };
}

/** Input of `POST …/webhooks` after edge validation (spec §4.10). */
export interface WebhookInput {
  url: string;
  description?: string | null;
  events: SubscribableWebhookEventType[];
}

/** The change of `PATCH …/webhooks/{webhookId}` after edge validation. */
export interface WebhookChange {
  status?: 'active' | 'disabled';
  events?: SubscribableWebhookEventType[];
}

/** Adds an endpoint; the result carries its signing secret, shown this once. */
export class CreateWebhook extends Command<{ webhook: WebhookView; secret: string }> {
  constructor(
    readonly organizationId: string,
    readonly input: WebhookInput,
    readonly session: DashboardSession,
    readonly ctx: CommandContext,
    /** The new endpoint's id: named by the request's Idempotency-Key run when it has one (`createdIdOf`). */
    readonly webhookId: string = randomUUID(),
  ) {
    super();
  }
}

/** Changes, deletes, rotates the secret of, or tests an endpoint. */
export class ChangeWebhook extends Command<{ webhook: WebhookView; secret?: string; test?: { eventId: string; deliveryId: string } }> {
  constructor(
    readonly organizationId: string,
    readonly webhookId: string,
    readonly change: { kind: 'update'; change: WebhookChange } | { kind: 'delete' } | { kind: 'rotate' } | { kind: 'test' },
    readonly session: DashboardSession,
    readonly ctx: CommandContext,
  ) {
    super();
  }
}

/** @throws DomainError not_found (404) for an unknown organization. */
async function organizationOf(facts: OrganizationFactsReader, organizationId: string): Promise<OrganizationFacts> {
  const organization = await facts.organization(await facts.organizationAddress(organizationId));
  if (!organization) throw new DomainError('not_found', 'organization not found');
  return organization;
}

@CommandHandler(CreateWebhook)
export class CreateWebhookHandler implements ICommandHandler<CreateWebhook, { webhook: WebhookView; secret: string }> {
  constructor(
    private readonly decisions: Decisions,
    private readonly log: EventLog,
    private readonly facts: OrganizationFactsReader,
    private readonly secrets: WebhookSecrets,
    private readonly turns: QuotaTurns,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Checks the URL (HTTPS, every resolved address public), seals a new secret and records the endpoint. An endpoint
   * already recorded under the command's id (a retry, with the same Idempotency-Key, of a request that recorded it
   * and died or failed before answering) is answered again, with the secret it was created with, rather than added
   * twice: to an owner or admin, and not once it is deleted (404).
   * @throws DomainError invalid_url (400), not_found (404: unknown organization or not a member), forbidden (403:
   *   neither owner nor admin), reauthentication_required (403: no wallet signature within the window), chain_state
   *   (409: the organization keeps `WEBHOOKS_PER_ORGANIZATION` endpoints already).
   */
  async execute({ organizationId, input, session, ctx, webhookId }: CreateWebhook): Promise<{ webhook: WebhookView; secret: string }> {
    const organization = await organizationOf(this.facts, organizationId);
    const signedRecently = signatureFresh(session, this.clock.now(), this.config.freshSignatureSeconds);
    const earlier = (await this.decisions.load(streams.webhook(webhookId), webhookDecider)).state;
    if (earlier.created) {
      // Judged as a creation (the caller's role now, the endpoint not deleted since), which records nothing more; then
      // answered with the secret it was created with, as the lost answer had it, never one rotated in since.
      const more = webhookDecider.decide(
        { kind: 'CreateWebhook', organization, wallet: session.address, now: ctx.now.toISOString(), signatureFresh: signedRecently, endpoints: { count: 0, limit: 1 }, endpoint: earlier.created },
        earlier,
      );
      if (more.length > 0) throw new DomainError('internal_error', 'a recorded webhook endpoint would be recorded again');
      await this.log.settledAtHead();
      const doc = await this.readStore.collection<WebhookDoc>(COLLECTIONS.webhooks).findOne({ _id: webhookId });
      // A 5xx is not stored and keeps the key's run: a later retry finds the endpoint again once its read model shows it.
      if (!doc) throw new DomainError('internal_error', 'the recorded webhook endpoint is not in its read model yet');
      return { webhook: webhookView(doc), secret: this.secrets.open(earlier.created.sealedSecret, webhookId) };
    }
    const url = await checkWebhookUrl(input.url, this.config.webhooks.allowLoopback);
    const { secret, sealed, prefix } = this.secrets.create(webhookId);
    // Counted from the read model in the organization's turn, which ends once the read model shows the new endpoint
    // (docs/api.md "Quotas"): the organization's endpoints not deleted.
    return this.turns.take(`webhooks:${organizationId}`, async () => {
      const listed = await this.readStore.collection<WebhookDoc>(COLLECTIONS.webhooks).find({ organizationId }, { sort: { createdAt: -1 } });
      const endpoints = { count: listed.filter((w) => !w.deleted).length, limit: this.config.webhooksPerOrganization };
      const { appended } = await this.decisions.handle(
        streams.webhook(webhookId),
        webhookDecider,
        {
          kind: 'CreateWebhook',
          organization,
          wallet: session.address,
          now: ctx.now.toISOString(),
          signatureFresh: signedRecently,
          endpoints,
          endpoint: {
            webhookId,
            organizationId,
            organization: organization.address,
            url: url.href.length <= 2048 ? url.href : input.url,
            description: input.description ?? null,
            events: [...new Set(input.events)],
            sealedSecret: sealed,
            secretPrefix: prefix,
            createdAt: ctx.now.toISOString(),
            createdBy: session.address,
          },
        },
        ctx,
        { expectNew: true },
      );
      faultPoint('webhook:after-create');
      await this.log.settledAfter(appended);
      const doc = await this.readStore.collection<WebhookDoc>(COLLECTIONS.webhooks).findOne({ _id: webhookId });
      if (!doc) throw new DomainError('internal_error', 'the new webhook endpoint is not in its read model');
      return { webhook: webhookView(doc), secret };
    });
  }
}

@CommandHandler(ChangeWebhook)
export class ChangeWebhookHandler implements ICommandHandler<ChangeWebhook> {
  constructor(
    private readonly decisions: Decisions,
    private readonly log: EventLog,
    private readonly facts: OrganizationFactsReader,
    private readonly secrets: WebhookSecrets,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * @throws DomainError not_found (404: unknown organization, not a member, or no such endpoint in it), forbidden
   *   (403: neither owner nor admin), reauthentication_required (403: rotating without a fresh signature),
   *   chain_state (409: testing a disabled endpoint).
   */
  async execute({ organizationId, webhookId, change, session, ctx }: ChangeWebhook): Promise<{ webhook: WebhookView; secret?: string; test?: { eventId: string; deliveryId: string } }> {
    const organization = await organizationOf(this.facts, organizationId);
    const caller = { organization, wallet: session.address, now: ctx.now.toISOString() };
    let secret: string | undefined;
    let command: WebhookCommand;
    switch (change.kind) {
      case 'update':
        command = { kind: 'UpdateWebhook', ...caller, ...change.change };
        break;
      case 'delete':
        command = { kind: 'DeleteWebhook', ...caller };
        break;
      case 'test':
        command = { kind: 'RequestWebhookTest', ...caller };
        break;
      case 'rotate': {
        const created = this.secrets.create(webhookId);
        secret = created.secret;
        const fresh = signatureFresh(session, this.clock.now(), this.config.freshSignatureSeconds);
        command = { kind: 'RotateWebhookSecret', ...caller, sealedSecret: created.sealed, secretPrefix: created.prefix, signatureFresh: fresh };
        break;
      }
    }
    const { appended } = await this.decisions.handle(streams.webhook(webhookId), webhookDecider, command, ctx);
    await this.log.settledAfter(appended);
    const doc = await this.readStore.collection<WebhookDoc>(COLLECTIONS.webhooks).findOne({ _id: webhookId });
    if (!doc || doc.organizationId !== organizationId) throw new DomainError('not_found', 'webhook endpoint not found');
    if (change.kind !== 'test' || !appended) return { webhook: webhookView(doc), secret };
    const [requested] = await this.store.readStream(streams.webhook(webhookId), { fromRevision: appended.nextExpectedRevision, maxCount: 1 });
    const eventId = webhookEventId(requested!.id);
    return { webhook: webhookView(doc), test: { eventId, deliveryId: webhookDeliveryId(webhookId, eventId) } };
  }
}

export const WebhookHandlers = [CreateWebhookHandler, ChangeWebhookHandler];
