/**
 * Starts the service: configuration, database (embedded PostgreSQL unless DATABASE_URL is set),
 * migrations, HTTP listener, and a graceful stop on SIGINT/SIGTERM.
 */
import type { Server } from 'node:http';
import { buildApp } from './app';
import { ConfigError, loadConfig } from './config';
import { openDatabaseServer } from './database/database-server';
import { migrateDatabase } from './database/migrate';
import { createDatabaseClient } from './database/prisma-client';
import { createLogger } from './logger';
import { answerMalformedRequests } from './http/malformed-http';
import { ensureDemoCredential } from './auth/demo-credential';
import { startHousekeeping } from './operations/housekeeping';
import { startScheduler } from './operations/scheduler/scheduler';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.LOG_LEVEL);
  const server = await openDatabaseServer(config, (line) => logger.info(line));
  await migrateDatabase(server.url);
  const db = createDatabaseClient(server.url, config.DATABASE_POOL_MAX, config.DATABASE_POOL_WAIT_MS);
  const housekeeping = startHousekeeping(db, config, logger);
  const scheduler = startScheduler(db, config, logger);

  const app = await buildApp({ db, config, logger });
  const http: Server = app.listen(config.PORT, config.HOST);
  answerMalformedRequests(http);
  await new Promise<void>((resolve, reject) => http.once('listening', resolve).once('error', reject));
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const origin = config.PUBLIC_ORIGIN ?? `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${port}`;
  logger.info({ environment: config.ENVIRONMENT }, `partner API at ${origin}${config.API_BASE_PATH}, token endpoint at ${origin}${config.AUTH_BASE_PATH}/oauth2/token`);
  if (config.DEMO_CREDENTIAL) await ensureDemoCredential(db, config, origin);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal} received, stopping`);
    housekeeping.stop();
    await scheduler.stop();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await db.$disconnect();
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
