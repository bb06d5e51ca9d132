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
import { Logger as WorkerLogger, run, type Runner } from 'graphile-worker';
import type { Config } from '../config';
import type { Database } from '../database/prisma-client';
import { DELIVERY_TASK } from '../events/outbox';
import type { Logger } from '../logger';
import { attemptDelivery, type DeliverySettings } from './delivery-task';
import { parseSchedule } from './retry-schedule';
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

/** Starts the runner (none when WEBHOOK_DELIVERY_CONCURRENCY is 0). */
export async function startDeliveryWorker(db: Database, config: Config, databaseUrl: string, logger: Logger): Promise<DeliveryWorker> {
  if (config.WEBHOOK_DELIVERY_CONCURRENCY === 0) return { stop: async () => undefined };
  const settings = deliverySettings(config);
  const log = logger.child({ component: 'webhook-delivery' });
  const runner: Runner = await run({
    connectionString: databaseUrl,
    schema: 'graphile_worker',
    concurrency: config.WEBHOOK_DELIVERY_CONCURRENCY,
    // LISTEN/NOTIFY wakes a worker at once; polling only catches retries whose time came.
    pollInterval: 1000,
    maxPoolSize: Math.min(config.WEBHOOK_DELIVERY_CONCURRENCY + 2, 12),
    noHandleSignals: true,
    noPreparedStatements: true,
    logger: new WorkerLogger((scope) => (level, message, meta) => {
      if (level === 'error' || level === 'warning') log.warn({ scope, ...meta }, message);
    }),
    taskList: {
      [DELIVERY_TASK]: async (payload) => {
        await attemptDelivery(db, (payload as { deliveryId: string }).deliveryId, settings);
      },
    },
  });
  return { stop: () => runner.stop() };
}
