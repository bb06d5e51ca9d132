import { metrics } from '../observability/metrics';
import { CONNECTION_LOST, POOL_WAIT_TIMEOUT } from './driver-errors';

/**
 * Whether a failure means "the database cannot answer now" (down, restarting, unreachable, or no
 * pooled connection free in time) rather than a bug: such failures are answered 503 with
 * Retry-After, by the API pipeline and by the token endpoint alike, since nothing was applied.
 * Recognised by code only: SQLSTATE class 08 (connection exception) and 57P01-57P03 (the server
 * shutting down or starting), the operating system's socket errors, Prisma's P1001 (unreachable),
 * P1017 (server closed the connection), P2024 (pool timeout) and P2028 (transaction could not
 * start in time), the pg adapter's kinds, and the two codes driver-errors.ts gives pg's
 * code-less failures.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  'P1001',
  'P1017',
  'P2024',
  'P2028',
  CONNECTION_LOST,
  POOL_WAIT_TIMEOUT,
]);
const UNAVAILABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout']);
const WAIT_CODES = new Set(['P2028', POOL_WAIT_TIMEOUT]);

/**
 * Whether a request that failed with `error` is to be answered 503: the database is unavailable.
 * A pool wait that timed out is counted (database_pool_wait_timeouts_total) wherever it is answered.
 */
export function answeredUnavailable(error: unknown): boolean {
  if (!isDatabaseUnavailable(error)) return false;
  if (waitedForConnection(error)) metrics.poolWaitTimeouts.inc();
  return true;
}

/** The database is down, restarting or unreachable, or no pooled connection was free in time. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return codesOf(error).some((code) => UNAVAILABLE_CODES.has(code) || UNAVAILABLE_KINDS.has(code) || /^08[0-9A-Z]{3}$/.test(code));
}

/** No pooled connection became free in time: this process's load, not an outage (outage-log.ts). */
export function waitedForConnection(error: unknown): boolean {
  return codesOf(error).some((code) => WAIT_CODES.has(code));
}

/**
 * Every code along the error's chain: Prisma's own (P2010 for a raw query, its driver adapter's
 * error in `meta.driverAdapterError`), the pg adapter's (`kind`, and the SQLSTATE as `code` or
 * `originalCode`, under `cause`), and the driver's.
 */
function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  const pending: unknown[] = [error];
  for (let seen = 0; pending.length > 0 && seen < 10; seen++) {
    const fields = pending.shift() as {
      code?: unknown;
      originalCode?: unknown;
      kind?: unknown;
      cause?: unknown;
      meta?: { driverAdapterError?: unknown };
    };
    if (typeof fields !== 'object' || fields === null) continue;
    for (const value of [fields.code, fields.originalCode, fields.kind]) if (typeof value === 'string') codes.push(value);
    pending.push(fields.cause, fields.meta?.driverAdapterError);
  }
  return codes;
}
