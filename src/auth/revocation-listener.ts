/**
 * Listens to PostgreSQL's `auth_revoked` channel (the triggers of migration
 * 20261123000000_auth_revocation_notify send the credential's id whenever a credential or a secret
 * is revoked or tokens are deleted) and evicts the credential's principals from this process's
 * cache. This connection is the one use of the pg driver beside Prisma's adapter: Prisma Client
 * cannot LISTEN.
 *
 * The cache is trusted only while the connection listens. A lost connection (an 'error' or 'end'
 * event, a failed health check, or a barrier round trip that fails or takes longer than
 * BARRIER_TIMEOUT_MS) distrusts it at once and reconnects with a growing pause; once listening
 * again the cache starts empty. Before a cached principal is served, a round trip on this
 * connection proves that the revocations committed before the request have arrived
 * (notification-barrier.ts).
 */
import pg from 'pg';
import type { Logger } from '../logger';
import { databaseFailed } from '../database/outage-log';
import { NotificationBarrier } from './notification-barrier';
import { PrincipalCache } from './principal-cache';

export const REVOCATION_CHANNEL = 'auth_revoked';
const HEALTH_CHECK_MS = 5_000;
const MAX_RETRY_MS = 5_000;
/** A barrier round trip is a `SELECT 1` answered in a fraction of a millisecond; one this late means a sick connection. */
const BARRIER_TIMEOUT_MS = 2_000;

export interface RevocationListener {
  /** Resolves once the first connection listens (or fails; the listener keeps retrying). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export function startRevocationListener(connectionString: string, cache: PrincipalCache, logger: Logger): RevocationListener {
  let client: pg.Client | undefined;
  let stopped = false;
  let retryMs = 100;
  let retryTimer: NodeJS.Timeout | undefined;
  let healthTimer: NodeJS.Timeout | undefined;

  const lost = (current: pg.Client, error?: Error) => {
    if (client !== current) return;
    client = undefined;
    cache.distrust();
    if (healthTimer) clearInterval(healthTimer);
    current.removeAllListeners('notification');
    void current.end().catch(() => undefined);
    if (stopped) return;
    if (!databaseFailed(error)) logger.warn({ err: error }, 'revocation listener lost its connection; token cache off until it listens again');
    retryTimer = setTimeout(() => void connect(), retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  };

  const connect = async (): Promise<void> => {
    const current = new pg.Client({ connectionString, keepAlive: true, application_name: 'revocation-listener' });
    client = current;
    const barrier = caughtUpThrough(current, (error) => lost(current, error));
    current.on('error', (error) => lost(current, error));
    current.on('end', () => lost(current));
    current.on('notification', (message) => {
      const credentialId = message.payload?.startsWith('credential:') ? message.payload.slice('credential:'.length) : undefined;
      if (credentialId) cache.evictCredential(credentialId);
      else cache.trust(barrier); // an unknown payload: forget everything rather than guess
    });
    try {
      await current.connect();
      await current.query(`LISTEN ${REVOCATION_CHANNEL}`);
      if (client !== current || stopped) return;
      cache.trust(barrier);
      retryMs = 100;
      // A connection can die without an event (a network partition): a barrier round trip proves it
      // alive, and one that fails or hangs past its timeout ends it (caughtUpThrough).
      healthTimer = setInterval(() => void barrier().catch(() => undefined), HEALTH_CHECK_MS);
      healthTimer.unref();
    } catch (error) {
      lost(current, error as Error);
    }
  };

  const ready = connect();
  return {
    ready,
    async stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      if (healthTimer) clearInterval(healthTimer);
      const current = client;
      client = undefined;
      cache.distrust();
      await current?.end().catch(() => undefined);
    },
  };
}

/** The barrier of one listening connection; a round trip that fails or hangs ends the connection. */
function caughtUpThrough(client: pg.Client, fail: (error: Error) => void): () => Promise<void> {
  const roundTrip = async () => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`revocation barrier took over ${BARRIER_TIMEOUT_MS} ms`)), BARRIER_TIMEOUT_MS);
    });
    try {
      await Promise.race([client.query('SELECT 1'), late]);
    } catch (error) {
      fail(error as Error);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
  const barrier = new NotificationBarrier(roundTrip);
  return () => barrier.passed();
}

/** This process's token cache and its listener; with `size` 0 the cache stays off (every request reads its token). */
export function startTokenCache(connectionString: string, size: number, logger: Logger): { principals: PrincipalCache } & RevocationListener {
  const principals = new PrincipalCache(Math.max(size, 1));
  if (size === 0) return { principals, ready: Promise.resolve(), stop: async () => undefined };
  return { principals, ...startRevocationListener(connectionString, principals, logger) };
}
