import type { FastifyInstance } from 'fastify';
import { EdgeError } from './body';

/**
 * Refuses a request whose query string is not valid percent-encoded UTF-8 (`%FF`, `%6`, `%ZZ`): `400
 * invalid_request`, as for such a path (docs/api.md "Input limits and content types"). Fastify's query parser
 * would otherwise keep the undecodable text as it is and a filter would search for it. Only a query holding `%` is
 * decoded to check.
 */
export function registerQueryStringCheck(fastify: FastifyInstance): void {
  // A callback hook: it runs on every request, and one without an encoded query costs no promise.
  fastify.addHook('onRequest', (request, _reply, done) => {
    const url = request.url;
    const start = url.indexOf('?');
    if (start < 0 || url.indexOf('%', start) < 0) return done();
    try {
      decodeURIComponent(url.slice(start + 1));
    } catch {
      return done(new EdgeError(400, 'invalid_request', 'the URL is not valid: its query is not percent-encoded UTF-8'));
    }
    done();
  });
}
