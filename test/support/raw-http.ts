import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { RpcLedger } from '@svc/ledger';
import { ApiClient, type StoredSession } from '../../apps/cli/src/api-client';
import { createDocumentOnLedger, createOrganizationOnLedger, signIn, syncDocument, syncOrganization } from '../../apps/cli/src/operations';
import type { TestService } from './test-service';

/** One answer of the service, read whole. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
}

/** Options of one raw request: the body is sent exactly as given. */
export interface RawRequest {
  body?: string;
  /** Content type of the body; default `application/json` when a body is given; null sends none. */
  contentType?: string | null;
  headers?: Record<string, string>;
  /** Send the dashboard session's cookies, its CSRF header and the app's origin. */
  session?: StoredSession;
}

/** Sends a request to `<base>/api<path>` (or `<base><path>` when `path` starts with `//`) without reshaping the body. */
export async function send(baseUrl: string, method: string, path: string, request: RawRequest = {}): Promise<RawAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', ...(request.headers ?? {}) };
  if (request.body !== undefined && request.contentType !== null) headers['content-type'] = request.contentType ?? 'application/json';
  if (request.session) {
    headers.cookie = `svc_session=${request.session.session}; svc_csrf=${request.session.csrf}`;
    headers['x-csrf-token'] = request.session.csrf;
    headers.origin = new URL(baseUrl).origin;
  }
  const url = path.startsWith('//') ? `${baseUrl}${path.slice(1)}` : `${baseUrl}/api${path}`;
  const response = await fetch(url, { method, headers, body: request.body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** The error code of an answer whose body is exactly the spec's envelope `{"error":{"code","message"}}`; otherwise undefined. */
export function envelopeCode(answer: RawAnswer): string | undefined {
  const body = answer.json;
  if (typeof body !== 'object' || body === null || Object.keys(body).length !== 1 || !('error' in body)) return undefined;
  const error: unknown = body.error;
  if (typeof error !== 'object' || error === null || Object.keys(error).length !== 2) return undefined;
  if (!('code' in error) || !('message' in error) || typeof error.code !== 'string' || typeof error.message !== 'string') return undefined;
  return error.code;
}

/** `<status> <code>` of an answer, `<status> (no envelope)` when its body is not the envelope, or `<status> ok` for 2xx. */
export function outcome(answer: RawAnswer): string {
  if (answer.status < 400) return `${answer.status} ok`;
  return `${answer.status} ${envelopeCode(answer) ?? '(no envelope)'}`;
}

/** An organization and a document created on the ledger and synced by a signed-in dashboard session. */
export interface DashboardFixture {
  /** The organization's authority, which signed the session in. */
  owner: KeyPairSigner;
  session: StoredSession;
  organization: { id: string; address: string };
  document: { id: string; address: string };
}

/** Creates an organization and a document on the service's embedded ledger and syncs them from a new dashboard session. */
export async function dashboardFixture(service: Pick<TestService, 'baseUrl' | 'rpcUrl'>, slug = 'terms'): Promise<DashboardFixture> {
  const ledger = new RpcLedger({ url: service.rpcUrl });
  const owner = await generateKeyPairSigner();
  await ledger.requestAirdrop(owner.address, 1_000_000_000n);
  const org = await createOrganizationOnLedger(ledger, owner, 'Example Shop Inc.', null);
  const doc = await createDocumentOnLedger(ledger, owner, org.address, slug, 'Terms of Service');
  const session = await signIn(new ApiClient(service.baseUrl), owner);
  const dashboard = new ApiClient(service.baseUrl).useSession(session);
  const organization = await syncOrganization(dashboard, org.address);
  const document = await syncDocument(dashboard, organization.id, doc.address);
  return { owner, session, organization: { id: organization.id, address: organization.address }, document: { id: document.id, address: document.address } };
}
