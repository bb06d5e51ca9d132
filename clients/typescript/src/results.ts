/**
 * What every call returns (the body plus the headers that matter to a partner), and the typed
 * error every non-2xx answer becomes.
 */
import type { components } from './generated/partner-api.js';
import { PartnerApiError } from './errors.js';
import { parseRetryAfter } from './retry-policy.js';
import { attemptsOf } from './transport.js';

export interface ApiResult<T> {
  status: number;
  data: T;
  /** `W/"<version>"` of the guarantee: send it in If-Match (the client remembers it for you). */
  etag: string | undefined;
  /** Writes: true when this is the stored answer of an earlier request with the same key. */
  replayed: boolean | undefined;
  /** Writes: the `Service-Effects` tokens (`review_started`, ...); empty for `none`. */
  effects: string[];
  correlationId: string | undefined;
  /** How many attempts it took (retries included). */
  attempts: number;
}

export interface CallOptions {
  /** Sent as X-Correlation-Id (same value on every retry); generated when absent. */
  correlationId?: string;
  signal?: AbortSignal;
}

export interface WriteOptions extends CallOptions {
  /**
   * The write's Idempotency-Key. A fresh one is generated per call; pass your own (derived from
   * your own record, stored before sending) to retry the same logical write after a restart.
   */
  idempotencyKey?: string;
}

export interface PreconditionedWriteOptions extends WriteOptions {
  /** The ETag the change is based on; default: the latest ETag this client saw for the guarantee. */
  ifMatch?: string;
}

type ErrorBody = components['schemas']['Error'];

interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export function resultOf<T>(outcome: Outcome<T>): ApiResult<T> {
  const { response } = outcome;
  if (!response.ok) throw apiErrorOf(response, outcome.error);
  const replay = response.headers.get('idempotent-replay');
  return {
    status: response.status,
    data: outcome.data as T,
    etag: response.headers.get('etag') ?? undefined,
    replayed: replay === null ? undefined : replay.trim() === 'true' || replay.trim() === '?1',
    effects: effectsOf(response.headers.get('service-effects')),
    correlationId: response.headers.get('x-correlation-id') ?? undefined,
    attempts: attemptsOf(response),
  };
}

export function apiErrorOf(response: Response, body: unknown): PartnerApiError {
  const error = (typeof body === 'object' && body !== null ? body : {}) as Partial<ErrorBody>;
  // Seconds, or an HTTP-date (which proxies and other services in the path may send).
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
  return new PartnerApiError({
    status: response.status,
    code: typeof error.code === 'string' ? error.code : `http_${response.status}`,
    message: typeof error.message === 'string' ? error.message : response.statusText || 'error',
    details: Array.isArray(error.details) ? error.details.filter((detail): detail is string => typeof detail === 'string') : [],
    correlationId: error.correlationId ?? response.headers.get('x-correlation-id') ?? undefined,
    retryAfterSeconds: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
    etag: response.headers.get('etag') ?? undefined,
    attempts: attemptsOf(response),
  });
}

/** `Service-Effects: review_started, contract_invalidated` (a structured-field list) or `none`. */
function effectsOf(header: string | null): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((token) => token.trim().split(';')[0]!.trim())
    .filter((token) => token !== '' && token !== 'none');
}

/** The headers every call sends; writes add their Idempotency-Key. */
export function callHeaders(options: CallOptions): { 'X-Correlation-Id': string } {
  return { 'X-Correlation-Id': options.correlationId ?? globalThis.crypto.randomUUID() };
}

export function writeHeaders(options: WriteOptions): { 'X-Correlation-Id': string; 'Idempotency-Key': string } {
  return { ...callHeaders(options), 'Idempotency-Key': options.idempotencyKey ?? globalThis.crypto.randomUUID() };
}
