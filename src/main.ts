/**
 * Starts the service: configuration, database (embedded PostgreSQL unless DATABASE_URL is set),
 * migrations, then either one serving process (WEB_CONCURRENCY=1) or a cluster primary and its
 * workers (runtime/cluster.ts). Every serving process stops gracefully on SIGTERM/SIGINT; the
 * embedded database stops last. Traces start first of all, when the OTEL_* variables ask for them
 * (tracing/start-tracing.ts: the SDK must be loaded before what it instruments).
 */
import './tracing/start-tracing';
import cluster from 'node:cluster';
import { ensureDemoCredential } from './auth/demo-credential';
import { ensureDemoPeople } from './people/demo-people';
import { ConfigError, loadConfig, type Config } from './config';
import { openDatabaseServer } from './database/database-server';
import { migrateDatabase } from './database/migrate';
import { createDatabaseClient } from './database/prisma-client';
import { createLogger, logFormat, type Logger } from './logger';
import { shareMetricsWithPrimary, startMetricsServer } from './observability/metrics-server';
import { runPrimary } from './runtime/cluster';
import { serve } from './runtime/serve';
import { onTermination } from './runtime/shutdown';

function configuration(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}

/** One process does everything: database, migrations, serving, metrics. */
async function runSingle(config: Config, logger: Logger): Promise<{ databaseUrl: string; port: number }> {
  const database = await openDatabaseServer(config, (line) => logger.info(line));
  await migrateDatabase(database.directUrl);
  const serving = await serve(config, logger, database);
  const metricsServer = await startMetricsServer(config.METRICS_HOST, config.METRICS_PORT, false);
  onTermination(
    () =>
      serving.stop(async () => {
        metricsServer?.close();
        await database.stop();
      }),
    config.SHUTDOWN_GRACE_MS,
    logger,
  );
  const address = serving.server.address();
  return { databaseUrl: database.url, port: typeof address === 'object' && address ? address.port : config.PORT };
}

/** A worker of the cluster: the primary opened and migrated the database and passed its URLs. */
async function runWorker(config: Config, logger: Logger): Promise<void> {
  shareMetricsWithPrimary();
  const serving = await serve(config, logger, { url: config.DATABASE_URL!, directUrl: config.DATABASE_DIRECT_URL ?? config.DATABASE_URL! });
  onTermination(() => serving.stop(), config.SHUTDOWN_GRACE_MS, logger);
}

async function main(): Promise<void> {
  const config = configuration();
  const logger = createLogger(
    config.LOG_LEVEL,
    undefined,
    cluster.isWorker ? { worker: cluster.worker?.id } : {},
    logFormat(config.LOG_FORMAT, config.ENVIRONMENT),
  );
  if (cluster.isWorker) return runWorker(config, logger);
  let databaseUrl: string;
  let port = config.PORT;
  if (config.WEB_CONCURRENCY > 1) {
    const primary = await runPrimary(config, logger);
    await primary.listening;
    databaseUrl = primary.databaseUrl;
  } else {
    ({ databaseUrl, port } = await runSingle(config, logger));
  }
  const origin = config.PUBLIC_ORIGIN ?? `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${port}`;
  logger.info(
    { environment: config.ENVIRONMENT, processes: config.WEB_CONCURRENCY },
    `partner API at ${origin}${config.API_BASE_PATH}, token endpoint at ${origin}${config.AUTH_BASE_PATH}/oauth2/token`,
  );
  if (config.DEMO_CREDENTIAL) {
    const db = createDatabaseClient(databaseUrl, { poolMax: 1, namedStatements: false });
    // Issue 37: the console's demo director and reviewer; a passkey needs a host name, not an IP address.
    const consoleOrigin = origin.replace('://127.0.0.1', '://localhost');
    await ensureDemoCredential(db, config, origin)
      .then(() => ensureDemoPeople(db, config, consoleOrigin))
      .finally(() => db.$disconnect());
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
