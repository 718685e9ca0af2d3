import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

/** The subset of an OpenAPI 3.0 document the response check reads. */
interface Document {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: object }>; headers?: Record<string, HeaderLike> }> }>>;
  components?: { schemas?: Record<string, object>; headers?: Record<string, HeaderLike> };
}

/** A response header object, or a reference to one under `components.headers`. */
interface HeaderLike {
  $ref?: string;
  required?: boolean;
}

/**
 * Checks every answer of a service against the response its OpenAPI description declares for the route and status
 * (docs/api.md "OpenAPI"): an undeclared status, a JSON body without a declared schema, a body the schema refuses, or
 * a missing header the response declares `required` is a violation. Answers of routes outside the description (404 of unknown paths, `/rpc`, the description itself)
 * and preflights are not checked; the receipt pages, outside `/api`, are (their paths name their own server).
 */
export class ResponseChecker {
  readonly violations: string[] = [];
  private readonly ajv = new Ajv({ strict: false, allErrors: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: Document) {
    addFormats(this.ajv);
    this.ajv.addSchema({ components: jsonSchemaOf(document.components ?? {}) }, 'openapi');
  }

  /** Installs the check on the server (an `onSend` hook, before the server listens). */
  install(app: FastifyInstance): void {
    app.addHook('onSend', async (request, reply, payload) => {
      const route = request.routeOptions.url;
      if (route === undefined || request.method === 'OPTIONS') return payload;
      // Paths under /api are described relative to the /api server; the others (receipt pages) name their own server.
      const path = route.startsWith('/api/') ? route.slice('/api'.length) : this.ownServerPath(route);
      if (path === null) return payload;
      const problem = this.check(request.method, path, reply.statusCode, String(reply.getHeader('content-type') ?? ''), payload);
      if (problem) this.violations.push(`${request.method} ${request.url} → ${reply.statusCode}: ${problem}`);
      for (const header of this.requiredHeaders(request.method, path, reply.statusCode)) {
        if (!reply.hasHeader(header)) this.violations.push(`${request.method} ${request.url} → ${reply.statusCode}: required header ${header} missing`);
      }
      return payload;
    });
  }

  /** A route outside /api that the description lists with a server of its own, else null. */
  private ownServerPath(route: string): string | null {
    const item = this.document.paths[route.replace(/:([A-Za-z0-9_]+)/g, '{$1}')];
    return item && 'servers' in item ? route : null;
  }

  /** The headers the description declares `required` on the route's answer of `status`. */
  requiredHeaders(method: string, route: string, status: number): string[] {
    const operation = this.document.paths[route.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.[method.toLowerCase()];
    const headers = (operation?.responses?.[String(status)] ?? operation?.responses?.default)?.headers ?? {};
    const resolve = (h: HeaderLike): HeaderLike | undefined => (h.$ref ? this.document.components?.headers?.[h.$ref.split('/').pop()!] : h);
    return Object.entries(headers)
      .filter(([, h]) => resolve(h)?.required === true)
      .map(([name]) => name);
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
      const text = JSON.stringify(jsonSchemaOf(schema)).replace(/"#\/components\//g, '"openapi#/components/');
      validate = this.ajv.compile(JSON.parse(text) as object);
      this.compiled.set(key, validate);
    }
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
    if (text === undefined) return null;
    if (validate(JSON.parse(text))) return null;
    return this.ajv.errorsText(validate.errors);
  }
}

/**
 * An OpenAPI 3.0 schema as ajv reads it, unchanged but for a deep copy: ajv knows `nullable` beside a `type`, and the
 * document writes a nullable reference as `anyOf` with a schema admitting null alone, so no rewriting is needed (a
 * third-party validator reads the document the same way).
 */
function jsonSchemaOf(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(jsonSchemaOf);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = key === 'example' || key === 'enum' ? value : jsonSchemaOf(value);
  return out;
}
