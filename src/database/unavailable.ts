import { metrics } from '../observability/metrics';

/**
 * Whether a failure means "the database cannot answer now" (down, restarting, unreachable, or no
 * pooled connection free in time) rather than a bug: such failures are answered 503 with
 * Retry-After, by the API pipeline and by the token endpoint alike, since nothing was applied.
 */
const UNAVAILABLE_CODES = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', 'P1001', 'P1017', 'P2024', 'P2028'];
const UNAVAILABLE_MESSAGE =
  /ECONNREFUSED|ECONNRESET|Connection terminated|Server has closed the connection|connection error and is not queryable|terminating connection|Can't reach database|database system is (starting up|shutting down|in recovery mode)|DatabaseNotReachable|timeout exceeded when trying to connect/;

/**
 * Whether a request that failed with `error` is to be answered 503: the database is unavailable.
 * A pool wait that timed out is counted (database_pool_wait_timeouts_total) wherever it is answered.
 */
export function answeredUnavailable(error: unknown): boolean {
  if (!isDatabaseUnavailable(error)) return false;
  if (waitedForConnection(error)) metrics.poolWaitTimeouts.inc();
  return true;
}

/** No pooled connection became free in time (pg-pool's timeout, or Prisma's transaction start). */
function waitedForConnection(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const { message, code } = current as { message?: unknown; code?: unknown };
    if (code === 'P2028' || (typeof message === 'string' && message.includes('timeout exceeded when trying to connect'))) return true;
  }
  return false;
}

/** The database is down, restarting or unreachable: walk the cause chain (the driver adapter wraps pg's error). */
function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const fields = current as { code?: unknown; originalCode?: unknown; kind?: unknown; message?: unknown };
    const codes = [fields.code, fields.originalCode].filter((code): code is string => typeof code === 'string');
    if (codes.some((code) => UNAVAILABLE_CODES.includes(code) || code.startsWith('08'))) return true;
    if (fields.kind === 'DatabaseNotReachable' || fields.kind === 'ConnectionClosed') return true;
    if (typeof fields.message === 'string' && UNAVAILABLE_MESSAGE.test(fields.message)) return true;
  }
  return false;
}
