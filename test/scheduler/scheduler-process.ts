/**
 * A separate service process for the concurrency test: connects to the database given as the
 * first argument, prints `ready`, waits for `go` on stdin (so that every process starts its run at
 * the same moment), runs the scheduler once with the production configuration and prints the run
 * summary as one JSON line.
 *   tsx test/scheduler/scheduler-process.ts <database url>
 */
import { TEST_WEBHOOK_KEY } from '../support/factories';
import { createInterface } from 'node:readline';
import { loadConfig } from '../../src/config';
import { createDatabaseClient } from '../../src/database/prisma-client';
import { runSchedulerOnce } from '../../src/scheduler/scheduler';
import { scheduledJobs } from '../../src/sandbox/lifecycle-jobs';

async function main(): Promise<void> {
  const databaseUrl = process.argv[2];
  if (!databaseUrl) throw new Error('usage: scheduler-process.ts <database url>');
  const config = loadConfig({
    ENVIRONMENT: 'production',
    PUBLIC_ORIGIN: 'https://api.example.test',
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY,
    LOG_LEVEL: 'silent',
    DATABASE_URL: databaseUrl,
  });
  const db = createDatabaseClient(databaseUrl, { poolMax: 2 });
  await db.$queryRaw`SELECT 1`; // connect before the start signal
  const lines = createInterface({ input: process.stdin });
  const go = new Promise<void>((resolve) => lines.on('line', (line) => line.trim() === 'go' && resolve()));
  process.stdout.write('ready\n');
  await go;
  lines.close();
  const summary = await runSchedulerOnce(db, config, scheduledJobs(config));
  process.stdout.write(`${JSON.stringify({ pid: process.pid, summary })}\n`);
  await db.$disconnect();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
