/**
 * Domain errors: `Error` subclasses with a stable `code` from the API's error table (spec §7).
 * They become HTTP responses only at the edge, in one exception filter that maps the code to its
 * status and writes `{"error": {"code", "message"}}`.
 */

/** Status for every code the service emits (spec §7). */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_address: 400,
  invalid_signer: 400,
  invalid_content: 400,
  invalid_signature: 400,
  invalid_origin: 400,
  invalid_domain: 400,
  invalid_url: 400,
  invalid_effective_date: 400,
  invalid_cursor: 400,
  invalid_idempotency_key: 400,
  missing_binding: 400,
  passkey_required: 400,
  not_a_publication: 400,
  unsupported_signer: 400,
  unauthorized: 401,
  credits_exhausted: 402,
  sponsorship_unavailable: 402,
  forbidden: 403,
  reauthentication_required: 403,
  not_found: 404,
  no_published_version: 409,
  chain_state: 409,
  challenge_expired: 409,
  challenge_not_open: 409,
  draft_published: 409,
  draft_closed: 409,
  domain_expiring: 409,
  domain_already_verified: 409,
  transaction_failed: 409,
  version_superseded: 409,
  already_accepted: 409,
  pending_batch: 409,
  verification_failed: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  too_many_open_challenges: 429,
  internal_error: 500,
  relay_failed: 502,
  relay_inconsistent: 502,
  nonce_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** An error the API reports to its caller with a stable code. */
export class DomainError extends Error {
  override readonly name: string = 'DomainError';
  /**
   * @param retryAfterSeconds for a 429: when the caller may try again, sent as the `retry-after` header (spec §7 rule 2).
   */
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const invalidRequest = (message: string) => new DomainError('invalid_request', message);
export const notFound = (what: string) => new DomainError('not_found', `${what} not found`);
