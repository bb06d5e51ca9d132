/**
 * When a request may be sent again, and how long to wait first. Pure functions: the transport
 * (transport.ts) applies them. The rules follow the partner document:
 *   - no answer (connection refused or reset, timeout): retry when the request is idempotent, that
 *     is a safe method, or a write carrying an Idempotency-Key: the same key on the retry gets the
 *     stored answer (Idempotent-Replay: true), a first execution, or 409 idempotency_key_in_use;
 *   - 409 idempotency_key_in_use: the first request with that key is still running: retry;
 *   - 429 and 503: nothing was applied; retry, waiting at least Retry-After;
 *   - other 5xx: nothing was applied, but retry only an idempotent request;
 *   - any other 4xx: never (the request itself is wrong, or the state refuses it).
 */

export interface RetryOptions {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** First backoff step; each retry doubles it (with full jitter), up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error is thrown instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

export type AttemptOutcome = { kind: 'network-error' } | { kind: 'response'; status: number; code: string | undefined; retryAfter: string | null };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Idempotent by method, or made idempotent by its Idempotency-Key. */
export function isIdempotent(method: string, hasIdempotencyKey: boolean): boolean {
  return SAFE_METHODS.has(method.toUpperCase()) || hasIdempotencyKey;
}

export function isRetryable(outcome: AttemptOutcome, idempotent: boolean): boolean {
  if (outcome.kind === 'network-error') return idempotent;
  const { status, code } = outcome;
  if (status === 409) return code === 'idempotency_key_in_use';
  if (status === 429 || status === 503) return true;
  if (status >= 500) return idempotent;
  return false;
}

/** Retry-After as milliseconds: delay-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait before retry number `retry` (1 for the first retry), or undefined when the policy gives
 * up (attempts exhausted, or Retry-After beyond maxRetryAfterMs). Full jitter spreads the retries
 * of many callers; Retry-After is a floor.
 */
export function delayBeforeRetry(retry: number, retryAfterMs: number | undefined, options: RetryOptions, random: () => number): number | undefined {
  if (retry >= options.maxAttempts) return undefined;
  if (retryAfterMs !== undefined && retryAfterMs > options.maxRetryAfterMs) return undefined;
  const backoff = random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  return Math.max(retryAfterMs ?? 0, backoff);
}
