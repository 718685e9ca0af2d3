/**
 * Cross-origin rules of the API (spec §5: public endpoints are callable from any website; the dashboard's cookies
 * travel only with requests from the app's own origin). The CORS plugin is configured from these, and the answers
 * written before any route runs (`frameworkErrors`) carry the same headers, so a page can read every error.
 */

/**
 * Request headers a page may send (`solana-client` is what @solana/web3.js sends with every JSON-RPC call;
 * `if-none-match` revalidates a document's content or parsed blocks by their `etag`, RFC 9110 §13.1.2).
 */
export const CORS_ALLOWED_HEADERS = ['content-type', 'authorization', 'x-csrf-token', 'x-client-binding', 'x-proof-token', 'idempotency-key', 'x-request-id', 'solana-client', 'if-none-match'];

/**
 * Answer headers a page may read beyond the CORS-safelisted ones (Fetch standard: `cache-control`,
 * `content-type`, `content-length`… are readable anyway): the request id, the rate headers (spec §8), a batch's
 * anchoring transaction, the replay marker, and the content routes' `etag` and `x-content-sha256`.
 */
export const CORS_EXPOSED_HEADERS = ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'x-batch-transaction', 'idempotent-replayed', 'etag', 'x-content-sha256'];

/** The allowed origin for a request from `origin`: the app's own origin by name (with credentials), any other `*`. */
export function allowedOrigin(origin: string | undefined, appOrigin: string): string {
  return origin === appOrigin ? appOrigin : '*';
}

/** The CORS headers of a simple (non-preflight) answer to a request from `origin`. */
export function corsAnswerHeaders(origin: string | undefined, appOrigin: string): Record<string, string> {
  const headers: Record<string, string> = {
    'access-control-allow-origin': allowedOrigin(origin, appOrigin),
    'access-control-expose-headers': CORS_EXPOSED_HEADERS.join(', '),
    vary: 'Origin',
  };
  if (origin === appOrigin) headers['access-control-allow-credentials'] = 'true';
  return headers;
}
