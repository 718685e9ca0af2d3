import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { DomainError } from '@svc/domain';

/**
 * Refuses a body on a route that takes none (spec §4.10 "Request body: none"; docs/api.md "Errors and limits"), as
 * unknown fields are refused everywhere else: a JSON object with keys is `400 invalid_request` naming its first key
 * (`<key>: unknown field`), any other JSON value `400 invalid_request`. No body, `{}` and `null` pass. A route takes
 * a body when its handler has a `@Body()` parameter; the answer is kept per handler. A guard rather than an
 * interceptor, so that the routes without interceptors (acceptance challenges and submissions) keep Nest's direct path.
 */
@Injectable()
export class BodylessRouteGuard implements CanActivate {
  private readonly takesBody = new WeakMap<object, boolean>();

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() === 'http') {
      const body: unknown = context.switchToHttp().getRequest<{ body?: unknown }>().body;
      if (body !== undefined && body !== null && !isEmptyObject(body) && !this.handlerTakesBody(context)) {
        const first = typeof body === 'object' && !Array.isArray(body) ? Object.keys(body)[0] : undefined;
        throw new DomainError('invalid_request', first !== undefined ? `${first}: unknown field (this route takes no body)` : 'this route takes no body');
      }
    }
    return true;
  }

  private handlerTakesBody(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let known = this.takesBody.get(handler);
    if (known === undefined) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as Record<string, unknown>;
      known = Object.keys(args).some((key) => key.split(':')[0] === String(RouteParamtypes.BODY));
      this.takesBody.set(handler, known);
    }
    return known;
  }
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}
