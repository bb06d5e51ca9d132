/**
 * The service's app in the test process, wired as src/runtime/serve.ts wires it (its own Prisma
 * client, token cache with revocation listener, lifecycle and logger) on a given database: the app
 * of a test world, or another one on the same database, as a second service process would have.
 */
import type { Express } from 'express';
import { closeQuotaStores } from '../../src/http/quota-store';
import type { DestinationStream } from 'pino';
import { buildApp } from '../../src/app';
import type { PrincipalCache } from '../../src/auth/principal-cache';
import { startTokenCache } from '../../src/auth/revocation-listener';
import { loadConfig, type Config } from '../../src/config';
import { createDatabaseClient, type Database } from '../../src/database/prisma-client';
import { Lifecycle } from '../../src/health/lifecycle';
import { readinessCheck } from '../../src/health/readiness';
import { createLogger } from '../../src/logger';
import { startDeliveryWorker } from '../../src/webhooks/delivery-worker';
import { RequestLogWriter } from '../../src/request-log/request-log-writer';
import { tallyAnswer, writeTally } from './operation-tally';

export interface InProcessApp {
  app: Express;
  db: Database;
  config: Config;
  /** The app's cache of token principals (tests wait on its evictions after revoking in the database). */
  principals: PrincipalCache;
  /** Writes the request log lines buffered so far (absent when REQUEST_LOG=off). */
  flushRequestLog(): Promise<void>;
  close(): Promise<void>;
}

export interface InProcessOptions {
  /** Start as a draining process (shutdown begun): readiness answers 503. */
  draining?: boolean;
  /** Log at `info` into this stream instead of not logging. */
  logTo?: DestinationStream;
}

export async function startAppOn(databaseUrl: string, overrides: Record<string, string> = {}, options: InProcessOptions = {}): Promise<InProcessApp> {
  // No webhook delivery worker unless the test asks for one (WEBHOOK_DELIVERY_CONCURRENCY).
  const config = loadConfig({
    LOG_LEVEL: options.logTo ? 'info' : 'silent',
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_MAX: '5',
    WEBHOOK_DELIVERY_CONCURRENCY: '0',
    // Every request of a test comes from 127.0.0.1: the suites that walk every operation (the public
    // pages among them) would spend the per-address quota of requests without a token, which
    // test/contract/public-pages.test.ts tests with a quota of its own.
    ANONYMOUS_RATE_LIMIT_REQUESTS: '1000000',
    // Test receivers listen on 127.0.0.1, as a partner's handler on its own machine (make start).
    ...(overrides['ENVIRONMENT'] === 'production' ? {} : { WEBHOOK_ALLOW_LOOPBACK: 'true' }),
    ...overrides,
  });
  const db = createDatabaseClient(databaseUrl, { poolMax: config.DATABASE_POOL_MAX, poolWaitMs: config.DATABASE_POOL_WAIT_MS });
  const logger = createLogger(config.LOG_LEVEL, options.logTo);
  const tokenCache = startTokenCache(databaseUrl, config.TOKEN_CACHE_SIZE, logger);
  await tokenCache.ready;
  const lifecycle = new Lifecycle();
  const deliveries = await startDeliveryWorker(db, config, databaseUrl, logger);
  if (options.draining) lifecycle.startDraining();
  const requestLog = config.REQUEST_LOG === 'on' ? new RequestLogWriter(db, logger, { flushMs: config.REQUEST_LOG_FLUSH_MS }) : undefined;
  const app = await buildApp({
    db,
    config,
    logger,
    principals: tokenCache.principals,
    lifecycle,
    ready: readinessCheck(db, lifecycle),
    checkResponses: true,
    onAnswered: tallyAnswer,
    requestLog,
  });
  return {
    app,
    db,
    config,
    principals: tokenCache.principals,
    flushRequestLog: async () => requestLog?.flush(),
    async close() {
      writeTally();
      await deliveries.stop();
      await requestLog?.flush();
      await tokenCache.stop();
      await db.$disconnect();
      await closeQuotaStores();
    },
  };
}
