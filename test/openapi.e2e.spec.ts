import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { ResponseChecker } from './support/openapi-responses';
import { startTestService, type TestService } from './support/test-service';

/**
 * Validates a document with a third-party OpenAPI validator (`@apidevtools/swagger-parser`) in a child Node process
 * (the validator's dependencies are ES modules, which Jest's module loader does not run).
 * @returns null when valid, the validator's message otherwise.
 */
function validateWithSwaggerParser(document: object): string | null {
  const script = `
    const parser = require('@apidevtools/swagger-parser');
    let text = '';
    process.stdin.on('data', (c) => (text += c)).on('end', () =>
      parser.validate(JSON.parse(text)).then(() => process.exit(0), (err) => { process.stdout.write(err.message); process.exit(1); }));`;
  const child = spawnSync(process.execPath, ['-e', script], { cwd: path.join(__dirname, '..'), input: JSON.stringify(document), encoding: 'utf8' });
  return child.status === 0 ? null : child.stdout || child.stderr;
}

/**
 * The served OpenAPI description (spec §9: API version 1.0.0) is a valid OpenAPI 3 document, declares the error
 * envelope and `Idempotency-Key` where they apply, and the response check of the e2e suites
 * (`startTestService({checkResponses: true})`) reports answers that break it (docs/api.md "OpenAPI").
 */
/** The operations of a path item (its other keys, such as `servers`, left out). */
function operationsOf<T>(item: Record<string, T>): [string, T][] {
  return Object.entries(item).filter(([method]) => ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(method));
}

/** A schema as far as the coverage check reads it. */
interface DeclaredSchema {
  $ref?: string;
  allOf?: DeclaredSchema[];
}

/** A response of the description, as far as the coverage check reads it. */
interface DeclaredResponse {
  content?: Record<string, { schema?: DeclaredSchema }>;
}

/** The schema a response refers to: its `$ref`, or that of the first `allOf` member (the envelope narrowed to codes). */
function refOf(schema: DeclaredSchema | undefined): string | undefined {
  return schema?.$ref ?? schema?.allOf?.[0]?.$ref;
}

describe('OpenAPI description', () => {
  let service: TestService;
  let document: {
    openapi: string;
    info: { version: string };
    components?: { schemas?: Record<string, unknown> };
    paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: unknown; security?: unknown[]; responses: Record<string, unknown> }>>;
  };

  beforeAll(async () => {
    service = await startTestService({ checkResponses: true, env: { RATE_LIMIT_GENERAL_PER_MINUTE: '20' } });
    document = (await (await fetch(`${service.baseUrl}/api/v1/openapi.json`)).json()) as typeof document;
  });
  afterAll(() => service.destroy());

  it('is valid OpenAPI 3 for a third-party validator', () => {
    expect(validateWithSwaggerParser(document)).toBeNull();
  });

  it('writes nullable references so that every OpenAPI 3.0 reading admits null (never `nullable` beside `allOf` or `$ref`)', () => {
    const misread: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const schema = node as Record<string, unknown>;
      if (schema['nullable'] === true && ('allOf' in schema || '$ref' in schema)) misread.push(where);
      for (const [key, value] of Object.entries(schema)) walk(value, `${where}/${key}`);
    };
    walk(document, '#');
    expect(misread).toEqual([]);
    // The audit log's verification has such a field: a valid chain answers `firstBreak: null`.
    expect(document.components?.schemas?.['AuditVerifyResponse']).toMatchObject({
      properties: { firstBreak: { anyOf: [{ $ref: '#/components/schemas/AuditChainBreakResponse' }, { nullable: true, enum: [null] }] } },
    });
  });

  it('declares for every operation a success body (a JSON schema or another media type) under 200, the one success status of spec §4, and its errors as the envelope', () => {
    const envelope = '#/components/schemas/ErrorEnvelope';
    const gaps: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of operationsOf(operations)) {
        const name = `${method.toUpperCase()} ${path}`;
        const responses = Object.entries(operation.responses) as [string, DeclaredResponse][];
        const success = responses.filter(([status]) => /^2\d\d$/.test(status));
        if (success.length === 0) gaps.push(`${name}: no 2xx answer`);
        for (const [status, response] of success) {
          const media = Object.entries(response.content ?? {});
          if (status !== '200') gaps.push(`${name}: success ${status}, where spec §4 lists 200 for every success`);
          if (media.length === 0) gaps.push(`${name} ${status}: no body declared`);
          for (const [type, { schema }] of media) if (type.startsWith('application/json') && !schema) gaps.push(`${name} ${status}: JSON without a schema`);
        }
        // 429 and 500 (the envelope) are on every route; a route that takes input or a credential declares its own
        // refusals too (the envelope, or the HTML error pages of the receipt page).
        const errors = responses.filter(([status]) => /^[45]\d\d$/.test(status));
        const enveloped = errors.filter(([, response]) => refOf(response.content?.['application/json']?.schema) === envelope).map(([status]) => status);
        if (!enveloped.includes('429')) gaps.push(`${name}: 429 not the error envelope`);
        const takesInput = (operation.parameters ?? []).length > 0 || operation.requestBody !== undefined || (operation.security ?? []).length > 0;
        if (takesInput && !errors.some(([status]) => status !== '429' && status !== '500')) gaps.push(`${name}: no error answer of its own`);
        for (const [status, response] of errors) {
          const media = Object.entries(response.content ?? {});
          if (media.length === 0) gaps.push(`${name} ${status}: no body declared`);
          for (const [type, { schema }] of media) if (type.startsWith('application/json') && !schema) gaps.push(`${name} ${status}: JSON without a schema`);
        }
      }
    }
    expect(gaps).toEqual([]);
  });

  it('carries API version 1.0.0, the error envelope on shared answers, and Idempotency-Key on authenticated writes', () => {
    expect(document.openapi).toMatch(/^3\./);
    expect(document.info.version).toBe('1.0.0');
    // The document describes itself, so a client generated from it can fetch it.
    expect(document.paths['/v1/openapi.json']?.get.responses['200']).toBeDefined();
    const patch = document.paths['/v1/drafts/{draftId}'].patch;
    expect(patch.parameters?.some((p) => p.name === 'Idempotency-Key' && p.in === 'header')).toBe(true);
    expect(patch.responses['422']).toBeDefined();
    expect(document.paths['/v1/public/acceptances/{acceptanceId}'].get.parameters?.some((p) => p.name === 'Idempotency-Key')).toBe(false);
    for (const operations of Object.values(document.paths)) {
      for (const [, operation] of operationsOf(operations)) expect(operation.responses['429']).toBeDefined();
    }
  });

  it('declares what every answer carries and what the edge enforces: rate headers, path formats, closed request bodies, CSRF on cookie writes', () => {
    type Operation = { parameters?: { name: string; in: string; required?: boolean; schema?: { type?: string; pattern?: string; minimum?: number; maximum?: number } }[]; requestBody?: { required?: boolean; content?: Record<string, { schema?: { $ref?: string } }> }; security?: Record<string, unknown>[]; responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema?: unknown }> }> };
    const gaps: string[] = [];
    const schemas = (document.components?.schemas ?? {}) as Record<string, { additionalProperties?: unknown; properties?: unknown }>;
    // A header object, or a reference to one in components.headers (OpenAPI 3 "Header Object": `required`).
    const componentHeaders = ((document.components as { headers?: Record<string, { required?: boolean }> } | undefined)?.headers ?? {});
    const declaredRequired = (header: unknown): boolean => {
      const ref = (header as { $ref?: string } | undefined)?.$ref;
      const resolved = ref ? componentHeaders[ref.split('/').pop()!] : (header as { required?: boolean } | undefined);
      return resolved?.required === true;
    };
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of operationsOf(item as Record<string, Operation>)) {
        const name = `${method.toUpperCase()} ${path}`;
        for (const [status, response] of Object.entries(operation.responses)) {
          const headers = Object.keys(response.headers ?? {});
          const expected = [...(status === '431' ? [] : ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']), ...(status === '429' ? ['retry-after'] : [])];
          for (const header of expected) {
            if (!headers.includes(header)) gaps.push(`${name} ${status}: header ${header} not declared`);
            else if (!declaredRequired(response.headers?.[header])) gaps.push(`${name} ${status}: header ${header} not declared required`);
          }
        }
        for (const status of ['414', '431']) if (!operation.responses[status]) gaps.push(`${name}: ${status} not declared`);
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in === 'path' && !parameter.schema?.pattern) gaps.push(`${name}: path parameter ${parameter.name} without a format`);
        }
        const bodyRef = operation.requestBody?.content?.['application/json']?.schema?.$ref;
        if (bodyRef && schemas[bodyRef.split('/').pop()!]?.additionalProperties !== false) gaps.push(`${name}: request body open to other keys`);
        if (['post', 'patch', 'put', 'delete'].includes(method)) {
          for (const status of ['400', '413', '415']) if (!operation.responses[status]) gaps.push(`${name}: ${status} not declared`);
          const cookie = (operation.security ?? []).some((requirement) => 'cookie' in requirement);
          if (cookie && !operation.parameters?.some((p) => p.in === 'header' && p.name === 'x-csrf-token')) gaps.push(`${name}: x-csrf-token not declared`);
        }
      }
    }
    expect(gaps).toEqual([]);
    // Headers particular to an operation, which the service sends and a client validating answers looks up.
    const declared = (path: string, method: string) => Object.keys((document.paths[path] as Record<string, Operation>)[method]!.responses['200']!.headers ?? {});
    expect(declared('/v1/auth/verify', 'post')).toContain('set-cookie');
    expect(declared('/v1/auth/logout', 'post')).toContain('set-cookie');
    for (const path of ['/v1/public/content/{hash}', '/v1/drafts/{draftId}/content']) expect(declared(path, 'get')).toEqual(expect.arrayContaining(['etag', 'x-content-sha256', 'cache-control']));
    expect(declared('/v1/public/batches/{root}', 'get')).toContain('x-batch-transaction');
    const sessions = (document.paths['/v1/acceptance-sessions'] as Record<string, Operation>).post!;
    // Every field of the session request is optional, so the body is too.
    expect(sessions.requestBody?.required).toBe(false);
    const search = (document.paths['/v1/acceptances'] as Record<string, Operation>).get!;
    expect(search.parameters?.find((p) => p.name === 'limit')?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
    const bearer = (document.components as { securitySchemes?: Record<string, { bearerFormat?: string }> }).securitySchemes?.bearer;
    expect(bearer?.bearerFormat).toMatch(/svc_test_/);
  });

  it('checks answers against their declared responses, and reports one that breaks them', async () => {
    expect((await fetch(`${service.baseUrl}/api/health`)).status).toBe(200);
    expect(service.responseViolations).toEqual([]);
    const checker = new ResponseChecker(document as never);
    expect(checker.check('GET', '/health', 200, 'application/json', '{"status":"ok"}')).toBeNull();
    expect(checker.check('GET', '/health', 200, 'application/json', '{"status":"down"}')).toMatch(/allowed values/);
    expect(checker.check('GET', '/health', 429, 'application/json', '{"error":{"code":"rate_limited"}}')).toMatch(/message/);
    expect(checker.check('GET', '/health', 418, 'application/json', '{}')).toBe('status 418 is not declared');
    // Headers every answer carries are required ones; a 429 adds retry-after.
    expect(checker.requiredHeaders('GET', '/health', 200).sort()).toEqual(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-request-id']);
    expect(checker.requiredHeaders('GET', '/health', 429)).toContain('retry-after');
    // An error's code must be one the route declares for that status.
    const notFound = (code: string) => JSON.stringify({ error: { code, message: 'version not found' } });
    expect(checker.check('GET', '/v1/public/versions/:address', 404, 'application/json', notFound('not_found'))).toBeNull();
    expect(checker.check('GET', '/v1/public/versions/:address', 404, 'application/json', notFound('chain_state'))).toMatch(/allowed values/);
  });
});
