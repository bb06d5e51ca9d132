/**
 * One serving process: its database client and token cache, housekeeping, scheduler and webhook
 * delivery worker, the app
 * and its listener, and how it stops gracefully. Run alone (`WEB_CONCURRENCY=1`) or as one of the
 * workers of runtime/cluster.ts, which shares the listening port among them.
 */
import type { Server } from 'node:http';
import { buildApp } from '../app';
import { startTokenCache } from '../auth/revocation-listener';
import type { Config } from '../config';
import { namesStatements } from '../database/statement-cache';
import { logDatabaseOutagesTo } from '../database/outage-log';
import { ReplicaReads } from '../database/replica-reads';
import { createDatabaseClient, poolStatistics, type Database } from '../database/prisma-client';
import { observePool } from '../observability/metrics';
import { flushTraces, untraced } from '../tracing/tracing';
import type { Logger } from '../logger';
import { startHousekeeping } from '../scheduler/housekeeping';
import { scheduledJobs } from '../sandbox/lifecycle-jobs';
import { startScheduler } from '../scheduler/scheduler';
import { closeQuotaStores } from '../http/quota-store';
import { listen } from './http-server';
import { Lifecycle } from '../health/lifecycle';
import { readinessCheck } from '../health/readiness';
import { stopGracefully } from './shutdown';
import { startDeliveryWorker } from '../webhooks/delivery-worker';
import { RequestLogWriter } from '../request-log/request-log-writer';
import { startRequestLogPruning } from '../request-log/request-log-pruning';

export interface Serving {
  server: Server;
  db: Database;
  /** Drains and stops everything this process started; `afterwards` runs last (the embedded database). */
  stop(afterwards?: () => Promise<void>): Promise<void>;
}

/**
 * `database.url` carries the requests (it may be a transaction pooler); `database.directUrl` the
 * session work: the revocation LISTEN and the job queue.
 */
export async function serve(config: Config, logger: Logger, database: { url: string; directUrl: string }): Promise<Serving> {
  const namedStatements = namesStatements({ ...config, DATABASE_URL: database.url, DATABASE_DIRECT_URL: database.directUrl });
  const db = createDatabaseClient(database.url, { poolMax: config.DATABASE_POOL_MAX, poolWaitMs: config.DATABASE_POOL_WAIT_MS, namedStatements });
  logDatabaseOutagesTo(logger, () => untraced(() => db.$queryRaw`SELECT 1`));
  // The replica's own client, as large as the primary's: it carries the reads it takes off it.
  const replica = config.DATABASE_REPLICA_URL
    ? createDatabaseClient(config.DATABASE_REPLICA_URL, {
        poolMax: config.DATABASE_POOL_MAX,
        poolWaitMs: config.DATABASE_POOL_WAIT_MS,
        namedStatements,
      })
    : undefined;
  const replicaReads = replica ? new ReplicaReads(db, replica, config.DATABASE_REPLICA_MAX_LAG_MS, logger) : undefined;
  const tokenCache = startTokenCache(database.directUrl, config.TOKEN_CACHE_SIZE, logger);
  await tokenCache.ready;
  const lifecycle = new Lifecycle();
  const housekeeping = startHousekeeping(db, config, logger);
  const scheduler = startScheduler(db, config, logger, scheduledJobs(config));
  // The pruning runs whether or not this process writes lines: what others wrote is bounded too.
  const requestLogPruning = startRequestLogPruning(
    db,
    { lines: config.REQUEST_LOG_LINES_PER_AGENCY, bytes: config.REQUEST_LOG_BYTES_PER_AGENCY },
    logger,
  );
  const requestLog = config.REQUEST_LOG === 'on' ? new RequestLogWriter(db, logger, { flushMs: config.REQUEST_LOG_FLUSH_MS }) : undefined;
  const deliveries = await startDeliveryWorker(db, config, database.directUrl, logger);
  observePool(() => poolStatistics(db));
  const app = await buildApp({
    db,
    config,
    logger,
    principals: tokenCache.principals,
    lifecycle,
    ready: readinessCheck(db, lifecycle),
    replicaReads,
    requestLog,
  });
  const server = await listen(app, config);
  return {
    server,
    db,
    stop: (afterwards) =>
      stopGracefully(
        server,
        lifecycle,
        {
          background: [() => housekeeping.stop(), () => requestLogPruning.stop(), () => scheduler.stop(), () => deliveries.stop()],
          resources: [
            // Once no request is left: the buffered lines, before the database goes.
            async () => requestLog?.flush(),
            () => tokenCache.stop(),
            () => db.$disconnect(),
            async () => replica?.$disconnect(),
            closeQuotaStores,
            // The last spans (this stop's own requests, attempts and statements) are exported before the process ends.
            flushTraces,
            ...(afterwards ? [afterwards] : []),
          ],
        },
        config.SHUTDOWN_GRACE_MS,
        logger,
      ),
  };
}
