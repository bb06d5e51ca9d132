/**
 * Codes for the two failures of the pg driver that carry none of their own, so that they are
 * recognised by code like every other (unavailable.ts), never by their message text:
 *  - a connection the server closed or that broke (pg rejects the queries on it with a plain
 *    Error), marked by the pool's client (statement-cache.ts), which sees the connection end;
 *  - no pooled connection became free in time (pg-pool's timeout is a plain Error too), marked by
 *    the pool below, which knows how long the caller waited.
 */
import pg from 'pg';

export const CONNECTION_LOST = 'RG_CONNECTION_LOST';
export const POOL_WAIT_TIMEOUT = 'RG_POOL_WAIT_TIMEOUT';

class DriverFailure extends Error {
  constructor(
    readonly code: string,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'DriverFailure';
  }
}

/** An error that PostgreSQL or the operating system gave a code to (a SQLSTATE, ECONNREFUSED...). */
function hasCode(error: unknown): boolean {
  return typeof (error as { code?: unknown } | null)?.code === 'string';
}

/** `error` of a query on a connection that has ended: a code-less one becomes CONNECTION_LOST. */
export function connectionLost(error: unknown): unknown {
  return hasCode(error) ? error : new DriverFailure(CONNECTION_LOST, error);
}

type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

/**
 * pg's pool, whose code-less failure to hand out a connection within `connectionTimeoutMillis`
 * (waiting for a free one, or opening a new one) carries POOL_WAIT_TIMEOUT, and any other
 * code-less failure to open one CONNECTION_LOST (seen in the topology test behind PgBouncer).
 */
export class DatabasePool extends pg.Pool {
  // pg-pool's connect() is both promise- and callback-style (its query() uses the callback).
  override connect(...args: unknown[]): never {
    const started = Date.now();
    const waitMs = this.options.connectionTimeoutMillis ?? 0;
    // pg-pool's timer fired (timers may run a millisecond early): the wait lasted the timeout.
    // Any other code-less failure here is a new connection that ended while it was being opened
    // ("Connection terminated unexpectedly": a pooler or server restarting): the connection is lost.
    const marked = (error: Error): Error => {
      if (hasCode(error)) return error;
      return new DriverFailure(waitMs > 0 && Date.now() - started >= waitMs - 5 ? POOL_WAIT_TIMEOUT : CONNECTION_LOST, error);
    };
    const [callback] = args as [ConnectCallback | undefined];
    if (typeof callback === 'function') {
      return super.connect((error, client, done) => callback(error ? marked(error) : undefined, client, done)) as never;
    }
    return super.connect().catch((error: Error) => {
      throw marked(error);
    }) as never;
  }
}
