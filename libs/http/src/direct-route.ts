import type { FastifyInstance, RouteHandlerMethod } from 'fastify';

/**
 * Gives the route Nest registers for `method url` (Fastify's pattern, global prefix included) a plain Fastify
 * handler instead of Nest's execution context, pipes, interceptors and exception filter; the server-wide hooks
 * (CORS, rate limits, request id) still run. The controller method stays the definition the OpenAPI description is
 * made from, so the handler must answer exactly as it does (docs/architecture.md "Layers").
 *
 * Must be called before the application is initialised (Nest registers its routes then).
 */
export function serveRouteDirectly(fastify: FastifyInstance, method: 'GET', url: string, handler: RouteHandlerMethod): void {
  fastify.addHook('onRoute', (route) => {
    if (route.url === url && route.method === method) route.handler = handler;
  });
}
