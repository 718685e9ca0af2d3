import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** An error answer of the API: its status and `{error: {code, message}}` body. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(readonly status: number, readonly code: string, message: string) {
    super(`${status} ${code}: ${message}`);
  }
}

/**
 * No HTTP answer from the service at all (connection refused, unknown host, reset …): `--json` prints its code
 * `service_unreachable`. `reason` is the network error's code (`ECONNREFUSED`, `ENOTFOUND` …) or message.
 */
export class ServiceUnreachableError extends Error {
  override readonly name = 'ServiceUnreachableError';
  readonly code = 'service_unreachable';
  constructor(readonly base: string, readonly reason: string, options?: ErrorOptions) {
    super(`cannot reach the service at ${base} (${reason}): is it running, and is --api right?`, options);
  }
}

/** A dashboard session kept between CLI runs (cookie values are secrets: the file is mode 0600). */
export interface StoredSession {
  api: string;
  address: string;
  session: string;
  csrf: string;
  expiresAt: string;
}

/** `http://host:3000`, `http://host:3000/` or `http://host:3000/api` → `http://host:3000`. */
export function normalizeBaseUrl(api: string): string {
  return api.replace(/\/+$/, '').replace(/\/api$/, '');
}

/** Minimal client of the service's HTTP API (`<base>/api/v1/...`) on Node's fetch. */
export class ApiClient {
  readonly base: string;
  private session: StoredSession | null = null;

  constructor(api: string, private readonly origin?: string) {
    this.base = normalizeBaseUrl(api);
  }

  get appOrigin(): string {
    return new URL(this.base).origin;
  }

  /**
   * Sends the session's cookie and CSRF token with the requests that follow: only to the service that issued it.
   * @throws Error when the session was issued by another service than this client's (its cookie is a bearer secret).
   */
  useSession(session: StoredSession | null): this {
    if (session && normalizeBaseUrl(session.api) !== this.base) {
      throw new Error(`the dashboard session is for ${normalizeBaseUrl(session.api)}, not ${this.base}: sign in there with "svc login --api ${this.base}" (and --session <file> to keep both)`);
    }
    this.session = session;
    return this;
  }

  /**
   * Sends a request; returns the parsed JSON body.
   * @throws ApiError for any non-2xx answer.
   */
  async request<T = Record<string, unknown>>(
    method: string,
    route: string,
    body?: unknown,
    options: { headers?: Record<string, string>; origin?: string } = {},
  ): Promise<T> {
    const { response, text } = await this.raw(method, route, body, options);
    const json = text.length > 0 ? JSON.parse(text) : {};
    if (!response.ok) {
      const err = (json as { error?: { code?: string; message?: string } }).error;
      throw new ApiError(response.status, err?.code ?? 'unknown', err?.message ?? text);
    }
    return json as T;
  }

  /**
   * Sends a request and returns the raw response and text.
   * @throws Error naming the base URL when the service cannot be reached.
   */
  async raw(method: string, route: string, body?: unknown, options: { headers?: Record<string, string>; origin?: string } = {}) {
    const headers: Record<string, string> = { accept: 'application/json', ...(options.headers ?? {}) };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const origin = options.origin ?? this.origin;
    if (origin) headers.origin = origin;
    if (this.session) {
      headers.cookie = `svc_session=${this.session.session}; svc_csrf=${this.session.csrf}`;
      if (method !== 'GET') {
        headers['x-csrf-token'] = this.session.csrf;
        headers.origin = this.appOrigin;
      }
    }
    let response: Response;
    try {
      response = await fetch(`${this.base}/api${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (err) {
      // fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND …) is its cause.
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new ServiceUnreachableError(this.base, cause?.code ?? cause?.message ?? (err as Error).message, { cause: err });
    }
    const text = await response.text();
    return { response, text };
  }
}

/** Reads the `name=value` pairs of `set-cookie` headers. */
export function cookiesOf(response: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';', 1);
    const eq = pair.indexOf('=');
    if (eq > 0) out[pair.slice(0, eq).trim()] = decodeURIComponent(pair.slice(eq + 1).trim());
  }
  return out;
}

/** Writes the session file, owner-only (mode 0600) also when it existed with a looser mode. */
export async function saveSession(file: string, session: StoredSession): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await fs.writeFile(file, JSON.stringify(session, null, 2), { mode: 0o600 });
  await fs.chmod(file, 0o600);
}

export async function loadSession(file: string): Promise<StoredSession> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as StoredSession;
  } catch {
    throw new Error(`no dashboard session in ${file}: run "svc login" first`);
  }
}
