/**
 * Every core of the host: with WEB_CONCURRENCY > 1 this process becomes the cluster's primary. It
 * opens the database (starting the embedded one when DATABASE_URL is unset) and migrates it once,
 * counts the API quotas of all workers (rate-limiter-flexible's RateLimiterClusterMaster: no
 * database statement per request), serves the workers' summed metrics, and forks the workers, which
 * share the listening port (node:cluster) and each hold their own database pool and token cache.
 * A worker that dies is replaced. On SIGTERM the primary drains every worker (each stops
 * gracefully), then stops the embedded database last.
 */
import cluster, { type Worker } from 'node:cluster';
import { RateLimiterClusterMaster } from 'rate-limiter-flexible';
import type { Config } from '../config';
import { openDatabaseServer } from '../database/database-server';
import { migrateDatabase } from '../database/migrate';
import type { Logger } from '../logger';
import { startMetricsServer } from '../observability/metrics-server';
import { onTermination } from './shutdown';

const RESTART_DELAY_MS = 1_000;

export interface Primary {
  databaseUrl: string;
  /** Resolves once every worker listens. */
  listening: Promise<void>;
}

export async function runPrimary(config: Config, logger: Logger): Promise<Primary> {
  const database = await openDatabaseServer(config, (line) => logger.info(line));
  await migrateDatabase(database.directUrl);
  new RateLimiterClusterMaster();
  const metricsServer = await startMetricsServer(config.METRICS_HOST, config.METRICS_PORT, true);
  let stopping = false;
  const fork = () => cluster.fork({ DATABASE_URL: database.url, DATABASE_DIRECT_URL: database.directUrl });
  const workers: Worker[] = Array.from({ length: config.WEB_CONCURRENCY }, fork);
  const listening = Promise.all(workers.map((worker) => new Promise<void>((resolve) => worker.once('listening', () => resolve())))).then(
    () => undefined,
  );
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    logger.error({ worker: worker.id, code, signal }, 'a worker stopped unexpectedly; starting another');
    setTimeout(fork, RESTART_DELAY_MS).unref();
  });
  onTermination(
    async () => {
      stopping = true;
      const running = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
      const exited = running.map((worker) => new Promise<void>((resolve) => (worker.isDead() ? resolve() : worker.once('exit', () => resolve()))));
      for (const worker of running) worker.process.kill('SIGTERM');
      await Promise.all(exited);
      await new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve()));
      await database.stop();
    },
    config.SHUTDOWN_GRACE_MS,
    logger,
  );
  return { databaseUrl: database.url, listening };
}
