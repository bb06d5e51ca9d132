/**
 * The fetch that every request of the client goes through: it adds the Bearer token, bounds each
 * attempt by a timeout and retries as retry-policy.ts allows. A retry sends the SAME request again:
 * same body, same Idempotency-Key, same X-Correlation-Id (both are set once per logical call by
 * the caller), so a write whose answer was lost is replayed, never executed twice.
 */
import { deprecationOf, type DeprecationHandler } from './deprecation.js';
import { PartnerNetworkError } from './errors.js';
import { delayBeforeRetry, isIdempotent, isRetryable, parseRetryAfter, type AttemptOutcome, type RetryOptions } from './retry-policy.js';

export type FetchLike = (request: Request) => Promise<Response>;

export interface TransportOptions {
  fetch: FetchLike;
  retry: RetryOptions;
  /** Time limit of each attempt. */
  timeoutMs: number;
  /** The access token to send; absent for the token request itself. */
  token?: () => Promise<string>;
  /** Called when the API answers 401 to a token: the token provider drops it. */
  onUnauthorized?: (token: string) => void;
  /** Told of every final answer that carries Deprecation or Sunset (not of answers that get retried). */
  onDeprecation?: DeprecationHandler;
  /** Overrides isIdempotent (the token request may always be repeated: it only mints a token). */
  retrySafe?: (request: Request) => boolean;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
}

const attemptsByResponse = new WeakMap<Response, number>();

/** How many attempts produced this response (1 when it was the first answer). */
export function attemptsOf(response: Response): number {
  return attemptsByResponse.get(response) ?? 1;
}

export function createTransport(options: TransportOptions): FetchLike {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  return async (request) => {
    const retrySafe = options.retrySafe?.(request) ?? isIdempotent(request.method, request.headers.has('idempotency-key'));
    const correlationId = request.headers.get('x-correlation-id') ?? undefined;
    for (let attempt = 1; ; attempt += 1) {
      // Each attempt sends a copy: a body can be read once.
      const copy = request.clone();
      const token = options.token ? await options.token() : undefined;
      if (token) copy.headers.set('authorization', `Bearer ${token}`);
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await options.fetch(new Request(copy, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(options.timeoutMs)]) }));
      } catch (error) {
        if (request.signal.aborted) throw error; // the caller gave up: not ours to retry
        failure = error;
      }
      if (response?.status === 401 && token) options.onUnauthorized?.(token);
      const outcome: AttemptOutcome = response
        ? {
            kind: 'response',
            status: response.status,
            code: response.status === 409 ? await errorCodeOf(response) : undefined,
            retryAfter: response.headers.get('retry-after'),
          }
        : { kind: 'network-error' };
      const retryAfterMs = response ? parseRetryAfter(response.headers.get('retry-after'), now()) : undefined;
      const delay = isRetryable(outcome, retrySafe) ? delayBeforeRetry(attempt, retryAfterMs, options.retry, random) : undefined;
      if (delay === undefined) {
        if (response) {
          attemptsByResponse.set(response, attempt);
          notifyDeprecation(options.onDeprecation, request, response);
          return response;
        }
        throw new PartnerNetworkError(
          `${request.method} ${new URL(request.url).pathname}: no answer (${describe(failure)})`,
          attempt,
          correlationId,
          failure,
        );
      }
      await response?.body?.cancel(); // release the connection before waiting
      await sleep(delay);
    }
  };
}

function notifyDeprecation(handler: DeprecationHandler | undefined, request: Request, response: Response): void {
  const notice = handler && deprecationOf(request, response);
  if (!notice) return;
  try {
    handler(notice);
  } catch {
    // A failing alert must not turn an answered call into a failed one (a write may have been applied).
  }
}

async function errorCodeOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.clone().json()) as { code?: unknown };
    return typeof body.code === 'string' ? body.code : undefined;
  } catch {
    return undefined;
  }
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
