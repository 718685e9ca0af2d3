import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

/** The subset of an OpenAPI 3.0 document the response check reads. */
interface Document {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: object }> }> }>>;
  components?: { schemas?: Record<string, object> };
}

/**
 * Checks every answer of a service against the response its OpenAPI description declares for the route and status
 * (docs/api.md "OpenAPI"): an undeclared status, a JSON body without a declared schema, or a body the schema refuses
 * is a violation. Answers of routes outside the description (404 of unknown paths, `/rpc`, the description itself,
 * receipt pages) and preflights are not checked.
 */
export class ResponseChecker {
  readonly violations: string[] = [];
  private readonly ajv = new Ajv({ strict: false, allErrors: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: Document) {
    addFormats(this.ajv);
    this.ajv.addSchema({ components: document.components ?? {} }, 'openapi');
  }

  /** Installs the check on the server (an `onSend` hook, before the server listens). */
  install(app: FastifyInstance): void {
    app.addHook('onSend', async (request, reply, payload) => {
      const route = request.routeOptions.url;
      if (route === undefined || request.method === 'OPTIONS' || !route.startsWith('/api/')) return payload;
      const problem = this.check(request.method, route.slice('/api'.length), reply.statusCode, String(reply.getHeader('content-type') ?? ''), payload);
      if (problem) this.violations.push(`${request.method} ${request.url} → ${reply.statusCode}: ${problem}`);
      return payload;
    });
  }

  /** Why the answer does not match the description, or null when it does (or the route is not described). */
  check(method: string, route: string, status: number, contentType: string, payload: unknown): string | null {
    const path = route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation = this.document.paths[path]?.[method.toLowerCase()];
    if (!operation) return null;
    const declared = operation.responses?.[String(status)] ?? operation.responses?.default;
    if (!declared) return `status ${status} is not declared`;
    if (!contentType.startsWith('application/json')) return null;
    const schema = declared.content?.['application/json']?.schema;
    if (!schema) return 'a JSON body, and no schema declared for it';
    const key = `${path} ${method} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      const text = JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/');
      validate = this.ajv.compile(JSON.parse(text) as object);
      this.compiled.set(key, validate);
    }
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
    if (text === undefined) return null;
    if (validate(JSON.parse(text))) return null;
    return this.ajv.errorsText(validate.errors);
  }
}
