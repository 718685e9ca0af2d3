import { CanActivate, createParamDecorator, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { DomainError, type ApiKeyScope } from '@svc/domain';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type ApiKeyDoc } from '@svc/projections';
import { CLOCK, hashSecret, safeEqual, type Clock } from '@svc/application';
import { setCaller } from '../auth/caller';
import { API_KEY_PATTERN, apiKeyPrefixFor } from './api-key-format';

const REQUIRED_SCOPE = 'svc:api-key-scope';

/** The scope a route needs (spec §5 "API keys" rule 2); used with `@UseGuards(ApiKeyGuard)`. */
export const RequireScope = (scope: ApiKeyScope) => SetMetadata(REQUIRED_SCOPE, scope);

/** The key that authenticated a server request. */
export interface AuthenticatedKey {
  keyId: string;
  organizationId: string;
  /** The organization's address. */
  organization: string;
  scopes: readonly ApiKeyScope[];
}

type KeyedRequest = FastifyRequest & { apiKey?: AuthenticatedKey };

/**
 * Server authentication (spec §5 "API keys"): `Authorization: Bearer <API key>`. The key's SHA-256 is looked up in
 * the API keys read model on every request, with no cache, so a revocation (which answers only once that read model
 * has it) refuses the very next request on every replica sharing the read store.
 * @throws DomainError unauthorized (401: header missing or malformed, key unknown, of another network, revoked or
 *   expired), forbidden (403: the key lacks the route's scope).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly networkPrefix: string;

  constructor(
    private readonly reflector: Reflector,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.networkPrefix = apiKeyPrefixFor(config.cluster);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<KeyedRequest>();
    const header = request.headers.authorization;
    if (!header) throw new DomainError('unauthorized', 'Authorization: Bearer <API key> required');
    const match = /^Bearer +(\S+)$/i.exec(header);
    if (!match || !API_KEY_PATTERN.test(match[1]!)) throw new DomainError('unauthorized', 'Authorization: not a Bearer API key of this service');
    const key = match[1]!;
    if (!key.startsWith(this.networkPrefix)) throw new DomainError('unauthorized', `Authorization: this network takes ${this.networkPrefix} keys`);
    const hash = hashSecret(key);
    const doc = await this.readStore.collection<ApiKeyDoc>(COLLECTIONS.apiKeys).findOne({ keyHash: hash });
    if (!doc || !safeEqual(doc.keyHash, hash)) throw new DomainError('unauthorized', 'Authorization: unknown API key');
    if (doc.revokedAt !== null) throw new DomainError('unauthorized', 'Authorization: the API key was revoked');
    if (doc.expiresAt !== null && Date.parse(doc.expiresAt) <= this.clock.now().getTime()) throw new DomainError('unauthorized', 'Authorization: the API key expired');
    const scope = this.reflector.getAllAndOverride<ApiKeyScope | undefined>(REQUIRED_SCOPE, [context.getHandler(), context.getClass()]);
    if (scope && !doc.scopes.includes(scope)) throw new DomainError('forbidden', `the API key lacks the scope ${scope}`);
    request.apiKey = { keyId: doc.keyId, organizationId: doc.organizationId, organization: doc.organization, scopes: doc.scopes };
    setCaller(request, { kind: 'api_key', id: doc.keyId, organizationId: doc.organizationId });
    return true;
  }
}

/** The API key of a request that passed ApiKeyGuard. */
export const CurrentKey = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthenticatedKey => {
  const request = ctx.switchToHttp().getRequest<KeyedRequest>();
  if (!request.apiKey) throw new DomainError('unauthorized', 'Authorization: Bearer <API key> required');
  return request.apiKey;
});
