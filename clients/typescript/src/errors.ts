/**
 * Typed errors. Branch on `code` (stable), never on `message` (for humans). Quote `correlationId`
 * when contacting support: it names the request in the service's logs. No error ever carries the
 * client secret or an access token.
 */

/** The error codes of the partner document (its `Error` schema); new codes may be added. */
export type KnownErrorCode =
  | 'bad_request'
  | 'validation_failed'
  | 'malformed_json'
  | 'idempotency_key_required'
  | 'idempotency_key_invalid'
  | 'idempotency_key_reused'
  | 'if_match_invalid'
  | 'invalid_date_range'
  | 'unauthorized'
  | 'insufficient_scope'
  | 'not_found'
  | 'route_not_found'
  | 'method_not_allowed'
  | 'idempotency_key_in_use'
  | 'invalid_state'
  | 'duplicate_co_tenant'
  | 'co_tenant_limit_reached'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'precondition_required'
  | 'rate_limited'
  | 'internal_error'
  | 'service_unavailable';
// `string & {}` keeps editor completion for the known codes while accepting new ones.
export type ErrorCode = KnownErrorCode | (string & {});

/** Base class of every error this client throws. */
export class PartnerClientError extends Error {
  override name = 'PartnerClientError';
}

/** The API answered with an error status (after any retries the policy allowed). */
export class PartnerApiError extends PartnerClientError {
  override name = 'PartnerApiError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: string[];
  readonly correlationId: string | undefined;
  /** Seconds from `Retry-After` (delay-seconds, or until its HTTP-date), when the answer carried one. */
  readonly retryAfterSeconds: number | undefined;
  /** The current `ETag` sent with a 412, so that the caller can re-read and re-apply. */
  readonly etag: string | undefined;
  /** How many attempts were made before giving up (1 when the answer is not retryable). */
  readonly attempts: number;

  constructor(init: {
    status: number;
    code: ErrorCode;
    message: string;
    details?: string[];
    correlationId?: string;
    retryAfterSeconds?: number;
    etag?: string;
    attempts: number;
  }) {
    super(`${init.status} ${init.code}: ${init.message}${init.correlationId ? ` (correlation id ${init.correlationId})` : ''}`);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.correlationId = init.correlationId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.etag = init.etag;
    this.attempts = init.attempts;
  }
}

/** No HTTP answer arrived (connection refused or reset, timeout), after every allowed attempt. */
export class PartnerNetworkError extends PartnerClientError {
  override name = 'PartnerNetworkError';
  readonly attempts: number;
  readonly correlationId: string | undefined;

  constructor(message: string, attempts: number, correlationId: string | undefined, cause: unknown) {
    super(`${message} (after ${attempts} attempt${attempts === 1 ? '' : 's'})`, { cause });
    this.attempts = attempts;
    this.correlationId = correlationId;
  }
}

/** The token endpoint refused the credential or the scopes (RFC 6749 §5.2 `error`). */
export class PartnerAuthError extends PartnerClientError {
  override name = 'PartnerAuthError';
  readonly status: number;
  /** `invalid_client`, `invalid_scope`, `unauthorized_client`, ... */
  readonly error: string;

  constructor(status: number, error: string, description: string | undefined) {
    super(`token request refused: ${status} ${error}${description ? `: ${description}` : ''}`);
    this.status = status;
    this.error = error;
  }
}

/** A write that needs If-Match was called before this client saw the guarantee's ETag. */
export class UnknownEtagError extends PartnerClientError {
  override name = 'UnknownEtagError';
  constructor(id: number) {
    super(`no ETag known for rental insurance ${id}: read it first (get) or pass ifMatch`);
  }
}
