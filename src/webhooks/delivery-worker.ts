/**
 * The webhook delivery worker of a service process: pg-boss 12 workers on the `webhook-delivery`
 * queue (src/job-queue/delivery-queue.ts), with pg-boss's own small pool from the same DATABASE_URL (the one
 * accepted exception to "Prisma is the one door": the queue library's own connections, for its
 * queue tables only; every read and write of ours in the job goes through Prisma).
 *
 * Why pg-boss: a job carries a heartbeat. While an attempt runs, its process refreshes the job's
 * heartbeat every WEBHOOK_HEARTBEAT_SECONDS / 2; a process that is killed stops refreshing, and the
 * queue's supervision (run by one process at a time, every WEBHOOK_SUPERVISE_SECONDS) fails the job
 * once its heartbeat is WEBHOOK_HEARTBEAT_SECONDS old, and it is retried at once by whichever process
 * polls first. So a killed process's attempt runs again within heartbeat + supervision interval +
 * about 3 s (retry delay and polling): about 65 s with the defaults (graphile-worker 0.16: 4 hours).
 * If the database stops seeing a LIVE process's heartbeat, pg-boss aborts that attempt (`job.signal`)
 * before another process may take it: two attempts of one delivery never overlap.
 *
 * Fair delivery (issue 23 item 3): of a process's WEBHOOK_DELIVERY_CONCURRENCY slots, one agency's
 * deliveries take at most WEBHOOK_AGENCY_CONCURRENCY at once, of those one endpoint's at most
 * WEBHOOK_ENDPOINT_CONCURRENCY (endpoint-share.ts), and an endpoint that stops answering is paced
 * (delivery-pacing.ts): one agency's slow or dead receivers hold only that agency's share, and one
 * slow endpoint only its own share of it.
 *
 * Traces: an attempt is the span `webhook.delivery_attempt`, continuing the trace of the write that
 * queued its job (the job's data carries its context, delivery-queue.ts); its POST is a client span
 * beneath it, and the receiver gets its `traceparent`.
 */
import { PgBoss, type Job } from 'pg-boss';
import type { Config } from '../config';
import { databaseFailed } from '../database/outage-log';
import type { Database } from '../database/prisma-client';
import type { Logger } from '../logger';
import { attemptDelivery, type DeliverySettings } from './delivery-task';
import { DELIVERY_QUEUE, deliveryQueueOptions, QUEUE_SCHEMA, type DeliveryJobData } from '../job-queue/delivery-queue';
import { inContinuedSpan } from '../tracing/tracing';
import { parseSchedule } from './retry-schedule';
import { secretBox } from './secret-box';
import { urlPolicy } from './url-safety';

export interface DeliveryWorker {
  stop(): Promise<void>;
}

/** pg-boss's pool per delivering process: fetches, heartbeats and completions are short statements between HTTP waits. */
export const QUEUE_POOL_MAX = 4;
/** A retry due later is found by polling (a job runnable at once wakes the workers by NOTIFY). */
const POLL_SECONDS = 1;

export function deliverySettings(config: Config): DeliverySettings {
  return {
    box: secretBox(config),
    policy: urlPolicy(config),
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    scheduleMs: parseSchedule(config.WEBHOOK_RETRY_SCHEDULE_MS),
    disableAfterDays: config.WEBHOOK_DISABLE_AFTER_DAYS,
    endpointConcurrency: config.WEBHOOK_ENDPOINT_CONCURRENCY,
  };
}

/** `databaseUrl`: a session connection (DATABASE_DIRECT_URL when requests go through a pooler): pg-boss LISTENs and takes advisory locks. */
export async function startDeliveryWorker(db: Database, config: Config, databaseUrl: string, logger: Logger): Promise<DeliveryWorker> {
  if (config.WEBHOOK_DELIVERY_CONCURRENCY === 0) return { stop: async () => undefined };
  const settings = deliverySettings(config);
  const log = logger.child({ component: 'webhook-delivery' });
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: QUEUE_SCHEMA,
    max: QUEUE_POOL_MAX,
    application_name: 'webhook-delivery',
    migrate: false,
    schedule: false,
    supervise: true,
    superviseIntervalSeconds: config.WEBHOOK_SUPERVISE_SECONDS,
    monitorIntervalSeconds: config.WEBHOOK_SUPERVISE_SECONDS,
    useListenNotify: true,
    registerInstance: false,
  });
  // Without a listener an 'error' event would end the process; the database going away is survived (pg-boss keeps polling).
  boss.on('error', (error: unknown) => {
    // An outage is logged once for the whole process (outage-log.ts), not once per queue poll.
    if (!databaseFailed(error)) log.warn({ err: error }, 'webhook delivery queue error');
  });
  boss.on('warning', (warning: { message?: string }) => log.warn({ warning: warning.message }, 'webhook delivery queue warning'));
  await boss.start({ attempts: 5 });
  // The queue exists (migrateDatabase); this process's heartbeat setting applies to jobs queued from now on.
  await boss.updateQueue(DELIVERY_QUEUE, deliveryQueueOptions(config.WEBHOOK_HEARTBEAT_SECONDS));
  // pg-boss waits the polling interval after every fetch, even one that found a job: a backlog (a
  // receiver back after an outage, a burst of writes, a host's share after it died) would drain at
  // one job per second per slot. So after each attempt every worker of ours that is holding a job
  // (this one included) is told to fetch again at once when it is done; a worker that found nothing
  // polls, and wakes on NOTIFY. No fetch is added: only the wait after a found job goes.
  const refetchAtOnce = (workId: string) => {
    for (const worker of boss.getWipData()) if (worker.workId === workId && worker.count > 0) boss.notifyWorker(worker.id);
  };
  const work: { id?: string } = {};
  work.id = await boss.work<DeliveryJobData>(
    DELIVERY_QUEUE,
    {
      localConcurrency: config.WEBHOOK_DELIVERY_CONCURRENCY,
      // A job's group is its agency (src/job-queue/delivery-queue.ts): an agency at its share is skipped when fetching, so
      // the other slots stay free for the others, however slow this one's receivers are.
      localGroupConcurrency: Math.min(config.WEBHOOK_AGENCY_CONCURRENCY, config.WEBHOOK_DELIVERY_CONCURRENCY),
      pollingIntervalSeconds: POLL_SECONDS,
      notifyPollingIntervalSeconds: POLL_SECONDS,
    },
    async ([job]: Job<DeliveryJobData>[]) => {
      if (!job) return;
      const attributes = { 'rg.delivery_id': job.data.deliveryId, 'messaging.message.id': job.id };
      await inContinuedSpan('webhook.delivery_attempt', job.data, () => attemptDelivery(db, job.data.deliveryId, settings, job.signal), attributes);
      // work() has answered by now: a job's fetch is a database round trip after it.
      if (work.id) refetchAtOnce(work.id);
    },
  );
  return {
    // Graceful: running attempts finish (and are recorded) before the pool closes.
    stop: () => boss.stop({ graceful: true, close: true, timeout: Math.max(config.WEBHOOK_TIMEOUT_MS + 5_000, 10_000) }),
  };
}
