/**
 * The webhook delivery worker of a service process: a graphile-worker runner on its own small
 * pool from the same DATABASE_URL (the one accepted exception to "Prisma is the one door": the
 * queue library's own connections, for its queue tables only; every read and write of ours in the
 * task goes through Prisma).
 *
 * Why graphile-worker (0.16, the last line supporting Node 20) rather than pg-boss: jobs are
 * added by a SQL function (`graphile_worker.add_job`) that our writes call inside their own
 * transaction (the outbox and its jobs commit together); it wakes workers by LISTEN/NOTIFY at
 * COMMIT (milliseconds of lag, not a polling interval); and several processes share the queue
 * safely (`FOR UPDATE SKIP LOCKED`): each job, so each attempt, runs in one process only.
 */
import pg from 'pg';
import { Logger as WorkerLogger, run, type Runner, type RunnerOptions } from 'graphile-worker';
import type { Config } from '../config';
import type { Database } from '../database/prisma-client';
import { DELIVERY_TASK } from '../events/outbox';
import type { Logger } from '../logger';
import { attemptDelivery, type DeliverySettings } from './delivery-task';
import { parseSchedule } from './retry-schedule';
import { databaseFailed } from '../database/outage-log';
import { secretBox } from './secret-box';

export interface DeliveryWorker {
  stop(): Promise<void>;
}

export function deliverySettings(config: Config): DeliverySettings {
  return {
    box: secretBox(config),
    policy: config.ENVIRONMENT,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    scheduleMs: parseSchedule(config.WEBHOOK_RETRY_SCHEDULE_MS),
    disableAfterDays: config.WEBHOOK_DISABLE_AFTER_DAYS,
  };
}

/**
 * Starts the runner (none when WEBHOOK_DELIVERY_CONCURRENCY is 0), and keeps it whole: when a
 * graphile-worker worker cannot record the end of its job (the database went away mid-job), the
 * worker exits, its job stays locked, and graphile-worker 0.16 neither replaces the worker nor
 * releases the job (for 4 hours). So on such a death the runner is replaced by a new one, and the
 * dead worker's job is unlocked (`force_unlock_workers`) to be attempted again: a delivery may then
 * be made twice (receivers deduplicate on `webhook-id`, as the document says), never lost.
 */
export async function startDeliveryWorker(db: Database, config: Config, databaseUrl: string, logger: Logger): Promise<DeliveryWorker> {
  if (config.WEBHOOK_DELIVERY_CONCURRENCY === 0) return { stop: async () => undefined };
  const settings = deliverySettings(config);
  const log = logger.child({ component: 'webhook-delivery' });
  // Our own pool, whose error listener is never removed: a pool that graphile-worker creates loses its
  // listener when its runner stops, and an idle connection that the server ends then would end the process.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: Math.min(config.WEBHOOK_DELIVERY_CONCURRENCY + 2, 12) });
  pool.on('error', (error) => {
    if (!databaseFailed(error)) log.warn({ err: error }, 'a delivery worker connection ended');
  });
  const deadWorkers: string[] = [];
  let stopping = false;
  let replacing: Promise<void> | undefined;
  const startRunner = async (): Promise<Runner> => {
    const started = await run(runnerOptions(db, config, pool, settings, log));
    // The runner's promise rejects when one of its workers dies: that is handled by the replacement below.
    started.promise.catch((error: unknown) => {
      if (!databaseFailed(error)) log.warn({ err: error }, 'the delivery runner ended with an error');
    });
    started.events.on('worker:fatalError', ({ worker }) => {
      deadWorkers.push(worker.workerId);
      replacing ??= replaceRunner().finally(() => (replacing = undefined));
    });
    return started;
  };
  const replaceRunner = async () => {
    log.warn({ deadWorkers }, 'a delivery worker lost its database connection mid-job: replacing the runner');
    // A stopped runner refuses a second stop: none is current until its replacement has started.
    const stopped = runner;
    runner = undefined;
    await stopped?.stop().catch(() => undefined);
    // Short pauses: a graceful stop waits for this loop.
    for (let pause = 500; !stopping; pause = Math.min(pause * 2, 2_000)) {
      try {
        const dead = deadWorkers.splice(0);
        await db.$executeRaw`SELECT graphile_worker.force_unlock_workers(${dead}::text[])`.catch((error: unknown) => {
          deadWorkers.push(...dead);
          throw error;
        });
        runner = await startRunner();
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  };
  let runner: Runner | undefined = await startRunner();
  return {
    stop: async () => {
      stopping = true;
      await replacing;
      await runner?.stop();
      await pool.end();
    },
  };
}

function runnerOptions(db: Database, config: Config, pool: pg.Pool, settings: DeliverySettings, log: Logger): RunnerOptions {
  return {
    pgPool: pool,
    schema: 'graphile_worker',
    concurrency: config.WEBHOOK_DELIVERY_CONCURRENCY,
    // LISTEN/NOTIFY wakes a worker at once; polling only catches retries whose time came.
    pollInterval: 1000,
    noHandleSignals: true,
    noPreparedStatements: true,
    logger: new WorkerLogger((scope) => (level, message, meta) => {
      if ((level === 'error' || level === 'warning') && !databaseFailed(meta?.['error'] ?? message)) log.warn({ scope, ...meta }, message);
    }),
    taskList: {
      [DELIVERY_TASK]: async (payload) => {
        await attemptDelivery(db, (payload as { deliveryId: string }).deliveryId, settings);
      },
    },
  };
}
